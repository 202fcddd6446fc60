/* tree: the regular files under some paths, each inode once, walked and
 * reached again on directory descriptors; see tree.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "tree.h"

/* ---- what the walk keeps ---- */

/* A new record at the end of t's (NULL when out of memory). */
static struct err *new_err(struct tree *t)
{
	struct err *v = realloc(t->err, (t->nerr + 1) * sizeof(*v));

	if (!v)
		return NULL;
	t->err = v;
	return &v[t->nerr++];
}

static int add_err(struct tree *t, const char *path, int errnum)
{
	struct err *e = new_err(t);

	if (!e)
		return -1;
	err_sys(e, path, errnum);
	return 0;
}

/* A directory changed while it was walked (moved away): its path, the
 * rest of it not walked. */
static int add_changed(struct tree *t, const char *path)
{
	struct err *v = realloc(t->err, (t->nerr + 1) * sizeof(*v));

	if (!v)
		return -1;
	t->err = v;
	err_code_file(&v[t->nerr], ERR_CHANGED, 0, path, "changed while it "
		      "was walked");
	t->nerr++;
	return 0;
}

static int add_dir(struct tree *t, size_t parent, const char *name,
		   const struct stat *st)
{
	struct tree_dir *d;

	if (!grow_array((void **)&t->dir, &t->capdir, t->ndir,
			sizeof(*t->dir)))
		return -1;
	d = &t->dir[t->ndir];
	if (!(d->name = strdup(name)))
		return -1;
	d->parent = parent;
	d->dev = st->st_dev;
	d->ino = st->st_ino;
	d->depth = parent == TREE_ROOT ? 0 : t->dir[parent].depth + 1;
	t->ndir++;
	return 0;
}

static int set_link(struct tree_link *l, const char *path, size_t dir,
		    const char *name)
{
	l->dir = dir;
	l->path = strdup(path);
	l->name = strdup(name);
	return l->path && l->name ? 0 : -1;
}

static int add_file(struct tree *t, size_t dir, const char *name,
		    const char *path, const struct stat *st)
{
	struct tree_file *f;
	struct tree_link l;
	int rc;

	if (!grow_array((void **)&t->file, &t->cap, t->n, sizeof(*t->file)))
		return -1;
	f = &t->file[t->n];
	memset(f, 0, sizeof(*f));
	rc = set_link(&l, path, dir, name);
	f->path = l.path;
	f->dir = l.dir;
	f->name = l.name;
	t->n++;		/* (freed by tree_free either way) */
	if (rc < 0)
		return -1;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->nlink = st->st_nlink;
	f->size = (uint64_t)st->st_size;
	f->blocks = (uint64_t)st->st_blocks;
	return 0;
}

static int add_symlink(struct tree *t, size_t dir, const char *name,
		       const char *path)
{
	t->symlinks++;
	if (!t->keep_symlinks)
		return 0;
	if (!grow_array((void **)&t->symlink, &t->capsymlink, t->nsymlink,
			sizeof(*t->symlink)))
		return -1;
	memset(&t->symlink[t->nsymlink], 0, sizeof(*t->symlink));
	t->nsymlink++;
	return set_link(&t->symlink[t->nsymlink - 1], path, dir, name);
}

/* ---- the walk ---- */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the directory open as fd (for reading), sorted: 0, or
 * an errno (ENOMEM: out of memory). */
static int read_names(int fd, char ***out, size_t *nout)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;

	if (!d) {
		rc = errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return rc;
	}
	for (;;) {
		errno = 0;
		if (!(de = readdir(d))) {
			rc = errno;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!grow_array((void **)&names, &cap, n, sizeof(*names)) ||
		    !(names[n] = strdup(de->d_name))) {
			rc = ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc) {
		while (n)
			free(names[--n]);
		free(names);
		return rc;
	}
	if (n)	/* (qsort of no array: undefined) */
		qsort(names, n, sizeof(*names), by_name);
	*out = names;
	*nout = n;
	return 0;
}

/* A directory being walked: its names, the next one, and how long the
 * path is at it. */
struct frame {
	size_t dir;
	char **names;
	size_t n, next;
	size_t path_len;
};

struct walk {
	struct tree *t;
	struct frame *f;
	size_t nf, capf;
	char *path;		/* of the name being looked at */
	size_t len, cap;
};

/* The path: the directory's (len bytes of it), then name. */
static int set_path(struct walk *w, size_t len, const char *name)
{
	size_t n = strlen(name);
	bool slash = len && w->path[len - 1] != '/';

	if (len + n + 2 > w->cap) {
		size_t cap = 2 * (len + n + 2);
		char *p = realloc(w->path, cap);

		if (!p)
			return -1;
		w->path = p;
		w->cap = cap;
	}
	if (slash)
		w->path[len++] = '/';
	memcpy(w->path + len, name, n + 1);
	w->len = len + n;
	return 0;
}

static bool same_id(const struct stat *st, dev_t dev, ino_t ino)
{
	return st->st_dev == dev && st->st_ino == ino;
}

/* Whether a directory of that device and inode is dir or above it: a
 * loop (a bind mount of a directory inside itself), not walked again. */
static bool is_loop(const struct tree *t, size_t dir, const struct stat *st)
{
	for (; dir != TREE_ROOT; dir = t->dir[dir].parent)
		if (same_id(st, t->dir[dir].dev, t->dir[dir].ino))
			return true;
	return false;
}

static int reach(const struct tree *t, int from_fd, size_t from, size_t to);

/* Into directory frame (its names read): -1 when out of memory. */
static int push(struct walk *w, size_t dir, char **names, size_t n)
{
	struct frame *f;

	if (!grow_array((void **)&w->f, &w->capf, w->nf, sizeof(*w->f)))
		return -1;
	f = &w->f[w->nf++];
	f->dir = dir;
	f->names = names;
	f->n = n;
	f->next = 0;
	f->path_len = w->len;
	return 0;
}

static void pop(struct walk *w)
{
	struct frame *f = &w->f[--w->nf];

	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
}

/* One name of the directory open as fd (frame top): a file or link
 * noted, a directory entered (*fd then its).  -1 when out of memory. */
static int visit(struct walk *w, int *fd)
{
	struct tree *t = w->t;
	struct frame *top = &w->f[w->nf - 1];
	const char *name = top->names[top->next++];
	char **names;
	size_t n;
	struct stat st;
	int sub, rc;

	if (set_path(w, top->path_len, name) < 0)
		return -1;
	if (fstatat(*fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return add_err(t, w->path, errno);
	if (S_ISREG(st.st_mode))
		return add_file(t, top->dir, name, w->path, &st);
	if (S_ISLNK(st.st_mode))
		return add_symlink(t, top->dir, name, w->path);
	if (!S_ISDIR(st.st_mode)) {
		t->others++;
		return 0;
	}
	/* A directory: what is opened is what is walked, whatever the look
	 * above saw (never a link: O_NOFOLLOW). */
	sub = openat(*fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (sub < 0 && (errno == ELOOP || errno == ENOTDIR))
		return add_changed(t, w->path);
	if (sub < 0)
		return add_err(t, w->path, errno);
	if (fstat(sub, &st) < 0) {
		rc = add_err(t, w->path, errno);
		close(sub);
		return rc;
	}
	if (is_loop(t, top->dir, &st)) {
		close(sub);
		return 0;
	}
	if ((rc = read_names(sub, &names, &n)) != 0) {
		close(sub);
		return rc == ENOMEM ? -1 : add_err(t, w->path, rc);
	}
	if (add_dir(t, top->dir, name, &st) < 0 ||
	    push(w, t->ndir - 1, names, n) < 0) {
		while (n)
			free(names[--n]);
		free(names);
		close(sub);
		return -1;
	}
	close(*fd);
	*fd = sub;
	return 0;
}

/* Walk the directory open as fd (an operand, node root, at path). */
static int walk(struct tree *t, size_t root, int fd, const char *path)
{
	struct walk w = { .t = t };
	char **names;
	size_t n;
	int rc;

	if ((rc = read_names(fd, &names, &n)) != 0) {
		close(fd);
		return rc == ENOMEM ? -1 : add_err(t, path, rc);
	}
	if (set_path(&w, 0, path) < 0 || push(&w, root, names, n) < 0) {
		while (n)
			free(names[--n]);
		free(names);
		free(w.path);
		close(fd);
		return -1;
	}
	w.f[0].path_len = w.len;
	rc = 0;
	while (rc == 0 && w.nf) {
		struct frame *top = &w.f[w.nf - 1];
		size_t dir = top->dir;

		if (fd >= 0 && top->next < top->n) {
			rc = visit(&w, &fd);
			continue;
		}
		/* Done with it (or it cannot be reached): back up, by ".."
		 * if that is still the directory walked, else from the
		 * operand down. */
		pop(&w);
		if (!w.nf)
			break;
		top = &w.f[w.nf - 1];
		fd = reach(t, fd, dir, top->dir);
		if (fd < 0 && top->next < top->n) {
			w.path[top->path_len] = 0;
			rc = add_changed(t, w.path);
		}
	}
	while (w.nf)
		pop(&w);
	free(w.f);
	free(w.path);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* path's directory and last name, malloc'd ("." when it has no '/'). */
static int split(const char *path, char **dir, char **base)
{
	const char *slash = strrchr(path, '/');

	*dir = !slash ? strdup(".") : slash == path ? strdup("/")
		: strndup(path, (size_t)(slash - path));
	*base = strdup(slash ? slash + 1 : path);
	return *dir && *base ? 0 : -1;
}

/* The node of an operand's directory (opened by the name given, as a
 * directory it was found), one for operands of the same directory in a
 * row: -1 when out of memory. */
static int root_node(struct tree *t, const char *name, const struct stat *st)
{
	const struct tree_dir *last = t->ndir ? &t->dir[t->ndir - 1] : NULL;

	if (last && last->parent == TREE_ROOT && !strcmp(last->name, name) &&
	    same_id(st, last->dev, last->ino))
		return 0;
	return add_dir(t, TREE_ROOT, name, st);
}

/* A file named as an operand: found in its directory (the directory of
 * where a symbolic link leads, when it is one). */
static int add_operand_file(struct tree *t, const char *path,
			    const struct stat *st)
{
	struct stat lst, dst;
	char *real = NULL, *dir = NULL, *base = NULL;
	int rc = 0;

	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) &&
	    !(real = realpath(path, NULL)))
		return errno == ENOMEM ? -1 : add_err(t, path, errno);
	if (split(real ? real : path, &dir, &base) < 0)
		rc = -1;
	else if (stat(dir, &dst) < 0)
		rc = add_err(t, path, errno);
	else if (!S_ISDIR(dst.st_mode))
		rc = add_err(t, path, ENOTDIR);
	else if (root_node(t, dir, &dst) == 0)
		rc = add_file(t, t->ndir - 1, base, path, st);
	else
		rc = -1;
	free(real);
	free(dir);
	free(base);
	return rc;
}

int tree_add(struct tree *t, const char *path, bool recurse)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0) {
		int saved = errno;
		struct stat lst;

		/* A link to nothing is a link met, as in a directory. */
		if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
			char *dir, *base;
			int rc = -1;

			if (split(path, &dir, &base) < 0)
				rc = -1;
			else if (stat(dir, &st) < 0)
				rc = add_err(t, path, errno);
			else if (root_node(t, dir, &st) == 0)
				rc = add_symlink(t, t->ndir - 1, base, path);
			free(dir);
			free(base);
			return rc;
		}
		return add_err(t, path, saved);
	}
	if (S_ISREG(st.st_mode))
		return add_operand_file(t, path, &st);
	if (!S_ISDIR(st.st_mode)) {
		/* Named, not met: passed over in silence it would look like a
		 * file with nothing in it (a FIFO, a device, a socket). */
		struct err *e = new_err(t);

		if (!e)
			return -1;
		err_file(e, path, "not a regular file or directory");
		return 0;
	}
	if (!recurse)
		return add_err(t, path, EISDIR);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return add_err(t, path, errno);
	if (fstat(fd, &st) < 0) {
		int saved = errno;

		close(fd);
		return add_err(t, path, saved);
	}
	if (add_dir(t, TREE_ROOT, path, &st) < 0) {
		close(fd);
		return -1;
	}
	return walk(t, t->ndir - 1, fd, path);
}

/* ---- hard links ---- */

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

/* Whether two names are one: the same name in the same directory, met
 * by two walks (a tree named twice, or by a link to it). */
static bool same_name(const struct tree *t, size_t da, const char *a,
		      size_t db, const char *b)
{
	return t->dir[da].dev == t->dir[db].dev &&
	       t->dir[da].ino == t->dir[db].ino && !strcmp(a, b);
}

static bool has_name(const struct tree *t, const struct tree_file *f,
		     const struct tree_file *g)
{
	if (same_name(t, f->dir, f->name, g->dir, g->name))
		return true;
	for (size_t i = 0; i < f->nlinks; i++)
		if (same_name(t, f->links[i].dir, f->links[i].name, g->dir,
			      g->name))
			return true;
	return false;
}

static void free_link(struct tree_link *l)
{
	free(l->path);
	free(l->name);
	l->path = l->name = NULL;
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
	/* Each later name of an inode goes into its first's links, and its
	 * entry is marked (path NULL) to be dropped below. */
	for (i = 0; i < t->n; i = k) {
		struct tree_file *first = ix[i];

		for (k = i + 1; k < t->n && ix[k]->dev == first->dev &&
		     ix[k]->ino == first->ino; k++) {
			struct tree_file *g = ix[k];
			struct tree_link *v;

			if (has_name(t, first, g)) {
				free(g->path);
				free(g->name);
				g->path = g->name = NULL;
				continue;
			}
			v = realloc(first->links,
				    (first->nlinks + 1) * sizeof(*v));
			if (!v) {
				free(ix);
				return -1;
			}
			first->links = v;
			v[first->nlinks++] = (struct tree_link){ g->path, g->dir,
								 g->name };
			g->path = g->name = NULL;
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
		free(t->file[i].name);
		for (size_t k = 0; k < t->file[i].nlinks; k++)
			free_link(&t->file[i].links[k]);
		free(t->file[i].links);
	}
	free(t->file);
	for (size_t i = 0; i < t->ndir; i++)
		free(t->dir[i].name);
	free(t->dir);
	free(t->err);
	for (size_t i = 0; i < t->nsymlink; i++)
		free_link(&t->symlink[i]);
	free(t->symlink);
	memset(t, 0, sizeof(*t));
}

/* ---- reaching what was walked ---- */

/* fd checked to be directory d: fd, or -1 (closed) with errno ESTALE
 * when it is another. */
static int check(int fd, const struct tree_dir *d)
{
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
	    same_id(&st, d->dev, d->ino))
		return fd;
	close(fd);
	errno = ESTALE;
	return -1;
}

static int open_root(const struct tree_dir *d)
{
	return check(open(d->name, O_PATH | O_DIRECTORY | O_CLOEXEC), d);
}

static int step_down(int fd, const struct tree_dir *d)
{
	int sub = openat(fd, d->name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			 O_CLOEXEC);

	close(fd);
	return check(sub, d);
}

static int step_up(int fd, const struct tree_dir *d)
{
	int up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);

	close(fd);
	return check(up, d);
}

/* Directory to's descriptor from from_fd, directory from's (taken: it
 * is closed or returned), by ".." up to where their paths part and down
 * from there, when that is shorter than down from the operand; else
 * from the operand.  -1 with errno (ESTALE: not the directory walked). */
static int reach(const struct tree *t, int from_fd, size_t from, size_t to)
{
	const struct tree_dir *d = t->dir;
	size_t *down = malloc((d[to].depth + 1) * sizeof(*down));
	size_t a = from, b = to, up = 0, ndown = 0;
	int fd = -1;

	if (!down) {
		if (from_fd >= 0)
			close(from_fd);
		errno = ENOMEM;
		return -1;
	}
	if (from_fd >= 0) {
		while (d[a].depth > d[b].depth)
			a = d[a].parent, up++;
		while (d[b].depth > d[a].depth)
			down[ndown++] = b, b = d[b].parent;
		while (a != b && d[a].parent != TREE_ROOT) {
			a = d[a].parent, up++;
			down[ndown++] = b, b = d[b].parent;
		}
		if (a == b && up + ndown <= d[to].depth + 1) {
			fd = from_fd;
			for (size_t x = from; fd >= 0 && x != a; )
				x = d[x].parent, fd = step_up(fd, &d[x]);
			while (fd >= 0 && ndown)
				fd = step_down(fd, &d[down[--ndown]]);
		} else {
			close(from_fd);
		}
		if (fd >= 0) {
			free(down);
			return fd;
		}
	}
	/* From the operand: what moved is found again if it is back. */
	ndown = 0;
	for (b = to; d[b].parent != TREE_ROOT; b = d[b].parent)
		down[ndown++] = b;
	fd = open_root(&d[b]);
	while (fd >= 0 && ndown)
		fd = step_down(fd, &d[down[--ndown]]);
	free(down);
	return fd;
}

void tree_cursor_close(struct tree_cursor *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* The record for a failure to reach path: errno says which. */
static int reach_failed(struct err *e, const char *path, int errnum,
			bool dir)
{
	if (errnum == ESTALE || errnum == ELOOP || errnum == ENOTDIR)
		return err_code_file(e, ERR_CHANGED, 0, path, "%s changed "
				     "since it was walked", dir ? "a directory "
				     "on its path" : "it");
	if (errnum == ENOMEM)
		return err_nomem(e);
	return err_sys(e, path, errnum);
}

int tree_dir_fd(const struct tree *t, struct tree_cursor *c, size_t dir,
		const char *path, struct err *e)
{
	if (c->fd >= 0 && c->dir == dir)
		return c->fd;
	c->fd = reach(t, c->fd, c->fd >= 0 ? c->dir : dir, dir);
	c->dir = dir;
	if (c->fd < 0)
		return reach_failed(e, path, errno, true);
	return c->fd;
}

int tree_file_open(const struct tree *t, struct tree_cursor *c,
		   const struct tree_file *f, struct err *e)
{
	int dfd = tree_dir_fd(t, c, f->dir, f->path, e), fd;
	struct stat st;

	if (dfd < 0)
		return -1;
	/* Looked at first: a device put there is not even opened. */
	if (fstatat(dfd, f->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return err_sys(e, f->path, errno);
	if (!S_ISREG(st.st_mode) || !same_id(&st, f->dev, f->ino))
		return reach_failed(e, f->path, ESTALE, false);
	fd = openat(dfd, f->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0)
		return reach_failed(e, f->path, errno, false);
	if (fstat(fd, &st) < 0) {
		int saved = errno;

		close(fd);
		return err_sys(e, f->path, saved);
	}
	if (!S_ISREG(st.st_mode) || !same_id(&st, f->dev, f->ino)) {
		close(fd);
		return reach_failed(e, f->path, ESTALE, false);
	}
	return fd;
}
