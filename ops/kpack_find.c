/* kpack_find: a search path of a kpack-split host binary resolved to the
 * archives it finds (see kpack_find.h; rocm-kpack runtime/src/loader.cpp
 * resolves a path against the binary's directory and expands
 * "@GFXARCH@"). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kpack_find.h"
#include "../formats/kpack.h"

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct kpack_found *)a)->path,
		      ((const struct kpack_found *)b)->path);
}

/* The directory part of p ("." when none), malloc'd. */
static char *dir_of(const char *p)
{
	const char *slash = strrchr(p, '/');

	if (!slash)
		return strdup(".");
	return strndup(p, slash == p ? 1 : (size_t)(slash - p));
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s/%s", a, b);
	return s;
}

static int add(struct kpack_finds *f, size_t *cap, char *path, char *target)
{
	if (!path || !target)
		goto oom;
	if (f->n == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		struct kpack_found *v = realloc(f->v, c * sizeof(*v));

		if (!v)
			goto oom;
		f->v = v;
		*cap = c;
	}
	f->v[f->n++] = (struct kpack_found){ .path = path, .target = target };
	return 0;
oom:
	free(path);
	free(target);
	return -1;
}

void kpack_finds_free(struct kpack_finds *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].path);
		free(f->v[i].target);
	}
	free(f->v);
	free(f->full);
	free(f->dir);
	memset(f, 0, sizeof(*f));
}

int kpack_find(const char *host_path, const char *pattern,
	       struct kpack_finds *f, struct err *e)
{
	char *base_dir = NULL;
	const char *base;
	size_t cap = 0;
	DIR *d = NULL;
	struct dirent *de;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	if (!(base_dir = dir_of(host_path)))
		goto oom;
	f->full = pattern[0] == '/' ? strdup(pattern) : join(base_dir, pattern);
	if (!f->full || !(f->dir = dir_of(f->full)))
		goto oom;
	base = strrchr(f->full, '/') ? strrchr(f->full, '/') + 1 : f->full;
	if (!strstr(base, "@GFXARCH@")) {
		if (add(f, &cap, strdup(f->full), strdup("?")) < 0)
			goto oom;
		rc = 0;
		goto out;
	}
	if (!(d = opendir(f->dir))) {
		f->no_dir = true;
		rc = 0;
		goto out;
	}
	while ((de = readdir(d))) {
		char *target;

		if (!kpack_name_matches(base, de->d_name, &target))
			continue;
		if (add(f, &cap, join(f->dir, de->d_name), target) < 0)
			goto oom;
	}
	if (f->n)	/* (qsort of no array: undefined) */
		qsort(f->v, f->n, sizeof(*f->v), by_path);
	rc = 0;
	goto out;
oom:
	err_nomem(e);
out:
	if (d)
		closedir(d);
	free(base_dir);
	if (rc < 0)
		kpack_finds_free(f);
	return rc;
}

int kpack_archive_open(struct io_in *in, const char *path, struct err *e)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return err_sys(e, path, errno);
	if (S_ISDIR(st.st_mode))
		return err_sys(e, path, EISDIR);
	if (!S_ISREG(st.st_mode))
		return err_file(e, path, "not a regular file");
	return io_in_open(in, path, e);
}
