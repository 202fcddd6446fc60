/* tree: the regular files under some paths, each inode once; see tree.h. */
#include <errno.h>
#include <fts.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tree.h"

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

static int add_err(struct tree *t, const char *path, int errnum)
{
	struct err *v = realloc(t->err, (t->nerr + 1) * sizeof(*v));

	if (!v)
		return -1;
	t->err = v;
	err_sys(&v[t->nerr], path, errnum);
	t->nerr++;
	return 0;
}

static int add_file(struct tree *t, const FTSENT *f)
{
	struct tree_file *tf;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct tree_file *v = realloc(t->file, cap * sizeof(*v));

		if (!v)
			return -1;
		t->file = v;
		t->cap = cap;
	}
	tf = &t->file[t->n];
	memset(tf, 0, sizeof(*tf));
	if (!(tf->path = strdup(f->fts_path)))
		return -1;
	tf->dev = f->fts_statp->st_dev;
	tf->ino = f->fts_statp->st_ino;
	tf->nlink = f->fts_statp->st_nlink;
	tf->size = (uint64_t)f->fts_statp->st_size;
	tf->blocks = (uint64_t)f->fts_statp->st_blocks;
	t->n++;
	return 0;
}

static int add_symlink(struct tree *t, const char *path)
{
	char **v = realloc(t->symlink, (t->nsymlink + 1) * sizeof(*v));

	if (!v)
		return -1;
	t->symlink = v;
	if (!(v[t->nsymlink] = strdup(path)))
		return -1;
	t->nsymlink++;
	return 0;
}

int tree_add(struct tree *t, const char *path, bool recurse)
{
	char *argv[2] = { (char *)path, NULL };
	FTS *fts = fts_open(argv, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR,
			    by_name);
	FTSENT *f;
	int rc = 0;

	if (!fts)
		return errno == ENOMEM ? -1 : add_err(t, path, errno);
	while (rc == 0 && (f = fts_read(fts))) {
		switch (f->fts_info) {
		case FTS_D:
			if (!recurse) {
				rc = add_err(t, f->fts_path, EISDIR);
				fts_set(fts, f, FTS_SKIP);
			}
			break;
		case FTS_F:
			rc = add_file(t, f);
			break;
		case FTS_SL:
		case FTS_SLNONE:
			t->symlinks++;
			if (t->keep_symlinks)
				rc = add_symlink(t, f->fts_path);
			break;
		case FTS_DNR:
		case FTS_ERR:
		case FTS_NS:
			rc = add_err(t, f->fts_path, f->fts_errno);
			break;
		case FTS_DEFAULT:
			t->others++;
			break;
		default:	/* FTS_DP, FTS_DC, FTS_DOT, FTS_NSOK */
			break;
		}
	}
	if (rc == 0 && !f && errno == ENOMEM)
		rc = -1;
	fts_close(fts);
	return rc;
}

static int by_inode(const void *pa, const void *pb)
{
	const struct tree_file *a = *(struct tree_file *const *)pa;
	const struct tree_file *b = *(struct tree_file *const *)pb;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a < b ? -1 : a > b;	/* walk order */
}

static bool has_path(const struct tree_file *f, const char *path)
{
	if (!strcmp(f->path, path))
		return true;
	for (size_t i = 0; i < f->nlinks; i++)
		if (!strcmp(f->links[i], path))
			return true;
	return false;
}

int tree_links(struct tree *t)
{
	struct tree_file **ix;
	size_t i, k, out;

	if (t->n < 2)
		return 0;
	if (!(ix = malloc(t->n * sizeof(*ix))))
		return -1;
	for (i = 0; i < t->n; i++)
		ix[i] = &t->file[i];
	qsort(ix, t->n, sizeof(*ix), by_inode);
	/* Each later path of an inode goes into its first's links, and its
	 * entry is marked (path NULL) to be dropped below. */
	for (i = 0; i < t->n; i = k) {
		struct tree_file *first = ix[i];

		for (k = i + 1; k < t->n && ix[k]->dev == first->dev &&
		     ix[k]->ino == first->ino; k++) {
			char **v;

			if (has_path(first, ix[k]->path)) {
				free(ix[k]->path);
				ix[k]->path = NULL;
				continue;
			}
			v = realloc(first->links,
				    (first->nlinks + 1) * sizeof(*v));
			if (!v) {
				free(ix);
				return -1;
			}
			first->links = v;
			first->links[first->nlinks++] = ix[k]->path;
			ix[k]->path = NULL;
		}
	}
	free(ix);
	for (i = out = 0; i < t->n; i++)
		if (t->file[i].path)
			t->file[out++] = t->file[i];
	t->n = out;
	return 0;
}

void tree_free(struct tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->file[i].path);
		for (size_t k = 0; k < t->file[i].nlinks; k++)
			free(t->file[i].links[k]);
		free(t->file[i].links);
	}
	free(t->file);
	free(t->err);
	for (size_t i = 0; i < t->nsymlink; i++)
		free(t->symlink[i]);
	free(t->symlink);
	memset(t, 0, sizeof(*t));
}
