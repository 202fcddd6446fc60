/* kpack_find: a kpack-split host binary resolved to its archives (see
 * kpack_find.h; rocm-kpack runtime/src/loader.cpp resolves a search path
 * against the binary's directory and expands "@GFXARCH@"). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts.h"
#include "inspect_kpack.h"
#include "kpack_find.h"
#include "../core/elfscan.h"
#include "../core/io_at.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_ref(const void *pa, const void *pb)
{
	const struct kpack_find_ref *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
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

/* Add the archive path (taken) for target (taken; NULL: none) found by
 * search path sp, and open it: by path, or with dirfd >= 0 as name in
 * dirfd, a symbolic link not followed (an artifact's, kpack join). */
static int add_at(struct kpack_find *h, size_t sp, char *path, char *target,
		  int dirfd, const char *name)
{
	struct kpack_find_archive *a, *v;
	struct stat st;
	int fd = -1;

	v = realloc(h->a, (h->na + 1) * sizeof(*v));
	if (!v) {
		free(path);
		free(target);
		return -1;
	}
	h->a = v;
	a = &h->a[h->na++];
	memset(a, 0, sizeof(*a));
	a->search = sp;
	a->path = path;
	a->target = target;
	a->in.fd = -1;
	/* Only a file: a FIFO or a device of the name is not read (the
	 * search paths are the binary's to say, anything at all), nor
	 * waited on when one is put there after the look. */
	if (dirfd >= 0 && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode)) {
		err_code_file(&a->e, ERR_MALFORMED, 0, a->path, "is a symbolic "
			      "link, which is not followed out of the artifact");
		return 0;
	}
	if ((dirfd >= 0 ? fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)
	     : stat(a->path, &st)) < 0 ||
	    (S_ISREG(st.st_mode) &&
	     ((fd = dirfd >= 0 ? openat(dirfd, name, O_RDONLY | O_NONBLOCK |
					O_NOFOLLOW | O_CLOEXEC)
	       : open(a->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	      fstat(fd, &st) < 0))) {
		err_sys(&a->e, a->path, errno);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		err_file(&a->e, a->path, "not a regular file");
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (io_in_open_fd(&a->in, fd, a->path, &a->e) < 0)
		return 0;
	if (kpack_parse(a->in.data, a->in.len, &a->k, &a->e) < 0) {
		a->damaged = true;
		io_in_close(&a->in);
		return 0;
	}
	a->read = true;
	if (!(a->by_key = malloc((a->k.n ? a->k.n : 1) * sizeof(*a->by_key))))
		return -1;
	for (size_t i = 0; i < a->k.n; i++)
		a->by_key[i] = (struct kpack_find_ref){ a->k.v[i].key, i };
	if (a->k.n)	/* (qsort of no array: undefined) */
		qsort(a->by_key, a->k.n, sizeof(*a->by_key), cmp_ref);
	return 0;
}

static int add(struct kpack_find *h, size_t sp, char *path, char *target)
{
	return add_at(h, sp, path, target, -1, NULL);
}

size_t kpack_find_lookup(const struct kpack_find_archive *a,
			 const char *key, size_t *from)
{
	size_t lo = 0, hi = a->k.n, n = 0;

	while (lo < hi) {	/* the first not below key */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(a->by_key[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*from = lo;
	while (lo + n < a->k.n && !strcmp(a->by_key[lo + n].key, key))
		n++;
	return n;
}

/* The archives of search path sp in the directory dir, its pattern's
 * base name base; a directory that cannot be opened sets *no_dir. */
static int search_dir_at(struct kpack_find *h, size_t sp, const char *dir,
			 const char *base, bool *no_dir, int dirfd)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	DIR *d = NULL;
	struct dirent *de;
	int rc = -1, fd;

	/* (dirfd >= 0: the directory dir is, reached without a link) */
	if (dirfd >= 0 && (fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY |
				       O_CLOEXEC)) >= 0 && !(d = fdopendir(fd)))
		close(fd);
	if (dirfd < 0)
		d = opendir(dir);
	if (!d) {
		*no_dir = true;
		return 0;
	}
	while ((de = readdir(d))) {
		char *target;

		if (!kpack_name_matches(base, de->d_name, &target))
			continue;
		free(target);
		if (n == cap) {
			char **v = realloc(names, (cap = cap ? 2 * cap : 8) *
						  sizeof(*names));
			if (!v)
				goto out;
			names = v;
		}
		if (!(names[n] = strdup(de->d_name)))
			goto out;
		n++;
	}
	if (n)	/* (qsort of no array: undefined) */
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *target, *apath = join(dir, names[i]);

		if (!apath || !kpack_name_matches(base, names[i], &target)) {
			free(apath);
			goto out;
		}
		if (add_at(h, sp, apath, target, dirfd, names[i]) < 0)
			goto out;
	}
	rc = 0;
out:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int search_dir(struct kpack_find *h, size_t sp, const char *dir,
		      const char *base, bool *no_dir)
{
	return search_dir_at(h, sp, dir, base, no_dir, -1);
}

/* rel, a relative path, with "." and "name/.." taken out (in place);
 * false when a ".." would leave where it starts. */
static bool lexical(char *rel)
{
	char *w = rel, *r = rel;

	while (*r) {
		char *end = strchr(r, '/');
		size_t len = end ? (size_t)(end - r) : strlen(r);

		if (len == 0 || (len == 1 && r[0] == '.')) {
			/* nothing */
		} else if (len == 2 && r[0] == '.' && r[1] == '.') {
			if (w == rel)
				return false;
			w--;
			while (w > rel && w[-1] != '/')
				w--;
		} else {
			memmove(w, r, len);
			w += len;
			*w++ = '/';
		}
		r += len + (end != NULL);
	}
	if (w > rel)
		w--;
	*w = 0;
	return true;
}

/* Search path sp looked for, lexically, under the root of an artifact
 * that stands in for the binary's own tree (kpack join of artifacts). */
static int search_alt(struct kpack_find *h, size_t sp,
		      const struct kpack_find_alt *alt)
{
	const char *pattern = h->ref.paths[sp], *base;
	char *rel, *full = NULL, *dir = NULL;
	bool no_dir = false;
	int rc = -1, rootfd = -1, dirfd = -1;

	if (pattern[0] == '/')
		return 0;
	if (!(rel = join(alt->rel_dir, pattern)))
		return -1;
	if (!lexical(rel) || !*rel) {
		free(rel);
		return 0;
	}
	if (!(full = join(alt->root, rel)) || !(dir = dir_of(full)))
		goto out;
	base = strrchr(full, '/') + 1;
	/* Its directory under root, reached one name at a time, never
	 * through a symbolic link: nothing is read out of the artifact. */
	rc = 0;
	if ((rootfd = open(alt->root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (dirfd = io_at_walk(rootfd, rel, (size_t)(strrchr(rel, '/') ?
					 strrchr(rel, '/') - rel : 0))) < 0)
		goto out;
	if (!strstr(base, "@GFXARCH@")) {
		struct stat st;

		if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			rc = add_at(h, sp, full, NULL, dirfd, base);
			full = NULL;
		}
		goto out;
	}
	rc = search_dir_at(h, sp, dir, base, &no_dir, dirfd);
out:
	if (dirfd >= 0 && dirfd != rootfd)
		close(dirfd);
	if (rootfd >= 0)
		close(rootfd);
	free(rel);
	free(full);
	free(dir);
	return rc;
}

/* Every archive search path sp finds. */
static int search(struct kpack_find *h, size_t sp)
{
	const char *pattern = h->ref.paths[sp], *base;
	char *full = NULL, *base_dir = NULL;
	int rc = -1;

	if (!(base_dir = dir_of(h->path)))
		goto out;
	full = pattern[0] == '/' ? strdup(pattern) : join(base_dir, pattern);
	if (!full || !(h->dir[sp] = dir_of(full)))
		goto out;
	base = strrchr(full, '/') ? strrchr(full, '/') + 1 : full;
	if (!strstr(base, "@GFXARCH@")) {
		/* A path with no placeholder is one archive. */
		rc = add(h, sp, full, NULL);
		full = NULL;
		goto out;
	}
	rc = search_dir(h, sp, h->dir[sp], base, &h->no_dir[sp]);
	for (size_t i = 0; rc == 0 && i < h->nalt; i++)
		rc = search_alt(h, sp, &h->alt[i]);
out:
	free(full);
	free(base_dir);
	return rc;
}

int kpack_find_archives(struct kpack_find *h, struct err *e)
{
	h->no_dir = calloc(h->ref.npaths + 1, sizeof(*h->no_dir));
	h->dir = calloc(h->ref.npaths + 1, sizeof(*h->dir));
	if (!h->no_dir || !h->dir)
		return err_nomem(e);
	for (size_t i = 0; i < h->ref.npaths; i++)
		if (search(h, i) < 0)
			return err_nomem(e);
	return 0;
}

int kpack_find_open(struct kpack_find *h, const char *path,
		    const uint8_t *buf, size_t len, struct err *e)
{
	const struct elfscan_section *ref, *seg;
	struct elfscan s;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	h->path = path;
	if (!hosts_is(buf, len, HOST_ELF))
		return 0;
	/* The walk says what is wrong with the file; out of memory is the
	 * caller's own failure. */
	if (elfscan_open(&s, buf, len, e) < 0)
		return e->code == ERR_NOMEM ? -1 : 0;
	ref = elfscan_find(&s, SECTION_KPACK_REF);
	seg = elfscan_find(&s, SECTION_HIP_WRAPPERS);
	if (!ref) {
		rc = 0;
		goto out;
	}
	if (ref->offset > len || ref->size > len - ref->offset) {
		err_code_set(e, ERR_TRUNCATED, ".rocm_kpack_ref runs past the "
			     "end of the file");
		goto out;
	}
	if (kpack_ref_parse(buf + ref->offset, (size_t)ref->size, &h->ref,
			    e) < 0)
		goto out;
	if (seg && (seg->offset > len || seg->size > len - seg->offset)) {
		err_code_set(e, ERR_TRUNCATED, ".hipFatBinSegment runs past "
			     "the end of the file");
		goto out;
	}
	if (seg && kpack_wrappers(buf + seg->offset, seg->size, s.is64,
				  s.big_endian, &h->index, &h->nhipk,
				  &h->nhipf, e) < 0)
		goto out;
	if (kpack_find_archives(h, e) < 0)
		goto out;
	rc = 1;
out:
	elfscan_free(&s);
	return rc;
}

void kpack_find_close(struct kpack_find *h)
{
	for (size_t i = 0; i < h->na; i++) {
		struct kpack_find_archive *a = &h->a[i];

		if (a->read) {
			kpack_free(&a->k);
			io_in_close(&a->in);
		}
		free(a->by_key);
		free(a->path);
		free(a->target);
	}
	for (size_t i = 0; h->dir && i < h->ref.npaths; i++)
		free(h->dir[i]);
	free(h->dir);
	free(h->a);
	free(h->no_dir);
	free(h->index);
	kpack_ref_free(&h->ref);
	memset(h, 0, sizeof(*h));
}

void kpack_find_key(const struct kpack_find *h, size_t w, char *key,
		    size_t cap)
{
	snprintf(key, cap, "%s#%" PRIu64, h->ref.kernel_name, h->index[w]);
}

int kpack_find_entry(const struct kpack_find_archive *a, size_t i,
		     bool inflate, const struct ccob_limits *lim,
		     struct inspect_node *n, uint8_t **code, struct err *e)
{
	struct inspect_node c = {
		.kind = INSPECT_CONTAINER, .container = FATBIN_KPACK,
		.in_file = true, .size = a->in.len, .version = a->k.version,
		.kpack_scheme = a->k.scheme, .entries = a->k.n,
	};

	return inspect_kpack_entry(&a->k, a->in.data, a->in.len, i, &c,
				   inflate, lim, n, code, e);
}
