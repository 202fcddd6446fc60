/* prune_tree: prune -r, every file under some directories, each pruned as
 * --in-place prunes one, by a few worker processes at once; the files
 * found by core/tree.h.  The workers only write: each pruned file is
 * left as a temporary beside it, and the parent puts them all in place
 * at the end, hard links and removals with them, all or none
 * (core/io_commit.h), each directory reached again through the tree
 * (no descriptor held per file).  A file that cannot be pruned for what
 * it holds is said and left; a failure to write, a worker lost or a
 * signal leaves the whole tree as it was. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "messages.h"
#include "prune_file.h"
#include "prune_tree.h"
#include "progress.h"
#include "../core/io_at.h"
#include "../core/io_commit.h"
#include "../core/io_signal.h"
#include "../core/tree.h"

#define fail(what, file, ...) applet_fail("prune", what, file, __VA_ARGS__)

/* ---- directories held ---- */

/* The first directories of the tree held open by the parent from the
 * walk to the end (a few, as the limit on descriptors allows): what is
 * ours in them is removed or put back even when another moves one out
 * of the tree meanwhile.  Beyond them, each is reached again through
 * the tree, and one moved away keeps what we wrote in it. */
static struct {
	int fd[IO_COMMIT_HELD];
	size_t dir[IO_COMMIT_HELD];
	size_t n;
} held;

static void hold_dirs(const struct tree *t)
{
	struct tree_cursor cursor = TREE_CURSOR_INIT;
	struct rlimit lim;
	size_t cap = IO_COMMIT_HELD;
	struct err e;

	/* An eighth of the descriptors at most: the workers and the
	 * commit need theirs (prune -r works with ulimit -n 8). */
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur / 8 < cap)
		cap = (size_t)(lim.rlim_cur / 8);
	for (size_t i = 0; i < t->ndir && held.n < cap; i++) {
		int fd = tree_dir_fd(t, &cursor, i, "", &e);

		if (fd >= 0 && (fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) >= 0) {
			held.dir[held.n] = i;
			held.fd[held.n++] = fd;
		}
	}
	tree_cursor_close(&cursor);
}

static int held_for(size_t dir)
{
	for (size_t i = 0; i < held.n; i++)
		if (held.dir[i] == dir)
			return held.fd[i];
	return -1;
}

static void release_dirs(void)
{
	for (size_t i = 0; i < held.n; i++)
		close(held.fd[i]);
	held.n = 0;
}

/* ---- workers ---- */

/* What a worker sends back for each file: this, then its standard output
 * and standard error, out_len and err_len bytes. */
struct record {
	size_t index;
	int rc;
	struct prune_result res;
	size_t out_len, err_len;
};

struct done {
	bool done;
	int rc;
	struct prune_result res;
	char *out, *err;
	size_t out_len, err_len;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Send what fd (a memfd standing for stdout or stderr) got. */
static int send_captured(int pipe_fd, int fd, size_t len)
{
	char buf[65536];
	off_t off = 0;

	while ((size_t)off < len) {
		size_t want = len - (size_t)off < sizeof(buf) ?
			      len - (size_t)off : sizeof(buf);
		ssize_t n = pread(fd, buf, want, off);

		if (n <= 0 || write_all(pipe_fd, buf, (size_t)n) < 0)
			return -1;
		off += n;
	}
	return 0;
}

/* A worker: takes the next file while there is one, its messages caught
 * in memfds standing for stdout and stderr and sent with its record. */
static void worker(struct options *o, const struct tree *t, size_t *next,
		   int pipe_fd)
{
	int out = memfd_create("prune-out", 0), err = memfd_create("prune-err", 0);
	struct tree_cursor cursor = TREE_CURSOR_INIT;
	sigset_t was;

	/* The parent gone (killed alone), no file more: the signal takes
	 * the one being written with it, its temporary removed. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	io_signal_defer(NULL);
	release_dirs();		/* the parent's */
	progress_init("prune", true);
	if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(3);
	/* Read back through 1 and 2: two descriptors fewer (prune -r works
	 * with `ulimit -n 8`). */
	close(out);
	close(err);
	out = 1;
	err = 2;
	setvbuf(stderr, NULL, _IOFBF, 4096);
	pthread_sigmask(SIG_SETMASK, NULL, &was);
	for (;;) {
		size_t i = __atomic_fetch_add(next, 1, __ATOMIC_SEQ_CST);
		struct record r = { .index = i };

		if (i >= t->n)
			break;
		if (ftruncate(out, 0) < 0 || ftruncate(err, 0) < 0 ||
		    lseek(out, 0, SEEK_SET) < 0 || lseek(err, 0, SEEK_SET) < 0)
			_exit(3);
		o->tree = t;
		o->walked = &t->file[i];
		o->cursor = &cursor;
		r.res.action = PRUNE_FAILED;
		r.rc = prune_one(o, t->file[i].path, &r.res);
		if (r.rc && r.res.action != PRUNE_FAILED)
			r.res.action = PRUNE_FAILED;
		fflush(stdout);
		fflush(stderr);
		r.out_len = (size_t)lseek(out, 0, SEEK_CUR);
		r.err_len = (size_t)lseek(err, 0, SEEK_CUR);
		if (write_all(pipe_fd, &r, sizeof(r)) < 0 ||
		    send_captured(pipe_fd, out, r.out_len) < 0 ||
		    send_captured(pipe_fd, err, r.err_len) < 0)
			_exit(3);
		/* The temporary kept is the parent's now (prune_one held
		 * signals off from before it left our table). */
		pthread_sigmask(SIG_SETMASK, &was, NULL);
	}
	_exit(0);
}

/* 1: a record; 0: the worker is done; -1: it is not as it should be. */
static int receive(int fd, struct done *d, size_t n)
{
	struct record r;
	struct done *x;
	ssize_t got;

	do
		got = read(fd, &r, sizeof(r));
	while (got < 0 && errno == EINTR);
	if (got == 0)
		return 0;
	if (got < 0 || read_all(fd, (char *)&r + got, sizeof(r) - (size_t)got) < 0 ||
	    r.index >= n)
		return -1;
	x = &d[r.index];
	x->rc = r.rc;
	x->res = r.res;
	x->out_len = r.out_len;
	x->err_len = r.err_len;
	if (!(x->out = malloc(r.out_len + 1)) ||
	    !(x->err = malloc(r.err_len + 1)) ||
	    read_all(fd, x->out, r.out_len) < 0 ||
	    read_all(fd, x->err, r.err_len) < 0)
		return -1;
	x->done = true;
	return 1;
}

struct totals {
	uint64_t files, pruned, removed, left, skipped, failed;
	uint64_t before, after;
};

/* The files done, in walk order, as far as they are done. */
static void print_done(struct options *o, struct done *d, size_t n,
		       size_t *shown, struct totals *t)
{
	while (*shown < n && d[*shown].done) {
		struct done *x = &d[(*shown)++];

		progress_end();
		if (o->verbose || o->dry_run)
			fwrite(x->out, 1, x->out_len, stdout);
		fflush(stdout);
		fwrite(x->err, 1, x->err_len, stderr);
		t->before += x->res.before;
		t->after += x->res.action == PRUNE_FAILED ? x->res.before
							  : x->res.after;
		switch (x->res.action) {
		case PRUNE_FAILED: t->failed++; break;
		case PRUNE_PRUNED: t->pruned++; break;
		case PRUNE_REMOVED: t->removed++; break;
		case PRUNE_LEFT: t->left++; break;
		case PRUNE_SKIPPED: t->skipped++; break;
		}
		free(x->out);
		free(x->err);
		x->out = x->err = NULL;
	}
}

/* A deadly signal to the parent while the workers run: noted
 * (core/io_signal.h), the workers stopped, their temporaries removed,
 * then the signal acted on. */
static volatile sig_atomic_t signalled;

/* The line counts files: "offload prune: DIR: 40%".  d: a record per
 * file, the caller's. */
static int run_workers(struct options *o, const struct tree *t,
		       const char *label, struct totals *tot, struct done *d)
{
	unsigned nw = o->jobs < t->n ? o->jobs : (unsigned)t->n;
	size_t *next = mmap(NULL, sizeof(*next), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct pollfd *pf = calloc(nw ? nw : 1, sizeof(*pf));
	pid_t *pid = calloc(nw ? nw : 1, sizeof(*pid));
	size_t shown = 0, got = 0;
	unsigned open_pipes = 0;
	bool stopped = false;
	int rc = 0;

	if (next == MAP_FAILED || !pf || !pid) {
		rc = fail("cannot prune", label, "out of memory");
		goto out;
	}
	*next = 0;
	/* The CPUs the workers leave: a lone big file gets them all. */
	o->threads = nw ? o->jobs / nw : 1;
	progress_name(label);
	fflush(stdout);
	fflush(stderr);
	for (unsigned k = 0; k < nw; k++) {
		int p[2] = { -1, -1 };

		if (pipe2(p, O_CLOEXEC) < 0 || (pid[k] = fork()) < 0) {
			rc = fail("cannot prune", label, "%s", strerror(errno));
			if (p[0] >= 0) {
				close(p[0]);
				close(p[1]);
			}
			pid[k] = 0;
			nw = k;		/* the workers started do it all */
			break;
		}
		if (pid[k] == 0) {
			close(p[0]);
			for (unsigned j = 0; j < k; j++)
				close(pf[j].fd);
			worker(o, t, next, p[1]);
		}
		close(p[1]);
		pf[k].fd = p[0];
		pf[k].events = POLLIN;
		open_pipes++;
	}
	while (open_pipes) {
		if (signalled && !stopped) {
			/* Each removes the temporary it is writing; what they
			 * sent is read to the end, for its temporaries. */
			for (unsigned k = 0; k < nw; k++)
				if (pid[k] > 0)
					kill(pid[k], SIGTERM);
			stopped = true;
		}
		if (poll(pf, nw, 250) < 0 && errno != EINTR)
			break;
		for (unsigned k = 0; k < nw; k++) {
			int got_one;

			if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP)))
				continue;
			if ((got_one = receive(pf[k].fd, d, t->n)) <= 0) {
				/* The end, or a worker gone astray. */
				close(pf[k].fd);
				pf[k].fd = -1;
				open_pipes--;
				continue;
			}
			got++;
		}
		print_done(o, d, t->n, &shown, tot);
		progress_show(got, t->n);
	}
	for (unsigned k = 0; k < nw; k++) {
		int status;

		if (pid[k] > 0 && (waitpid(pid[k], &status, 0) < 0 ||
				   !WIFEXITED(status) || WEXITSTATUS(status)))
			rc = 1;
	}
	progress_show(t->n, t->n);
	progress_end();
	/* A worker that died took its file with it, and those it had not
	 * taken yet if none was left. */
	while (print_done(o, d, t->n, &shown, tot), shown < t->n &&
	       !signalled) {
		rc = fail("cannot prune", t->file[shown].path, "%s",
			  nw ? "its worker stopped" : "no worker started");
		tot->before += t->file[shown].size;
		tot->after += t->file[shown].size;
		tot->failed++;
		shown++;
	}
out:
	for (size_t i = 0; i < t->n; i++) {
		free(d[i].out);
		free(d[i].err);
		d[i].out = d[i].err = NULL;
	}
	free(pf);
	free(pid);
	if (next != MAP_FAILED)
		munmap(next, sizeof(*next));
	return rc;
}

/* ---- the commit ---- */

/* How io_commit_all reaches a directory of the tree again: the one
 * cursor, through the directories walked. */
struct reach {
	const struct tree *t;
	struct tree_cursor cursor;
};

static int reach_dir(void *ctx, size_t dir)
{
	struct reach *r = ctx;
	struct err e;
	int fd = tree_dir_fd(r->t, &r->cursor, dir, "", &e);

	if (fd < 0)
		errno = e.code == ERR_CHANGED ? ESTALE : e.errnum;
	return fd;
}

/* A name of file f: its first (i 0), or one of its other links. */
static struct tree_link name_of(const struct tree_file *f, size_t i)
{
	if (i)
		return f->links[i - 1];
	return (struct tree_link){ f->path, f->dir, f->name };
}

/* What the commit does, one row a name: the file's temporary over its
 * first name, a link of it made beside each other name (kept in
 * link_tmp) over that name; or, for a file removed, each name. */
struct plan {
	struct io_commit *c;
	size_t n, cap;
	char (*link_tmp)[300];	/* one per row, "" when none */
};

static int add_row(struct plan *p, const struct io_commit *row)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct io_commit *c = realloc(p->c, cap * sizeof(*c));
		char (*l)[300];

		if (!c)
			return -1;
		p->c = c;
		if (!(l = realloc(p->link_tmp, cap * sizeof(*l))))
			return -1;
		p->link_tmp = l;
		p->cap = cap;
	}
	p->link_tmp[p->n][0] = 0;
	p->c[p->n++] = *row;
	return 0;
}

/* Link the temporary tmp of file f (in f's directory) as a temporary
 * beside its other name l, in buf: 0, or -1 with e filled. */
static int stage_link(struct reach *r, struct tree_cursor *from,
		      const struct tree_file *f, const struct done *x,
		      const struct tree_link *l, char *buf, size_t size,
		      struct err *e)
{
	int src = tree_dir_fd(r->t, from, f->dir, f->path, e), dst;
	struct stat st;

	if (src < 0 || (dst = tree_dir_fd(r->t, &r->cursor, l->dir, l->path,
					  e)) < 0)
		return -1;
	io_at_temp_name(buf, size, l->name, "link");
	if (linkat(src, x->res.tmp, dst, buf, 0) < 0) {
		int saved = errno;

		buf[0] = 0;
		return err_sys(e, l->path, saved);
	}
	if (fstatat(dst, buf, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != x->res.tmp_dev || st.st_ino != x->res.tmp_ino)
		return err_code_file(e, ERR_CHANGED, 0, l->path, "a directory "
				     "on its path changed since it was walked");
	return 0;
}

/* The temporary of file f still the file its worker wrote: 0, or -1
 * with e filled. */
static int check_tmp(struct reach *r, const struct tree_file *f,
		     const struct done *x, struct err *e)
{
	int fd = tree_dir_fd(r->t, &r->cursor, f->dir, f->path, e);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstatat(fd, x->res.tmp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != x->res.tmp_dev || st.st_ino != x->res.tmp_ino)
		return err_code_file(e, ERR_CHANGED, 0, f->path, "its new "
				     "file was changed by another: not "
				     "replaced");
	return 0;
}

/* Every change the workers made ready put in place, all or none.
 * Signals are held off throughout.  0, or -1 with e naming the file
 * that failed (none of it done then, every temporary gone). */
static int commit_tree(const struct tree *t, struct done *d, struct err *e)
{
	struct reach r = { .t = t, .cursor = TREE_CURSOR_INIT };
	struct tree_cursor from = TREE_CURSOR_INIT;
	struct plan p = { 0 };
	int rc = 0;

	for (size_t i = 0; i < t->n && rc == 0; i++) {
		const struct tree_file *f = &t->file[i];
		const struct done *x = &d[i];
		bool removed = x->res.action == PRUNE_REMOVED;

		if (!removed && !x->res.tmp[0])
			continue;
		for (size_t k = 0; k <= f->nlinks && rc == 0; k++) {
			struct tree_link l = name_of(f, k);
			struct io_commit row = {
				.dirfd = -1, .reach_dir = reach_dir, .ctx = &r,
				.dir = l.dir, .dest = l.name, .path = l.path,
				.expect = true, .dev = f->dev, .ino = f->ino,
				.held = held_for(l.dir),
			};

			if (!removed)
				row.tmp = x->res.tmp;
			if (add_row(&p, &row) < 0) {
				rc = err_nomem(e);
				break;
			}
			if (removed)
				continue;
			if (k == 0) {
				rc = check_tmp(&r, f, x, e);
				continue;
			}
			/* A link of the new file beside the other name. */
			rc = stage_link(&r, &from, f, x, &l, p.link_tmp[p.n - 1],
					sizeof(p.link_tmp[0]), e);
		}
	}
	/* (the rows point into link_tmp only now that it moves no more) */
	for (size_t i = 0; i < p.n; i++)
		if (p.link_tmp[i][0])
			p.c[i].tmp = p.link_tmp[i];
	if (rc == 0)
		rc = io_commit_all(p.c, p.n, e);
	else
		/* Undone before anything was put in place: the links made. */
		for (size_t i = 0; i < p.n; i++) {
			int fd;

			if (p.link_tmp[i][0] && ((fd = p.c[i].held) >= 0 ||
			    (fd = reach_dir(&r, p.c[i].dir)) >= 0))
				unlinkat(fd, p.link_tmp[i], 0);
		}
	tree_cursor_close(&from);
	tree_cursor_close(&r.cursor);
	free(p.c);
	free(p.link_tmp);
	return rc;
}

/* The workers' temporaries removed: the tree as it was. */
static void discard_tree(const struct tree *t, struct done *d)
{
	struct tree_cursor cursor = TREE_CURSOR_INIT;

	for (size_t i = 0; i < t->n; i++) {
		const struct done *x = &d[i];
		struct err e;
		int fd;

		if (!x->res.tmp[0])
			continue;
		if ((fd = held_for(t->file[i].dir)) < 0 &&
		    (fd = tree_dir_fd(t, &cursor, t->file[i].dir, "", &e)) < 0)
			continue;
		/* The name is ours, whatever another put there since (as
		 * io_commit_all removes its temporaries' names). */
		unlinkat(fd, x->res.tmp, 0);
	}
	tree_cursor_close(&cursor);
}

int prune_tree(struct options *o, char **paths, int n)
{
	struct tree t = { 0 };
	struct totals tot = { 0 };
	struct done *d = NULL;
	sigset_t all, was;
	bool lost = false;
	struct err e;
	int rc = 0, wrc;

	for (int i = 0; i < n; i++)
		if (tree_add(&t, paths[i], true) < 0)
			goto oom;
	if (tree_links(&t) < 0 || !(d = calloc(t.n ? t.n : 1, sizeof(*d))))
		goto oom;
	for (size_t i = 0; i < t.nerr; i++)
		rc = applet_fail_err("prune", "cannot read", t.err[i].path, 0,
				     &t.err[i]);
	o->report = stdout;
	if (!o->dry_run)
		hold_dirs(&t);
	io_signal_defer(&signalled);
	wrc = run_workers(o, &t, paths[0], &tot, d);
	rc |= wrc;
	/* All or none: a worker lost or a file not written is none. */
	lost = wrc != 0 || signalled;
	for (size_t i = 0; i < t.n && !lost; i++)
		lost = d[i].res.write_failed;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	io_signal_defer(NULL);
	if (!lost && !o->dry_run && commit_tree(&t, d, &e) < 0) {
		rc = applet_fail_io("prune", e.path[0] ? e.path : paths[0], &e);
		lost = true;
	}
	if (lost)
		discard_tree(&t, d);
	if (signalled)
		io_signal_die(signalled);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	/* The lines said what failed; the counts say that nothing was
	 * replaced. */
	if (lost && tot.pruned + tot.removed) {
		rc = 1;
		tot.failed += tot.pruned + tot.removed;
		tot.pruned = tot.removed = 0;
		tot.after = tot.before;
	}
	tot.files = t.n;
	printf("prune: %" PRIu64 " file%s: %" PRIu64 " %spruned, %" PRIu64
	       " %sremoved, %" PRIu64 " left with code of dropped GPUs "
	       "alone, %" PRIu64 " with nothing to drop, %" PRIu64
	       " failed; %" PRIu64 " -> %" PRIu64 " bytes\n", tot.files,
	       tot.files == 1 ? "" : "s", tot.pruned,
	       o->dry_run ? "would be " : "", tot.removed,
	       o->dry_run ? "would be " : "", tot.left, tot.skipped,
	       tot.failed, tot.before, tot.after);
	release_dirs();
	free(d);
	tree_free(&t);
	return rc || tot.failed ? 1 : 0;
oom:
	free(d);
	tree_free(&t);
	return fail("cannot prune", paths[0], "out of memory");
}
