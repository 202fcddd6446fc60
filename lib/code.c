/* code: an entry's code for liboffcode (include/offcode.h), decoded as
 * extract decodes it.  An entry the file stores as it is (entry.direct,
 * found at open) is read from its offset; any other is reached by the
 * walk, run again, inflating, up to it (ops/inspect.h), its bytes taken by
 * its kind's rule (ops/entry.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_impl.h"
#include "keep.h"
#include "code.h"
#include "error.h"
#include "../ops/inspect.h"
#include "../ops/kinds.h"

/* A walk that hands each entry's code to fn (or the one entry `only`). */
struct code_walk {
	offcode_artifact *a;
	size_t next;		/* ordinal of the next entry */
	size_t end;		/* past the last ordinal the walk may see */
	size_t only;		/* (size_t)-1: all */
	offcode_code_fn fn;
	void *ctx;
	int rc;			/* fn's nonzero, or a failure's code */
	struct err e;		/* the failure, when rc is one of ours */
	bool failed;
	/* A walk of one container's bytes alone: its entry `only` must be
	 * the one the headers' walk found there, else `strange` is set and
	 * nothing is handed over (the whole file is walked then). */
	bool alone, strange;
	/* The file was closed from fn (offcode_close_file): the walk stops
	 * before the next entry's code is handed over. */
	bool closed;
	/* The note of the file's map (core/io_in): set, it was cut short
	 * under the walk, and no code read from its zeros is handed over. */
	const volatile bool *cut;
};

/* The file's bytes as the walk sees them: from base on (a container's
 * bytes walked alone start at its offset). */
struct span {
	const struct io_in *in;
	uint64_t base, len;
};

static uint64_t next_data(const void *ctx, uint64_t off)
{
	const struct span *s = ctx;
	uint64_t at = io_in_next_data(s->in, s->base + off);

	return at - s->base < s->len ? at - s->base : s->len;
}

static void reading(const void *ctx, uint64_t off, uint64_t len, bool start)
{
	const struct span *s = ctx;

	off += s->base;
	io_in_hint(s->in, off, off + len, start ? IO_IN_WHOLE : IO_IN_DONE);
	if (!start)
		io_in_hint(s->in, off, off + len, IO_IN_SPARSE);
}

/* Entry n's bytes: 0 with *b, or -1 with w->e saying why not. */
static int bytes_of(struct code_walk *w, const struct inspect_node *n,
		    const offcode_entry *en, struct entry_bytes *b)
{
	const offcode_container *c = offcode_entry_container(en);

	if (c->bad_hash) {
		err_bad(&w->e, "%s #%u: hash mismatch: its code is not what "
			"was compressed", c->format, c->number);
		w->rc = OFFCODE_BAD_HASH;
		return -1;
	}
	switch (kinds_entry_bytes(n, INSPECT_HASH_UNCHECKED, b)) {
	case ENTRY_WHOLE:
		return 0;
	case ENTRY_UNDECODED:
		w->e = *b->why;
		return -1;
	case ENTRY_DAMAGED:
		err_bad(&w->e, "%s #%u: hash mismatch", c->format, c->number);
		w->rc = OFFCODE_BAD_HASH;
		return -1;
	case ENTRY_HEAD:
	case ENTRY_ABSENT:
		break;
	}
	err_code_set(&w->e, ERR_NOTHING, "entry %u of %s #%u: its code was "
		     "not at hand", en->index, c->format, c->number);
	return -1;
}

static int visit(void *ctx, const struct inspect_node *n)
{
	struct code_walk *w = ctx;
	const offcode_entry *en;
	struct entry_bytes b;
	size_t i;

	if (n->kind != INSPECT_ENTRY)
		return 0;
	i = w->next++;
	if (w->only != (size_t)-1 && i != w->only)
		return 0;
	if (i >= w->end) {
		/* The walk that inflates found more than the one of the
		 * headers: the file changed under us. */
		err_code_set(&w->e, ERR_CHANGED, "more entries than when it "
			     "was opened");
		w->failed = true;
		return 1;
	}
	en = &w->a->entries[i];
	if (w->alone && (n->index != en->index || n->size != en->size)) {
		w->strange = true;
		return 1;
	}
	if (w->a->file_closed) {
		w->closed = true;
		return 1;
	}
	if (bytes_of(w, n, en, &b) < 0) {
		w->failed = true;
		return 1;
	}
	if (w->cut && *w->cut) {	/* code_walk says so (still_whole) */
		w->failed = true;
		return 1;
	}
	w->rc = w->fn(w->ctx, en, b.data, (size_t)b.size);
	/* Code read from the file's map is not read again by the walk: its
	 * pages leave the process (not the page cache), as extract's do, so
	 * that a walk over a large file keeps its memory flat. */
	io_in_release(b.data, (size_t)b.size);
	if (w->rc != 0)
		return 1;
	return w->only != (size_t)-1 ? 1 : 0;
}

/* Walk a's bytes [base, base + len), inflating, calling fn for entry
 * `only` or all of those in [first, end): 0, fn's value, or -1 with w's
 * failure. */
static int walk_span(offcode_artifact *a, uint64_t base, uint64_t len,
		     struct code_walk *w)
{
	struct span sp = { &a->in, base, len };
	struct inspect_opts o;
	int rc;

	artifact_code_walk(a, &o);
	if (a->is_file && a->in.map)
		w->cut = io_in_cut_note(a->in.map);
	if (a->is_file) {
		o.next_data = next_data;
		o.data_ctx = &sp;
		o.reading = reading;
	}
	rc = inspect_walk(a->data + base, (size_t)len, &o, visit, w, &w->e);
	if (w->strange)
		return -1;
	if (w->failed || rc == -1)
		return -1;
	if (rc == 0 && w->only != (size_t)-1 && w->next <= w->only) {
		err_code_set(&w->e, ERR_CHANGED, "fewer entries than when it "
			     "was opened");
		w->failed = true;
		return -1;
	}
	return w->rc;
}

/* w's failure as a's last error: its code. */
static int walk_failed(offcode_artifact *a, const struct code_walk *w)
{
	/* A code of the library's own (a hash that does not hold): its
	 * record says so too. */
	if (w->failed && w->rc)
		return artifact_fail_code(a, w->rc, w->e.why);
	return artifact_fail(a, &w->e);
}

/* 0 when a's file is as long as when it was opened and no read of its
 * map found it cut short, else the change as a's last error: a walk over
 * the map of a file cut short would meet SIGBUS where its pages are gone
 * (one cut short while walked: zeros, where offcode_catch_sigbus's
 * handler put them, and the map noted cut, so checked after the walk
 * too). */
static int still_whole(offcode_artifact *a)
{
	char why[600];

	if (!a->is_file || !a->in.map || a->in.fd < 0)
		return 0;
	if (!io_in_cut_since(a->in.map))
		return 0;
	snprintf(why, sizeof(why), "'%.500s': cut short since it was opened",
		 a->path);
	return artifact_fail_code(a, OFFCODE_CHANGED, why);
}

/* Walk a, inflating, calling fn for entry `only` or all: 0, fn's value, or
 * a failure's code with a->last set. */
static int code_walk(offcode_artifact *a, size_t only, offcode_code_fn fn,
		     void *ctx)
{
	struct code_walk w = { .a = a, .only = only, .fn = fn, .ctx = ctx,
			       .end = a->nentries };
	int rc, changed;

	if (a->members_code)	/* a package's: its layers walked again */
		return a->members_code(a, only, fn, ctx);
	rc = still_whole(a);
	if (rc)
		return rc;
	rc = walk_span(a, 0, a->len, &w);
	if (w.closed)
		return artifact_file(a);
	/* (what the walk made of zeros, or handed to fn, is not the
	 * failure: the change is) */
	if ((changed = still_whole(a)))
		return changed;
	return rc == -1 ? walk_failed(a, &w) : rc;
}

/* Entry `only` (e), reached by walking the bytes of its container alone
 * when they are the file's at its offset (a CCOB, an NVIDIA fatbin): no
 * walk over what comes before it.  What that walk cannot read as the
 * headers' walk did (a container that is no file alone, an entry that is
 * not the one found there, any failure) is left to the walk of the whole
 * file, which says what is wrong: 1 then. */
static int container_walk(offcode_artifact *a, const offcode_entry *e,
			  offcode_code_fn fn, void *ctx)
{
	const offcode_container *c = &a->containers[e->container];
	struct code_walk w = { .a = a, .only = e->ordinal, .fn = fn,
			       .ctx = ctx, .next = c->first_entry,
			       .end = c->first_entry + c->entries,
			       .alone = true };
	int rc, changed;

	if (!c->alone || c->bad_hash)
		return 1;
	if ((rc = still_whole(a)))
		return rc;
	rc = walk_span(a, c->offset, c->size, &w);
	if ((changed = still_whole(a)))
		return changed;
	return rc == -1 ? 1 : rc;
}
/* ---- one entry, kept ---- */

static int keep_code(void *ctx, const offcode_entry *e, const void *code,
		     size_t size)
{
	offcode_artifact *a = ctx;
	uint8_t *p = malloc(size ? size : 1);

	if (!p)
		return OFFCODE_NOMEM;
	memcpy(p, code, size);
	free(a->cache);
	a->cache = p;
	a->cache_len = size;
	a->cached = e->ordinal + 1;
	return 0;
}

/* Whether e is one of a's entries, its code still to be read from a's
 * file: 0, or a failure's code. */
static int check(offcode_artifact *a, const offcode_entry *e)
{
	if (!a || !artifact_owns_entry(a, e))
		return a ? artifact_fail_code(a, OFFCODE_INVALID, "no such "
					      "entry in this artefact")
			 : OFFCODE_INVALID;
	return artifact_file(a);
}

/* a's bytes [off, off + n) into dst: 0, or a failure's code.  A mapped
 * file's are read with pread (its map's pages are not faulted in, so
 * reading every entry one by one keeps memory flat); a file cut short
 * since it was opened is a change, not a crash. */
static int copy_stored(offcode_artifact *a, uint64_t off, void *dst,
		       size_t n)
{
	size_t done = 0;
	struct err e;

	if (!a->in.map || a->in.fd < 0) {
		memcpy(dst, a->data + off, n);
		return 0;
	}
	while (done < n) {
		ssize_t r = pread(a->in.fd, (uint8_t *)dst + done, n - done,
				  (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err_sys(&e, a->path, errno);
			return artifact_fail(a, &e);
		}
		if (r == 0) {
			char why[600];

			snprintf(why, sizeof(why), "'%.500s': cut short since "
				 "it was opened", a->path);
			return artifact_fail_code(a, OFFCODE_CHANGED, why);
		}
		done += (size_t)r;
	}
	return 0;
}

/* Entry e's code in a->cache: 0, or a failure's code (a->last set). */
static int load(offcode_artifact *a, const offcode_entry *e)
{
	int rc;

	if ((rc = check(a, e)))
		return rc;
	if (a->cached == e->ordinal + 1)
		return 0;
	if (e->direct) {
		uint8_t *p = malloc(e->size ? e->size : 1);

		if (!p)
			return artifact_fail_code(a, OFFCODE_NOMEM,
						  "out of memory");
		if ((rc = copy_stored(a, e->offset, p, (size_t)e->size))) {
			free(p);
			return rc;
		}
		free(a->cache);
		a->cache = p;
		a->cache_len = e->size;
		a->cached = e->ordinal + 1;
		return 0;
	}
	rc = container_walk(a, e, keep_code, a);
	if (rc == 1)
		rc = code_walk(a, e->ordinal, keep_code, a);
	if (rc == OFFCODE_NOMEM)
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	return rc;
}

int code_at_hand(offcode_artifact *a, const offcode_entry *e,
		 const uint8_t **code, uint64_t *size)
{
	int rc = load(a, e);

	if (rc)
		return rc;
	*code = a->cache;
	*size = a->cache_len;
	return 0;
}

int offcode_entry_read(offcode_artifact *a, const offcode_entry *e, void *buf,
		       size_t cap, uint64_t *size)
{
	uint64_t len;
	int rc = e && e->direct ? check(a, e) : load(a, e);

	if (rc)
		return rc;
	len = e->direct ? e->size : a->cache_len;
	if (size)
		*size = len;
	if (cap < len) {
		if (!buf && !cap)
			return 0;	/* the size alone was asked */
		return artifact_fail_code(a, OFFCODE_RANGE, "the buffer is "
					  "smaller than the code");
	}
	if (!len)
		return 0;
	if (e->direct)
		return copy_stored(a, e->offset, buf, (size_t)len);
	memcpy(buf, a->cache, (size_t)len);
	return 0;
}

static int write_all(offcode_artifact *a, int fd, const char *name,
		     const uint8_t *p, uint64_t left)
{
	struct err e;

	while (left) {
		ssize_t n = write(fd, p, left > (1u << 30) ? 1u << 30
							   : (size_t)left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_sys(&e, name, n < 0 ? errno : EIO);
			return artifact_fail(a, &e);
		}
		p += n;
		left -= (uint64_t)n;
	}
	return 0;
}

/* A stored entry's len bytes at off of a mapped file copied to fd by
 * the kernel (copy_file_range: no page of either passes through the
 * process, as extract copies them): 0, 1 when the kernel cannot copy
 * between these two (other file systems, a pipe: nothing was copied), or
 * a failure's code. */
static int kernel_copy(offcode_artifact *a, int fd, const char *name,
		       uint64_t off, uint64_t len)
{
	loff_t from = (loff_t)off;
	bool any = false;
	struct err e;

	while (len) {
		size_t chunk = len > (1u << 30) ? 1u << 30 : (size_t)len;
		ssize_t n = copy_file_range(a->in.fd, &from, fd, NULL, chunk,
					    0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && !any && (errno == EXDEV || errno == EINVAL ||
				      errno == ENOSYS || errno == EOPNOTSUPP ||
				      errno == EBADF))
			return 1;
		if (n < 0) {
			err_sys(&e, name, errno);
			return artifact_fail(a, &e);
		}
		if (n == 0) {
			char why[600];

			snprintf(why, sizeof(why), "'%.500s': cut short since "
				 "it was opened", a->path);
			return artifact_fail_code(a, OFFCODE_CHANGED, why);
		}
		any = true;
		len -= (uint64_t)n;
	}
	return 0;
}

/* Entry e's code written to fd: a stored one from the file (copied by the
 * kernel, else a piece at a time), any other from code, len bytes. */
static int write_code(offcode_artifact *a, const offcode_entry *e, int fd,
		      const char *name, const uint8_t *code, uint64_t len)
{
	enum { PIECE = 1 << 20 };
	uint64_t done = 0;
	uint8_t *buf;
	int rc = 0;

	if (!e->direct)
		return write_all(a, fd, name, code, len);
	if (!a->in.map || a->in.fd < 0)
		return write_all(a, fd, name, a->data + e->offset, e->size);
	if ((rc = kernel_copy(a, fd, name, e->offset, e->size)) != 1)
		return rc;
	if (!(buf = malloc(e->size < PIECE ? e->size + 1 : PIECE)))
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	rc = 0;
	while (!rc && done < e->size) {
		size_t n = e->size - done < PIECE ? (size_t)(e->size - done)
						  : PIECE;

		if (!(rc = copy_stored(a, e->offset + done, buf, n)))
			rc = write_all(a, fd, name, buf, n);
		done += n;
	}
	free(buf);
	return rc;
}

int offcode_entry_write_fd(offcode_artifact *a, const offcode_entry *e,
			   int fd)
{
	int rc = e && e->direct ? check(a, e) : load(a, e);

	return rc ? rc : write_code(a, e, fd, "<fd>", a->cache, a->cache_len);
}

/* Entry e's code (code, len bytes, unless stored) written to a temporary
 * beside path and renamed over it: no partial file is ever at path, and
 * nothing of the tool's own signal handling (which a library must not
 * install) is needed. */
static int write_path(offcode_artifact *a, const offcode_entry *e,
		      const char *path, const uint8_t *code, uint64_t len)
{
	size_t plen = strlen(path);
	struct stat in, out;
	char *tmp;
	struct err er;
	int rc, fd;

	/* Never over the artefact's own file (a name of it: the rename
	 * would put its code where the file was). */
	if (a->is_file && a->in.fd >= 0 && lstat(path, &out) == 0 &&
	    fstat(a->in.fd, &in) == 0 && in.st_dev == out.st_dev &&
	    in.st_ino == out.st_ino) {
		char why[600];

		snprintf(why, sizeof(why), "'%.500s': is the artefact's own "
			 "file, not written over", path);
		return artifact_fail_code(a, OFFCODE_INVALID, why);
	}
	if (!(tmp = malloc(plen + 16)))
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	snprintf(tmp, plen + 16, "%s.tmp-XXXXXX", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		err_sys(&er, path, errno);
		free(tmp);
		return artifact_fail(a, &er);
	}
	if ((rc = write_code(a, e, fd, path, code, len)) == 0 &&
	    fchmod(fd, 0644) < 0) {
		err_sys(&er, path, errno);
		rc = artifact_fail(a, &er);
	}
	if (close(fd) < 0 && !rc) {
		err_sys(&er, path, errno);
		rc = artifact_fail(a, &er);
	}
	if (!rc && rename(tmp, path) < 0) {
		err_sys(&er, path, errno);
		rc = artifact_fail(a, &er);
	}
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int offcode_entry_write_path(offcode_artifact *a, const offcode_entry *e,
			     const char *path)
{
	int rc;

	if (!path)
		return a ? artifact_fail_code(a, OFFCODE_INVALID, "no path")
			 : OFFCODE_INVALID;
	if ((rc = e && e->direct ? check(a, e) : load(a, e)))
		return rc;
	return write_path(a, e, path, a->cache, a->cache_len);
}

int offcode_code_foreach(offcode_artifact *a, offcode_code_fn fn, void *ctx)
{
	int rc;

	if (!a || !fn)
		return a ? artifact_fail_code(a, OFFCODE_INVALID, "no callback")
			 : OFFCODE_INVALID;
	if ((rc = artifact_reading(a)))
		return rc;
	rc = code_walk(a, (size_t)-1, fn, ctx);
	artifact_read_done(a);
	return rc;
}

/* ---- every entry's code to files ---- */

struct to_paths {
	offcode_artifact *a;
	offcode_path_fn fn;
	void *ctx;
};

static int to_path(void *ctx, const offcode_entry *e, const void *code,
		   size_t size)
{
	struct to_paths *t = ctx;
	const char *path = NULL;
	int rc = t->fn(t->ctx, e, &path);

	if (rc || !path)
		return rc;
	if ((rc = artifact_file(t->a)))	/* closed by fn */
		return rc;
	return write_path(t->a, e, path, code, size);
}

/* Every entry stored as it is (a library of bundles): written from the
 * file alone, with no walk over its headers, whose map a file cut short
 * would make a SIGBUS; the kernel's copy says the change instead. */
static int stored_to_paths(offcode_artifact *a, offcode_path_fn fn,
			   void *ctx)
{
	for (size_t i = 0; i < a->nentries; i++) {
		const offcode_entry *e = &a->entries[i];
		const char *path = NULL;
		int rc = fn(ctx, e, &path);

		if (rc)
			return rc;
		if (path && ((rc = artifact_file(a)) ||	/* closed by fn */
			     (rc = write_path(a, e, path, NULL, 0))))
			return rc;
	}
	return 0;
}

int offcode_code_foreach_path(offcode_artifact *a, offcode_path_fn fn,
			      void *ctx)
{
	struct to_paths t = { a, fn, ctx };
	size_t i = 0;
	int rc;

	if (!a || !fn)
		return a ? artifact_fail_code(a, OFFCODE_INVALID, "no callback")
			 : OFFCODE_INVALID;
	if ((rc = artifact_reading(a)))
		return rc;
	while (i < a->nentries && a->entries[i].direct)
		i++;
	if (i == a->nentries)
		rc = stored_to_paths(a, fn, ctx);
	else
		rc = code_walk(a, (size_t)-1, to_path, &t);
	artifact_read_done(a);
	return rc;
}
