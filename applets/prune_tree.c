/* prune_tree: prune -r, every file under some directories, each pruned as
 * --in-place prunes one, by a few worker processes at once; the files
 * found by core/tree.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "messages.h"
#include "prune_file.h"
#include "prune_tree.h"
#include "progress.h"
#include "../core/tree.h"

#define fail(what, file, ...) applet_fail("prune", what, file, __VA_ARGS__)

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

	/* The parent gone (killed alone), no file more: the signal takes
	 * the one being written with it, its temporary removed. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
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

/* The line counts files: "offload prune: DIR: 40%". */
static int run_workers(struct options *o, const struct tree *t,
		       const char *label, struct totals *tot)
{
	unsigned nw = o->jobs < t->n ? o->jobs : (unsigned)t->n;
	size_t *next = mmap(NULL, sizeof(*next), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct pollfd *pf = calloc(nw ? nw : 1, sizeof(*pf));
	pid_t *pid = calloc(nw ? nw : 1, sizeof(*pid));
	struct done *d = calloc(t->n ? t->n : 1, sizeof(*d));
	size_t shown = 0, got = 0;
	unsigned open_pipes = 0;
	int rc = 0;

	if (next == MAP_FAILED || !pf || !pid || !d) {
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
	while (print_done(o, d, t->n, &shown, tot), shown < t->n) {
		rc = fail("cannot prune", t->file[shown].path, "%s",
			  nw ? "its worker stopped" : "no worker started");
		tot->before += t->file[shown].size;
		tot->after += t->file[shown].size;
		tot->failed++;
		shown++;
	}
out:
	if (d)
		for (size_t i = 0; i < t->n; i++) {
			free(d[i].out);
			free(d[i].err);
		}
	free(d);
	free(pf);
	free(pid);
	if (next != MAP_FAILED)
		munmap(next, sizeof(*next));
	return rc;
}

int prune_tree(struct options *o, char **paths, int n)
{
	struct tree t = { 0 };
	struct totals tot = { 0 };
	int rc = 0;

	for (int i = 0; i < n; i++)
		if (tree_add(&t, paths[i], true) < 0)
			goto oom;
	if (tree_links(&t) < 0)
		goto oom;
	for (size_t i = 0; i < t.nerr; i++)
		rc = applet_fail_err("prune", "cannot read", t.err[i].path, 0,
				     &t.err[i]);
	o->report = stdout;
	rc |= run_workers(o, &t, paths[0], &tot);
	tot.files = t.n;
	printf("prune: %" PRIu64 " file%s: %" PRIu64 " %spruned, %" PRIu64
	       " %sremoved, %" PRIu64 " left with code of dropped GPUs "
	       "alone, %" PRIu64 " with nothing to drop, %" PRIu64
	       " failed; %" PRIu64 " -> %" PRIu64 " bytes\n", tot.files,
	       tot.files == 1 ? "" : "s", tot.pruned,
	       o->dry_run ? "would be " : "", tot.removed,
	       o->dry_run ? "would be " : "", tot.left, tot.skipped,
	       tot.failed, tot.before, tot.after);
	tree_free(&t);
	return rc || tot.failed ? 1 : 0;
oom:
	tree_free(&t);
	return fail("cannot prune", paths[0], "out of memory");
}
