/* bundler_read: the bundler's --list and --unbundle, as LLVM 22 does them.  A
 * compressed bundle is not held in memory: its CCOB is decompressed a
 * piece at a time, the bundle header gathered first, and each wanted
 * entry's bytes written to its output as they pass.  Everything that
 * fails on the way is said only once the whole CCOB decompressed (LLVM
 * decompresses before it reads anything), and outputs are
 * renamed into place only when the whole command succeeds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bundler_jobs.h"
#include "bundler_read.h"
#include "bundler_read23.h"
#include "llvmtool.h"
#include "../core/gather.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/io_scratch.h"
#include "../core/bytes.h"
#include "../core/env.h"
#include "../core/strmap.h"
#include "../core/target.h"
#include "../formats/bundle.h"
#include "../formats/bundle_binary.h"
#include "../formats/bundle_object.h"
#include "../formats/bundle_reader.h"
#include "../formats/bundle_text.h"
#include "../formats/ccob.h"
#include "../formats/ccob_decode.h"
#include "../ops/ccob_read.h"

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "Can't find bundles for A", "A and B", "A, B, and C": sorted names. */
static void missing_error(const struct strmap *work)
{
	const char **names = calloc(work->items + 1, sizeof(*names));
	size_t n = 0, len = 64;
	char *msg;

	if (!names) {
		llvm_fail("out of memory");
		return;
	}
	for (uint32_t b = strmap_next(work, 0); b < work->nb;
	     b = strmap_next(work, b + 1)) {
		names[n++] = work->b[b].key;
		len += work->b[b].len + 8;
	}
	qsort(names, n, sizeof(*names), by_string);
	msg = malloc(len);
	if (msg) {
		strcpy(msg, "Can't find bundles for");
		for (size_t i = 0; i < n; i++) {
			if (i && n > 2)
				strcat(msg, ",");
			strcat(msg, " ");
			if (i && i == n - 1)
				strcat(msg, "and ");
			strcat(msg, names[i]);
		}
		llvm_fail("%s", msg);
	} else {
		llvm_fail("out of memory");
	}
	free(msg);
	free(names);
}

/* Outputs are opened as LLVM opens them (its raw_fd_ostream writes an
 * existing file in place where no file can be made beside it: so does
 * io_out_open), and all renamed into place only when the whole unbundle
 * succeeds. */
struct outset {
	struct io_out *out;
	size_t *order, n;
};

static struct io_out *outset_open(struct outset *s, const struct config *c,
				  size_t k)
{
	struct err e;

	if (io_out_open(&s->out[k], c->outputs[k], &e) < 0) {
		llvm_fail("%s", e.msg);
		return NULL;
	}
	s->order[s->n++] = k;
	return &s->out[k];
}

/* Each output flushed and closed first, then all renamed: one whose last
 * bytes do not fit leaves every output as it was. */
static int outset_commit(struct outset *s)
{
	struct err e;

	io_out_together();
	for (size_t i = 0; i < s->n; i++)
		if (io_out_commit(&s->out[s->order[i]], &e) < 0) {
			io_out_together_end(false, NULL);
			return llvm_fail("%s", e.msg);
		}
	if (io_out_together_end(true, &e) < 0)
		return llvm_fail("%s", e.msg);
	return 0;
}

/* What an unbundle still wants, and what it has opened. */
struct unbundle {
	const struct config *c;
	struct strmap work;	/* standardised target -> output index */
	struct target *req;
	struct outset outs;
	bool found_host;
	/* The object bundle being read is not the input file itself (LLVM
	 * 23 found it in a CCOB): the llvm-objcopy LLVM runs on the input
	 * to get the host's object fails. */
	bool objcopy_fails;
};

/* A wanted entry of a bundle being streamed: where its bytes go.  An
 * output written in place (stdout, a pipe, a device) cannot be taken
 * back: its bytes wait in a scratch file (held) until the CCOB proved
 * good, as they waited in memory before. */
struct route {
	struct io_out *o;
	uint64_t off, size;
	struct io_out held;
	bool holding;
};

/* The sink of a CCOB being decompressed (see the top of this file). */
struct router {
	struct unbundle *u;
	const char *path;
	struct gather head;		/* the bundle's first bytes, until
					 * decided */
	bool decided, drain;
	bool again;			/* a second pass: said all once */
	FILE *list;			/* --list: the IDs go here */
	struct bundle_reader r;
	struct route *v;
	size_t n, nv;
	uint64_t pos;			/* bundle offset of the next byte */
};

static int route_add(struct router *rt, struct io_out *o, uint64_t off,
		     uint64_t size)
{
	struct route *v;
	struct err e;

	if (rt->n == rt->nv) {
		size_t nv = rt->nv ? 2 * rt->nv : 8;
		struct route *grown = realloc(rt->v, nv * sizeof(*grown));

		if (!grown)
			return llvm_fail("out of memory");
		rt->v = grown;
		rt->nv = nv;
	}
	v = &rt->v[rt->n++];
	*v = (struct route){ o, off, size, { .fd = -1 }, false };
	if (!io_out_seekable(o)) {
		if (io_scratch_open(&v->held, &e) < 0)
			return llvm_fail("%s", e.msg);
		v->holding = true;
	}
	return 0;
}

/* The held bytes to their outputs, once the CCOB proved good. */
static int route_release(struct router *rt)
{
	enum { PIECE = 1 << 20 };
	uint8_t *buf = NULL;
	struct err e;

	for (size_t i = 0; i < rt->n; i++) {
		struct route *v = &rt->v[i];

		if (!v->holding)
			continue;
		if (io_out_flush(&v->held, &e) < 0)
			goto fail;
		if (!buf && !(buf = malloc(PIECE))) {
			err_nomem(&e);
			goto fail;
		}
		for (uint64_t at = 0; at < v->held.pos;) {
			size_t n = v->held.pos - at < PIECE
				   ? (size_t)(v->held.pos - at) : PIECE;
			ssize_t got = pread(v->held.fd, buf, n, (off_t)at);

			if (got <= 0) {
				err_set(&e, "temporary file: %s",
					got < 0 ? strerror(errno)
						: "shorter than written");
				goto fail;
			}
			if (io_out_write(v->o, buf, (size_t)got, &e) < 0)
				goto fail;
			at += (uint64_t)got;
		}
		io_out_discard(&v->held);
		v->holding = false;
	}
	free(buf);
	return 0;
fail:
	free(buf);
	return llvm_fail("%s", e.msg);
}

/* The entries of r that are still wanted, each to its output: copied from
 * seg (r reads seg's bytes from base on), or (seg NULL) routed as the
 * bundle streams past.  0, or 1 when something failed (reported). */
static int take_entries(struct unbundle *u, struct bundle_reader *r,
			const struct io_in *seg, size_t base,
			struct router *rt)
{
	const struct config *c = u->c;
	struct bundle_entry ent;
	struct err e;

	while (u->work.items && bundle_next(r, &ent) == 1) {
		struct target got;
		bool is_host;
		uint32_t b;
		uint64_t off, size;
		struct io_out *o;

		if (target_parse_entry(&got, ent.id, ent.id_len, c->llvm) < 0)
			return llvm_fail("invalid bundle id read from the bundle");
		for (b = strmap_next(&u->work, 0); b < u->work.nb;
		     b = strmap_next(&u->work, b + 1))
			if (target_compatible(&got, &u->req[u->work.b[b].value],
					      c->hip_openmp))
				break;
		if (b == u->work.nb) {
			target_free(&got);
			continue;
		}
		is_host = target_is_host(&got);
		target_free(&got);
		o = outset_open(&u->outs, c, u->work.b[b].value);
		if (!o)
			return 1;
		if (bundle_content(r, &off, &size, &e) < 0)
			return llvm_fail("'%s': %s", c->inputs[0], e.msg);
		if (rt) {
			if (route_add(rt, o, off, size))
				return 1;
		} else if (r->object &&
			   bundle_object_is_host(seg->data + base, off, size)) {
			/* The host's section marks the object itself. */
			if (u->objcopy_fails && !c->print_cmds) {
				fprintf(stderr, "llvm-objcopy: error: '%s': The "
					"file was not recognized as a valid "
					"object file\n", c->inputs[0]);
				return llvm_fail("'llvm-objcopy' tool failed");
			}
			if (c->print_cmds) {
				bundler_print_objcopy_strip(c);
			} else if (bundle_strip_object(seg->data + base,
						       seg->len - base, o,
						       &e) < 0) {
				return llvm_fail("'%s': %s", c->inputs[0],
						    e.msg);
			}
		} else if (io_out_copy(o, seg, base + off, size, &e) < 0) {
			return llvm_fail("%s", e.msg);
		}
		strmap_erase(&u->work, b);
		u->found_host |= is_host;
	}
	return 0;
}

/* Bytes at bundle offset `at` to every route they fall in. */
static void route_bytes(struct router *rt, const uint8_t *p, size_t n,
			uint64_t at)
{
	struct err e;

	for (size_t i = 0; i < rt->n && !rt->drain; i++) {
		struct route *v = &rt->v[i];
		uint64_t lo = v->off > at ? v->off : at;
		uint64_t hi = v->off + v->size < at + n ? v->off + v->size
							: at + n;

		if (lo < hi && io_out_write(v->holding ? &v->held : v->o,
					    p + (lo - at), (size_t)(hi - lo),
					    &e) < 0) {
			llvm_fail("%s", e.msg);
			rt->drain = true;
		}
	}
}

/* The bundle header is whole (or proved bad): match its entries. */
static void route_decide(struct router *rt, bool all)
{
	size_t need = 0;
	struct err e;
	int rc = bundle_open_binary_part(&rt->r, rt->head.buf, rt->head.have,
					 (size_t)rt->head.total, &need, &e);

	if (rc == 1 && !all) {
		gather_later(&rt->head, need);
		return;
	}
	rt->decided = true;
	if (rt->u && !rt->u->work.items) {
		/* LLVM 23, a later piece it wants nothing from: its header
		 * fails only where LLVM's reading of it crashes (the header
		 * is here as far as it was read). */
		if (rc < 0 && bundler_header23_crash(rt->u->c, rt->head.buf,
						     (size_t)rt->head.total))
			rt->drain = true;
	} else if (rc < 0) {
		/* LLVM's own messages keep LLVM's form; ours name the file. */
		if (e.llvm_words)
			llvm_fail("%s", e.msg);
		else
			llvm_fail("'%s': %s", rt->path, e.msg);
		rt->drain = true;
	} else if (rt->list) {
		struct bundle_entry ent;

		while (bundle_next(&rt->r, &ent) == 1) {
			fwrite(ent.id, 1, ent.id_len, rt->list);
			putc('\n', rt->list);
			bundle_skip(&rt->r);
		}
	} else if (take_entries(rt->u, &rt->r, NULL, 0, rt)) {
		rt->drain = true;
	}
	route_bytes(rt, rt->head.buf, rt->head.have, 0);
	rt->pos = rt->head.have;
}

/* The sink: gather the header, then route.  It never fails, so that the
 * CCOB is decompressed to its end and its own errors come first. */
static int route_sink(void *ctx, const void *p, size_t n, struct err *e)
{
	struct router *rt = ctx;
	int rc;

	(void)e;
	if (rt->decided) {
		route_bytes(rt, p, n, rt->pos);
		rt->pos += n;
		return 0;
	}
	rc = gather_add(&rt->head, p, n);
	if (rc < 0) {
		llvm_fail("out of memory for a bundle header of more than %zu "
			  "bytes", rt->head.have);
		rt->decided = rt->drain = true;
	} else if (rc) {
		route_decide(rt, gather_whole(&rt->head));
	}
	return 0;
}

static void router_free(struct router *rt)
{
	for (size_t i = 0; i < rt->n; i++)
		if (rt->v[i].holding)
			io_out_discard(&rt->v[i].held);
	bundle_close(&rt->r);
	gather_free(&rt->head);
	free(rt->v);
}

/* Decompress the CCOB at s->pos through rt, as bundler_decompress_next
 * would have it in memory: its errors and -verbose report
 * first, then whatever failed on the way.  0, or 1 (reported). */
static int stream_ccob(struct source *s, struct router *rt)
{
	const struct config *c = s->c;
	const uint8_t *at = s->file.data + s->pos;
	size_t left = s->file.len - s->pos, used = 0;
	const char *path = c->inputs[0];
	struct ccob_header h;
	struct ccob_stats st;
	struct timespec t0, t1;
	struct ccob_limits lim;
	uint64_t hash = 0;
	struct err e;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	llvm_timer_mark();
	if (ccob_parse_header(at, left, &h, &e) < 0)
		return llvm_fail("Failed to decompress input: %s",
				 bundler_llvm_words(c, e.msg));
	gather_init(&rt->head, h.raw_size);
	rt->path = path;
	lim = c->limits;
	llvm_defer(true);
	/* LLVM 22 hashes the data only for -verbose's report. */
	rc = ccob_read_stream(&s->file, at, left, &h, &lim, route_sink, rt,
			      &used, c->verbose ? &hash : NULL, &e);
	if (rc == 0 && !rt->decided)
		route_decide(rt, true);		/* an empty bundle */
	llvm_defer(false);
	if (rc < 0) {
		llvm_deferred_drop();
		if (c->verbose && c->llvm >= LLVM_23)
			llvm_timer_add("Decompression time");
		if (e.llvm_words)
			return llvm_fail("Failed to decompress input: %s",
					 bundler_llvm_words(c, e.msg));
		return llvm_fail("'%s': Failed to decompress input: %s", path,
				    e.msg);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	st = (struct ccob_stats){
		.version = h.version, .method = h.method,
		.total_size = h.total_size, .raw_size = h.raw_size,
		/* LLVM counts every byte after the header; so do we unless
		 * another CCOB follows. */
		.compressed_size = (used < left && ccob_is(at + used, left - used)
				    ? used : left) - h.header_size,
		.stored_hash = h.hash, .computed_hash = hash,
		.seconds = (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	};
	if (!rt->again)
		bundler_ccob_report(c, &st);
	if (llvm_deferred() || route_release(rt))
		return 1;
	s->pos += used;
	s->method = h.method;
	s->nseg++;
	return 0;
}

/* --list of the CCOB at s->pos, streamed: its IDs onto list.  0 or 1
 * (reported), as bundler_decompress_next. */
static int list_ccob(struct source *s, FILE *list)
{
	struct router rt = { .list = list };
	int rc = stream_ccob(s, &rt);

	router_free(&rt);
	return rc;
}

/* IDs are printed only once the whole input has been read, so a damaged
 * later CCOB does not leave half a list on stdout. */
int bundler_list(const struct config *c)
{
	struct source src = { 0 };
	struct bundle_reader r = { 0 };
	struct bundle_entry ent;
	char *text = NULL;
	size_t text_len = 0;
	FILE *list;
	int rc, more = 0;

	if (c->llvm >= LLVM_23)
		return bundler_list23(c);
	list = open_memstream(&text, &text_len);
	rc = list ? bundler_source_open(c, &src) : llvm_fail("out of memory");

	src.stream = true;
	while (!rc && (more = bundler_source_next(&src, &r)) >= 1) {
		if (more == SOURCE_CCOB) {
			if (list_ccob(&src, list))
				more = -1;
			if (more < 0)
				break;
			continue;
		}
		while (bundle_next(&r, &ent) == 1) {
			fwrite(ent.id, 1, ent.id_len, list);
			putc('\n', list);
			bundle_skip(&r);
		}
	}
	if (!rc && more < 0)
		rc = 1;
	if (list && fclose(list) == 0 && !rc)
		fwrite(text, 1, text_len, stdout);
	free(text);
	bundle_close(&r);
	bundler_source_close(&src);
	return rc;
}

/* The next bundle of the input, its wanted entries written: 1 while there
 * may be more, 0 at the end, -1 on failure (reported).  *streamed_at is
 * where the last bundle read began when it was a CCOB that was streamed,
 * else SIZE_MAX. */
static int next_bundle(struct unbundle *u, struct source *src,
		       struct bundle_reader *r, size_t *streamed_at)
{
	int more = bundler_source_next(src, r);

	if (more == SOURCE_CCOB) {
		struct router rt = { .u = u };
		size_t at = src->pos;
		int rc = stream_ccob(src, &rt);

		router_free(&rt);
		*streamed_at = at;
		return rc ? -1 : 1;
	}
	if (more <= 0)
		return more;
	*streamed_at = SIZE_MAX;
	u->objcopy_fails = src->compressed;
	return take_entries(u, r, &src->seg, 0, NULL) ? -1 : 1;
}

/* Nothing was found, and the input is taken to be the host's: the last
 * bundle, streamed again from its CCOB into the host outputs. */
static int restream_host(struct unbundle *u, struct source *src, size_t at,
			 const size_t *host, size_t nhost)
{
	struct router rt = { .u = u, .decided = true, .again = true };
	int rc = 0;

	for (size_t i = 0; i < nhost && !rc; i++)
		rc = route_add(&rt, &u->outs.out[host[i]], 0, UINT64_MAX);
	src->pos = at;
	if (!rc)
		rc = stream_ccob(src, &rt);
	router_free(&rt);
	return rc;
}

static int src_size_incorrect(const struct config *c)
{
	return llvm_fail("Failed to decompress input: %s",
			 bundler_llvm_words(c, "Could not decompress embedded "
					    "file contents: Src size is "
					    "incorrect"));
}

/* One piece of the input (bundler_blob23) read for what the work list
 * still wants, as LLVM 23 reads it: decompressed whole even when nothing
 * is wanted any more (its errors count).  0, or 1 (reported). */
static int unbundle23_blob(struct unbundle *u, struct source *s,
			   const struct blob23 *b)
{
	const struct config *c = u->c;
	const uint8_t *at = s->file.data + b->at, *d;
	const struct io_in *from = NULL;
	struct bundle_reader r = { 0 };
	const char *comment = NULL;
	size_t base = 0, n;
	int layout, rc;
	struct err e;

	if (bundler_ccob23_undefined(s, b))
		return 1;
	if (b->len >= 8 && ccob_is(at, b->len) &&
	    bundler_ccob_binary(c, at, b->len)) {
		struct source one = *s;
		struct router rt = { .u = u };

		/* The file as far as the piece goes: never closed. */
		one.file.len = b->at + b->len;
		one.pos = b->at;
		one.seg = (struct io_in){ .fd = -1 };
		rc = stream_ccob(&one, &rt);
		router_free(&rt);
		if (!rc && one.pos < one.file.len && one.method != CCOB_ZLIB)
			rc = src_size_incorrect(c);
		return rc;
	}
	if (bundler_open_piece23(s, b, &from, &base))
		return 1;
	d = from->data + base;
	n = from == &s->seg ? s->seg.len : b->len;
	layout = bundler_layout23(c, d, n, &comment);
	if (layout < 0)
		return 1;
	if (!u->work.items)
		return layout == LAYOUT_BINARY ? bundler_header23_crash(c, d, n) : 0;
	if (layout == LAYOUT_TEXT) {
		bundle_open_text(&r, comment, d, n);
	} else if ((layout == LAYOUT_OBJECT ? bundle_open_object(&r, d, n, &e)
		    : bundle_open_binary(&r, d, n, &e)) < 0) {
		/* LLVM's own messages keep LLVM's form; ours name the file. */
		return e.llvm_words ? llvm_fail("%s", e.msg)
				    : llvm_fail("'%s': %s", c->inputs[0],
						e.msg);
	}
	u->objcopy_fails = from == &s->seg;
	rc = take_entries(u, &r, from, base, NULL);
	bundle_close(&r);
	return rc;
}

/* LLVM 23's walk: every piece of the input, to the end (later pieces are
 * read, and can fail, after everything wanted is found).  0, or -1. */
static int unbundle23(struct unbundle *u, struct source *s)
{
	size_t pos = 0;

	while (pos < s->file.len) {
		struct blob23 b;

		if (bundler_blob23(u->c, &s->file, pos, true, &b) ||
		    unbundle23_blob(u, s, &b))
			return -1;
		if (b.next == SIZE_MAX)
			break;
		pos = b.next;
	}
	return 0;
}

int bundler_unbundle(const struct config *c)
{
	struct unbundle u = {
		.c = c,
		.req = calloc(c->ntargets + 1, sizeof(struct target)),
		.outs = { calloc(c->ntargets + 1, sizeof(struct io_out)),
			  calloc(c->ntargets + 1, sizeof(size_t)), 0 },
	};
	struct source src = { 0 };
	struct bundle_reader r = { 0 };
	size_t *host = calloc(c->ntargets + 1, sizeof(*host)), nhost = 0;
	size_t streamed_at = SIZE_MAX;
	int more = 1;
	struct err e;
	int rc = 1;

	if (!u.req || !u.outs.out || !u.outs.order || !host) {
		llvm_fail("out of memory");
		goto out;
	}
	if (bundler_source_open(c, &src))
		goto out;
	src.stream = true;
	for (size_t i = 0; i < c->ntargets; i++) {
		const char *t = c->std_targets[i];

		if (target_parse(&u.req[i], t, strlen(t), c->llvm) < 0 ||
		    strmap_set(&u.work, t, strlen(t), i) < 0) {
			llvm_fail("invalid bundle id from bundle config");
			goto out;
		}
	}
	/* LLVM 22: bundle after bundle until every target is found: later
	 * ones are not even read. */
	if (c->llvm >= LLVM_23)
		more = unbundle23(&u, &src);
	else
		while (u.work.items &&
		       (more = next_bundle(&u, &src, &r, &streamed_at)) == 1)
			;
	if (more < 0)
		goto out;
	if (!c->allow_missing && u.work.items) {
		missing_error(&u.work);
		goto out;
	}
	if (u.work.items == c->ntargets) {
		/* Nothing found: the input is taken to be the host's. */
		for (uint32_t b = strmap_next(&u.work, 0); b < u.work.nb;
		     b = strmap_next(&u.work, b + 1)) {
			size_t k = u.work.b[b].value;
			struct io_out *o = outset_open(&u.outs, c, k);

			if (!o)
				goto out;
			if (!target_is_host(&u.req[k]))
				continue;
			if (streamed_at != SIZE_MAX)
				host[nhost++] = k;
			else if (c->llvm >= LLVM_23
				 /* LLVM 23: the input itself, compressed
				  * or not. */
				 ? io_out_copy(o, &src.file, 0, src.file.len,
					       &e) < 0
				 : io_out_copy(o, &src.seg, 0, src.seg.len,
					       &e) < 0) {
				llvm_fail("%s", e.msg);
				goto out;
			}
		}
		if (nhost && restream_host(&u, &src, streamed_at, host, nhost))
			goto out;
	} else {
		if (!u.found_host && c->host_index >= 0 && !c->allow_missing) {
			llvm_fail("Can't find bundle for the host target");
			goto out;
		}
		for (uint32_t b = strmap_next(&u.work, 0); b < u.work.nb;
		     b = strmap_next(&u.work, b + 1))
			if (!outset_open(&u.outs, c, u.work.b[b].value))
				goto out;
	}
	rc = outset_commit(&u.outs);
out:
	for (size_t i = 0; u.outs.out && i < c->ntargets; i++)
		io_out_discard(&u.outs.out[i]);
	for (size_t i = 0; u.req && i < c->ntargets; i++)
		target_free(&u.req[i]);
	free(u.req);
	free(u.outs.out);
	free(u.outs.order);
	free(host);
	strmap_free(&u.work);
	bundle_close(&r);
	bundler_source_close(&src);
	return rc;
}
