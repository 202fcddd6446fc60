/* prune_region: the containers of a section or a file, one after
 * another, each pruned as its kind's row (kinds.c) says; with --compress,
 * then compressed, several at once, into the spool. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/workpool.h"
#include "../formats/ccob.h"
#include "../formats/fatbin.h"
#include "kinds.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_region.h"

/* A container of the region, pruned (rc 1: as pt says, 0: as it is). */
struct slot {
	struct fatbin_item it;
	const struct kind *k;
	struct prune_patch pt;
	int rc;
	int compressed;		/* things compress compressed in it */
	bool hashed;		/* hash is its ccob_hash (kinds.h) */
	uint64_t hash;
	struct prune_spool sp;
	struct err *err;	/* compressing it failed: why */
};

/* The pool's order: largest first, so that the last to finish is a small
 * one; in the containers' order among equals. */
struct todo {
	uint64_t size;
	size_t slot;
};

static int larger_first(const void *a, const void *b)
{
	const struct todo *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return (x->slot > y->slot) - (x->slot < y->slot);
}

struct region {
	struct pruner *p;
	const uint8_t *buf;
	uint64_t base;
	struct slot *slot;
	size_t n, cap;
	struct todo *todo;	/* the slots to compress, in the pool's order */
	size_t ntodo;
	bool hashing;		/* the pool's item 0 hashes (hash_all) */
};

/* The spool: an unlinked file as long as the input, each container's
 * compressed bytes at its own offset (their room: fewer bytes than it
 * has), so that the threads write without a lock and memory holds none
 * of them; mapped, for the pieces' data, never touched but where read. */
struct prune_spool_file {
	struct io_out out;
	struct io_in view;
};

void prune_spool_free(struct prune_spool_file *sf)
{
	if (!sf)
		return;
	io_out_discard(&sf->out);
	free(sf);
}

static int spool_open(struct pruner *p)
{
	struct prune_spool_file *sf;

	if (p->spool)
		return 0;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return err_nomem(p->e);
	sf->out.fd = -1;
	/* Twice as long: the second half for pruned bundles written out
	 * whole before they are compressed (prune_spool.raw_at). */
	if (io_scratch_open(&sf->out, p->e) < 0 ||
	    io_scratch_reserve(&sf->out, p->file_len, &sf->view, p->e) < 0) {
		prune_spool_free(sf);
		return -1;
	}
	if (p->file_len > INT64_MAX / 2 ||
	    ftruncate(sf->out.fd, (off_t)(2 * p->file_len)) < 0) {
		err_sys_for(p->e, NULL, p->file_len > INT64_MAX / 2 ? EFBIG
				       : errno, "temporary file");
		prune_spool_free(sf);
		return -1;
	}
	sf->view.fd = sf->out.fd;
	sf->view.path = sf->out.path;
	p->spool = sf;
	return 0;
}

/* The error e holds, said of the container it (as a single pass over the
 * region said it). */
static int at_container(const struct region *r, const struct fatbin_item *it,
			struct err *e)
{
	err_wrap(e, e->code, "%s at offset %llu", fatbin_item_name(it),
		 (unsigned long long)(r->base + it->offset));
	return err_at(e, r->p->base + r->base + it->offset);
}

/* A workpool item: one container compressed; reads and writes only its
 * slot.  A failure is kept in the slot, for the region to say the first
 * in the containers' order (the pool takes them largest first). */
static int hash_all(struct region *r, struct err *e);

static int compress_one(void *ctx, size_t item, struct err *e)
{
	struct region *r = ctx;
	struct slot *s;
	int c;

	if (r->hashing && item == 0)
		return hash_all(r, e);
	s = &r->slot[r->todo[item - r->hashing].slot];
	c = s->k->compress(r->p->o, r->p->ccob_version, r->buf + s->it.offset,
			   s->it.size, &s->pt, &s->sp, e);

	if (c < 0) {
		at_container(r, &s->it, e);
		if (!(s->err = malloc(sizeof(*s->err))))
			return -1;	/* e says it, and stops the pool */
		*s->err = *e;
		return 0;
	}
	if (c > 0) {
		s->rc = 1;
		s->compressed = c;
	}
	return 0;
}

/* The hashes compress wants of containers that stay as they are,
 * sixteen at a time, all in one workpool item beside the compressors
 * (their headers are written after): MD5 of one message is one block
 * after another, sixteen side by side cost what one does, and one group
 * of lanes for all, the longest first, leaves the least to hash alone at
 * the end.  The hasher reads the input with pread (io_in_copy), never
 * through the map: mapping each page for it and letting it go again cost
 * more than the copy, and the compressors map the same pages anyway. */
static void read_input(void *ctx, uint8_t *dst, const uint8_t *p, size_t n)
{
	(void)ctx;
	io_in_copy(dst, p, n);
}

static int hash_all(struct region *r, struct err *e)
{
	size_t n = 0, cap = r->ntodo ? r->ntodo : 1;
	const uint8_t **msg = calloc(cap, sizeof(*msg));
	size_t *len = calloc(cap, sizeof(*len)), *slot = calloc(cap,
							 sizeof(*slot));
	uint64_t *hash = calloc(cap, sizeof(*hash));
	int rc = -1;

	if (!msg || !len || !slot || !hash) {
		err_nomem(e);
		goto out;
	}
	for (size_t t = 0; t < r->ntodo; t++) {
		struct slot *s = &r->slot[r->todo[t].slot];

		if (!s->hashed)
			continue;
		msg[n] = r->buf + s->it.offset;
		len[n] = (size_t)s->it.size;
		slot[n++] = r->todo[t].slot;
	}
	ccob_hash_many(msg, len, n, hash, read_input, NULL);
	for (size_t i = 0; i < n; i++)
		r->slot[slot[i]].hash = hash[i];
	rc = 0;
out:
	free(msg);
	free(len);
	free(slot);
	free(hash);
	return rc;
}

/* The headers whose hash hash_all made, into the spool. */
static int write_headers(struct region *r, struct err *e)
{
	for (size_t i = 0; i < r->n; i++) {
		struct slot *s = &r->slot[i];
		uint8_t head[32];
		size_t done = 0;

		if (s->rc <= 0 || !s->compressed || s->k->compress_entries ||
		    !s->sp.hash_later)
			continue;
		s->sp.head.hash = s->hash;
		ccob_write_header(head, &s->sp.head);
		while (done < s->sp.head.header_size) {
			ssize_t w = pwrite(s->sp.fd, head + done,
					   s->sp.head.header_size - done,
					   (off_t)(s->sp.at + done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return err_sys_for(e, NULL, w < 0 ? errno
							     : ENOSPC,
						   "temporary file");
			done += (size_t)w;
		}
	}
	return 0;
}

/* A workpool tick: the progress line, if any, by containers compressed. */
static void compressed_some(void *ctx, size_t done, size_t n)
{
	const struct region *r = ctx;
	const struct ccob_limits *l = &r->p->o->limits;

	if (l->progress)
		l->progress(l->progress_ctx, done, n);
}

/* The region's containers, pruned one after another (keep() is asked in
 * their order), up to the first that fails: -1 with the error in p->e
 * and the container in *bad (a slot's, or the one fatbin_next could not
 * read), else 0. */
static int walk(struct region *r, size_t len, struct fatbin_item *bad)
{
	struct pruner *p = r->p;
	uint64_t pos = 0;
	int rc;

	while ((rc = fatbin_next(r->buf, len, &pos, &p->o->limits, bad,
				 p->e)) > 0) {
		struct slot *s;

		if (r->n == r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 16;
			struct slot *grown = realloc(r->slot,
						     cap * sizeof(*grown));

			if (!grown)
				return err_nomem(p->e);
			r->slot = grown;
			r->cap = cap;
		}
		s = &r->slot[r->n];
		*s = (struct slot){ .it = *bad, .k = kinds_get(bad->kind) };
		p->container = p->base + r->base + bad->offset;
		p->plan->containers++;
		s->rc = s->k->prune ? s->k->prune(p, r->buf + bad->offset,
						  bad->size,
						  r->base + bad->offset, &s->pt)
				    : err_set(p->e, "%ss are not pruned yet",
					      fatbin_item_name(bad));
		if (s->rc < 0)
			return -1;
		r->n++;
	}
	return rc;
}

int prune_region(struct pruner *p, const uint8_t *buf, size_t len,
		 uint64_t base, bool in_place)
{
	struct region r = { .p = p, .buf = buf, .base = base };
	struct fatbin_item bad = { 0 };
	struct err *walk_err = NULL;
	size_t i;
	int rc = -1;

	/* The walk's error waits for those of the containers before it. */
	if (walk(&r, len, &bad) < 0) {
		walk_err = malloc(sizeof(*walk_err));
		if (!walk_err) {
			err_nomem(p->e);
			goto out;
		}
		*walk_err = *p->e;
	}
	/* --compress: every container walked, on o->threads, the largest
	 * first; an error is that of the first in their order that failed. */
	if (p->o->compress && !p->o->decide_only) {
		r.todo = calloc(r.n ? r.n : 1, sizeof(*r.todo));
		if (!r.todo) {
			err_nomem(p->e);
			goto out;
		}
		for (i = 0; i < r.n; i++)
			if (r.slot[i].k->compress)
				r.todo[r.ntodo++] = (struct todo){
					r.slot[i].pt.npieces
					? r.slot[i].pt.new_size
					: r.slot[i].it.size, i };
		qsort(r.todo, r.ntodo, sizeof(*r.todo), larger_first);
		if (r.ntodo && spool_open(p) < 0)
			goto out;
		for (i = 0; i < r.ntodo; i++) {
			struct slot *s = &r.slot[r.todo[i].slot];

			s->hashed = s->k->compress_hash && !s->pt.npieces &&
				    s->k->compress_hash(p->o, p->ccob_version,
							s->it.size);
			r.hashing = r.hashing || s->hashed;
			s->sp = (struct prune_spool){
				.fd = p->spool->out.fd,
				.view = &p->spool->view,
				.at = p->base + base + s->it.offset,
				.raw_at = p->file_len + p->base + base +
					  s->it.offset,
				.room = s->it.size, .hash_later = s->hashed,
			};
		}
		if (workpool_run(r.ntodo + r.hashing, p->o->threads,
				 compress_one, compressed_some, &r, p->e) < 0 ||
		    write_headers(&r, p->e) < 0)
			goto out;
	}
	for (i = 0; i < r.n; i++) {
		struct slot *s = &r.slot[i];

		if (s->err) {
			*p->e = *s->err;
			goto out;
		}
		if (s->k->compress_entries)
			p->plan->entries_compressed += (unsigned)s->compressed;
		else
			p->plan->compressed += (unsigned)s->compressed;
		if (s->rc == 0)
			continue;
		/* Fewer entries never need more room, but for a layout the
		 * bundler would not make, or a CCOB compressed worse. */
		if (s->pt.new_size > s->it.size) {
			err_set(p->e, "pruned, it would take %llu bytes, more "
				"than its %llu (%s)",
				(unsigned long long)s->pt.new_size,
				(unsigned long long)s->it.size, s->k->grown);
			at_container(&r, &s->it, p->e);
			goto out;
		}
		s->pt.offset = base + s->it.offset;
		s->pt.old_size = s->it.size;
		s->pt.in_place = in_place;
		if (prune_add_patch(p->plan, &s->pt, p->e) < 0)
			goto out;
		s->rc = 0;	/* the plan owns it */
	}
	if (walk_err) {
		*p->e = *walk_err;
		at_container(&r, &bad, p->e);
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < r.n; i++) {
		if (r.slot[i].rc > 0)
			prune_patch_free(&r.slot[i].pt);
		free(r.slot[i].err);
	}
	free(r.slot);
	free(r.todo);
	free(walk_err);
	return rc;
}
