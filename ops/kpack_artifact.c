/* kpack_artifact: artifact directories, their manifests and batches; see
 * kpack_artifact.h. */
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kpack_artifact.h"
#include "../core/io_in.h"

void kpack_strings_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int push(char ***v, size_t *n, char *s)
{
	char **w;

	if (!s || !(w = realloc(*v, (*n + 1) * sizeof(*w)))) {
		free(s);
		return -1;
	}
	*v = w;
	w[(*n)++] = s;
	return 0;
}

/* Python's str.strip() of ASCII: the blanks it takes off. */
static bool blank(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Why prefix cannot be one, or NULL. */
static const char *bad_prefix(const char *p)
{
	const char *s = p;

	if (*p == '/')
		return "is not relative to the artifact directory";
	if (strchr(p, '\\'))
		return "has a '\\', which rocm-kpack would key as '/'";
	while (*s) {
		const char *end = strchr(s, '/');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (!len || (len == 1 && s[0] == '.') ||
		    (len == 2 && s[0] == '.' && s[1] == '.'))
			return "is not a path of names (no empty name, '.' "
			       "or '..')";
		s += len + (end != NULL);
		if (end && !*s)
			return "is not a path of names (no empty name, '.' "
			       "or '..')";
	}
	return NULL;
}

/* Whether a is b or inside it. */
static bool within(const char *a, const char *b)
{
	size_t n = strlen(b);

	return !strncmp(a, b, n) && (!a[n] || a[n] == '/');
}

/* The manifest at path read into in: a regular file (or a directory, which
 * io_in refuses in its words); a FIFO would wait for a writer for ever,
 * so it is opened without waiting and refused; a symbolic link could
 * lead out of the artifact, and is not followed. */
static int manifest_open(struct io_in *in, const char *path, struct err *e)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ELOOP)
		return err_code_file(e, ERR_MALFORMED, 0, path, "is a symbolic "
				     "link, which is not followed");
	if (fd < 0)
		return err_sys(e, path, errno);
	if (fstat(fd, &st) < 0) {
		int saved = errno;

		close(fd);
		return err_sys(e, path, saved);
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		close(fd);
		return err_code_file(e, ERR_MALFORMED, 0, path, "is no "
				     "regular file (a FIFO, device or "
				     "socket)");
	}
	return io_in_open_fd(in, fd, path, e);
}

int kpack_manifest_read(const char *dir, char ***prefixes, size_t *n,
			struct err *e)
{
	struct io_in in = { .fd = -1 };
	char *path = malloc(strlen(dir) + sizeof("/" KPACK_MANIFEST));
	const char *why;
	int rc = -1;

	*prefixes = NULL;
	*n = 0;
	if (!path)
		return err_nomem(e);
	sprintf(path, "%s/%s", dir, KPACK_MANIFEST);
	if (manifest_open(&in, path, e) < 0)
		goto out;
	for (size_t at = 0; at < in.len;) {
		const char *line = (const char *)in.data + at;
		size_t len = 0, b = 0;

		while (at + len < in.len && line[len] != '\n' &&
		       line[len] != '\r')
			len++;
		at += len + (at + len < in.len);
		if (at < in.len && line[len] == '\r' && line[len + 1] == '\n')
			at++;
		while (b < len && blank((unsigned char)line[b]))
			b++;
		while (len > b && blank((unsigned char)line[len - 1]))
			len--;
		if (len == b)
			continue;
		if (*n == KPACK_MAX_PREFIXES) {
			err_code_file(e, ERR_MALFORMED, 0, path, "lists more "
				      "than %d prefixes", KPACK_MAX_PREFIXES);
			goto out;
		}
		if (memchr(line + b, 0, len - b)) {
			err_code_file(e, ERR_MALFORMED, 0, path, "line %zu "
				      "holds a NUL byte", *n + 1);
			goto out;
		}
		if (push(prefixes, n, strndup(line + b, len - b)) < 0) {
			err_nomem(e);
			goto out;
		}
		if ((why = bad_prefix((*prefixes)[*n - 1]))) {
			err_code_file(e, ERR_MALFORMED, 0, path, "prefix "
				      "'%.200s' %s", (*prefixes)[*n - 1], why);
			goto out;
		}
		for (size_t i = 0; i + 1 < *n; i++) {
			const char *p = (*prefixes)[i], *q = (*prefixes)[*n - 1];

			if (within(p, q) || within(q, p)) {
				err_code_file(e, ERR_MALFORMED, 0, path,
					      "prefix '%.200s' %s '%.200s'", q,
					      !strcmp(p, q) ? "is listed twice, "
					      "as" : within(q, p) ? "is inside" :
					      "holds", p);
				goto out;
			}
		}
	}
	rc = 0;
out:
	if (rc < 0) {
		kpack_strings_free(*prefixes, *n);
		*prefixes = NULL;
		*n = 0;
	}
	io_in_close(&in);
	free(path);
	return rc;
}

int kpack_prefix_dir(const char *dir, const char *prefix, const char *path,
		     struct stat *st, struct err *e)
{
	const char *at = prefix;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), rc = -1;

	if (fd < 0)
		return err_sys(e, dir, errno);
	/* (bad_prefix let only names through: none empty, "." or "..") */
	for (;;) {
		const char *slash = strchr(at, '/');
		char *name = slash ? strndup(at, (size_t)(slash - at))
				   : strdup(at);
		int sub;

		if (!name) {
			err_nomem(e);
			break;
		}
		if (fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				rc = 0;
			else
				err_sys(e, path, errno);
			free(name);
			break;
		}
		if (S_ISLNK(st->st_mode)) {
			err_code_file(e, ERR_MALFORMED, 0, path, "is a prefix of "
				      "the artifact's manifest, and '%.*s' a "
				      "symbolic link, which is not followed",
				      (int)(slash ? slash - prefix
					    : (ptrdiff_t)strlen(prefix)),
				      prefix);
			free(name);
			break;
		}
		if (!S_ISDIR(st->st_mode)) {
			err_code_file(e, ERR_MALFORMED, 0, path, "is a prefix of "
				      "the artifact's manifest, and no "
				      "directory");
			free(name);
			break;
		}
		sub = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
		free(name);
		if (sub < 0 || fstat(sub, st) < 0) {
			err_sys(e, path, errno);
			if (sub >= 0)
				close(sub);
			break;
		}
		close(fd);
		fd = sub;
		if (!slash) {
			rc = 1;
			break;
		}
		at = slash + 1;
	}
	close(fd);
	return rc;
}

char *kpack_artifact_prefix(const char *name, bool *generic)
{
	const char *last = strrchr(name, '_');

	*generic = last && !strcmp(last + 1, "generic");
	if (!last || last == name || *generic)
		return NULL;
	return strndup(name, (size_t)(last - name));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kpack_batch_list(const char *dir, char ***names, size_t *n, size_t *seen,
		     struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *p = NULL;
	int rc = -1;

	*names = NULL;
	*n = *seen = 0;
	if (!d)
		return err_sys(e, dir, errno);
	while ((errno = 0, de = readdir(d))) {
		struct stat st;
		bool generic;
		char *ap;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		free(p);
		if (!(p = malloc(strlen(dir) + strlen(de->d_name) +
				 sizeof("/" KPACK_MANIFEST) + 1))) {
			err_nomem(e);
			goto out;
		}
		sprintf(p, "%s/%s", dir, de->d_name);
		if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		++*seen;
		strcat(p, "/" KPACK_MANIFEST);
		if (stat(p, &st) < 0 ||
		    !(ap = kpack_artifact_prefix(de->d_name, &generic)))
			continue;
		free(ap);
		if (push(names, n, strdup(de->d_name)) < 0) {
			err_nomem(e);
			goto out;
		}
	}
	if (errno) {
		err_sys(e, dir, errno);
		goto out;
	}
	if (*n)
		qsort(*names, *n, sizeof(**names), by_name);
	rc = 0;
out:
	if (rc < 0) {
		kpack_strings_free(*names, *n);
		*names = NULL;
		*n = 0;
	}
	free(p);
	closedir(d);
	return rc;
}
