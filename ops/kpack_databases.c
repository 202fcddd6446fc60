/* kpack_databases: the splitter's database handlers as rows; see
 * kpack_databases.h.  What each one takes, as the splitter decides it:
 *   rocblas, hipblaslt  "rocblas/library" ("hipblaslt/library") anywhere in
 *                       the path, the last suffix of the name .co, .hsaco
 *                       or .dat (Python's PurePath.suffix: from the last
 *                       '.', which is neither the first byte nor the last),
 *                       and a GPU in the name;
 *   miopen              "miopen/db" anywhere in the path, the name ending
 *                       ".model", a GPU in the name;
 *   aotriton            the first directory "aotriton" followed by
 *                       "kernels": the name after that (a directory, or
 *                       the file itself) when it starts "gfx".
 * A GPU in a name is the first "gfx" followed by a digit, with the digits
 * and then the lower-case letters after it (the regex gfx(\d+[a-z]*)). */
#include <string.h>

#include "kpack_databases.h"

static const char *base(const char *rel)
{
	const char *s = strrchr(rel, '/');

	return s ? s + 1 : rel;
}

static bool copy_out(const char *from, size_t len, char *arch, size_t n)
{
	if (len + 1 > n)
		return false;
	memcpy(arch, from, len);
	arch[len] = 0;
	return true;
}

static bool gfx_in_name(const char *name, char *arch, size_t n)
{
	for (const char *p = strstr(name, "gfx"); p; p = strstr(p + 1, "gfx")) {
		const char *q = p + 3;

		if (*q < '0' || *q > '9')
			continue;
		while (*q >= '0' && *q <= '9')
			q++;
		while (*q >= 'a' && *q <= 'z')
			q++;
		return copy_out(p, (size_t)(q - p), arch, n);
	}
	return false;
}

static bool suffix_is(const char *name, const char *const *suffixes)
{
	const char *dot = strrchr(name, '.');

	if (!dot || dot == name || !dot[1])
		return false;
	for (; *suffixes; suffixes++)
		if (!strcmp(dot, *suffixes))
			return true;
	return false;
}

static const char *const library_suffixes[] = { ".co", ".hsaco", ".dat", NULL };

static bool library(const char *rel, const char *dir, char *arch, size_t n)
{
	const char *name = base(rel);

	return strstr(rel, dir) && suffix_is(name, library_suffixes) &&
	       gfx_in_name(name, arch, n);
}

static bool rocblas(const char *rel, char *arch, size_t n)
{
	return library(rel, "rocblas/library", arch, n);
}

static bool hipblaslt(const char *rel, char *arch, size_t n)
{
	return library(rel, "hipblaslt/library", arch, n);
}

static bool miopen(const char *rel, char *arch, size_t n)
{
	const char *name = base(rel);
	size_t len = strlen(name);

	return strstr(rel, "miopen/db") && len >= 6 &&
	       !strcmp(name + len - 6, ".model") && gfx_in_name(name, arch, n);
}

/* The names of rel one at a time: *at the start of the next, its length. */
static size_t next_name(const char **at)
{
	const char *s = *at, *slash = strchr(s, '/');
	size_t len = slash ? (size_t)(slash - s) : strlen(s);

	*at = slash ? slash + 1 : NULL;
	return len;
}

static bool aotriton(const char *rel, char *arch, size_t n)
{
	const char *at = rel, *name, *after;
	size_t len;

	while (at) {
		name = at;
		len = next_name(&at);
		/* Not the last name, and the next is "kernels". */
		if (!at || len != 8 || memcmp(name, "aotriton", 8) ||
		    strncmp(at, "kernels", 7) || (at[7] && at[7] != '/'))
			continue;
		if (!at[7])
			return false;
		after = at + 8;
		len = next_name(&after);
		return len >= 3 && !memcmp(at + 8, "gfx", 3) &&
		       copy_out(at + 8, len, arch, n);
	}
	return false;
}

/* In the order the splitter lists them (sorted). */
const struct kpack_database kpack_databases[] = {
	{ "aotriton", aotriton },
	{ "hipblaslt", hipblaslt },
	{ "miopen", miopen },
	{ "rocblas", rocblas },
};

const size_t kpack_ndatabases = sizeof(kpack_databases) /
				sizeof(kpack_databases[0]);

const struct kpack_database *kpack_database_named(const char *name)
{
	for (size_t i = 0; i < kpack_ndatabases; i++)
		if (!strcmp(kpack_databases[i].name, name))
			return &kpack_databases[i];
	return NULL;
}
