/* ccob_read: CCOBs decompressed with flat memory; see ccob_read.h. */
#include <stdbool.h>
#include <string.h>

#include "ccob_read.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"

/* Below this, zstd's own window (no larger than the bundle) and the ring
 * of pieces are small enough: no temporary file. */
#define SMALL ((uint64_t)32 << 20)
/* Blocks of the temporary file are allocated this far ahead of the
 * decoder (which writes at most a few MiB past what it has delivered). */
#define AHEAD ((uint64_t)64 << 20)
/* Before decoding: enough for the decoder's first call (a few MiB at
 * most), little for a header whose declared size is then refused. */
#define FIRST ((uint64_t)8 << 20)

struct reading {
	const struct io_in *in;		/* holding the compressed bytes */
	uint64_t from;			/* where they start in it */
	bool done;			/* the decoder has reported */
	const struct ccob_limits *lim;	/* the caller's progress */
	struct io_out scratch;
	struct io_in view;		/* the scratch file's map */
	uint64_t produced, allocated, low;
	ccob_sink sink;
	void *ctx;
};

/* The compressed bytes behind the decoder are not read again; those ahead
 * of it were touched by the walk over its frames before decoding, and are
 * let go once, to come back as the decoder reaches them. */
static void read_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct reading *r = ctx;

	if (r->lim->progress)
		r->lim->progress(r->lim->progress_ctx, done, total);
	if (r->in)
		io_in_hint(r->in, r->from + (r->done ? 0 : done),
			   r->from + (r->done ? done : total), IO_IN_DONE);
	r->done = true;
}

/* The walk over the frames before decoding: what it passed leaves. */
static void read_walked(void *ctx, uint64_t upto)
{
	struct reading *r = ctx;

	if (r->in)
		io_in_hint(r->in, r->from, r->from + upto, IO_IN_DONE);
}

static int into_sink(void *ctx, const void *p, size_t n, struct err *e)
{
	struct reading *r = ctx;

	r->produced += n;
	if (r->produced + AHEAD / 2 > r->allocated) {
		if (io_scratch_allocate(&r->scratch, r->allocated, AHEAD, e) < 0)
			return -1;
		r->allocated += AHEAD;
	}
	return r->sink ? r->sink(r->ctx, p, n, e) : 0;
}

/* Everything below upto leaves, each time: pages of the window zstd read
 * back since come in again from the page cache, and leave here; those
 * further back than any window stay out. */
static void release(void *ctx, uint64_t upto)
{
	struct reading *r = ctx;

	io_in_hint(&r->view, r->low, upto, IO_IN_DONE);
	if (upto > ((uint64_t)1 << 30))
		r->low = upto - ((uint64_t)1 << 30);
}

int ccob_read_stream(const struct io_in *in, const uint8_t *buf, size_t len,
		     const struct ccob_header *h,
		     const struct ccob_limits *lim, ccob_sink sink, void *ctx,
		     size_t *used, uint64_t *hash, struct err *e)
{
	struct reading r = { .lim = lim, .sink = sink, .ctx = ctx };
	struct ccob_limits mine = *lim;
	uint8_t *dst;
	int rc;

	if (in && buf >= in->data && buf < in->data + in->len) {
		r.in = in;
		r.from = (uint64_t)(buf - in->data) + h->header_size;
	}
	mine.progress = read_progress;
	mine.progress_ctx = &r;
	mine.walked = read_walked;
	if (h->raw_size < SMALL || h->raw_size > lim->max_size)
		return ccob_decompress_stream(buf, len, h, &mine, sink, ctx,
					      used, hash, e);
	r.scratch.fd = -1;
	if (io_scratch_open(&r.scratch, e) < 0 ||
	    io_scratch_writable(&r.scratch, h->raw_size, &dst, e) < 0 ||
	    io_scratch_allocate(&r.scratch, 0, FIRST, e) < 0) {
		if (r.scratch.path)
			io_out_discard(&r.scratch);
		/* No room for it: the decoder's own window, then. */
		return ccob_decompress_stream(buf, len, h, &mine, sink, ctx,
					      used, hash, e);
	}
	r.allocated = FIRST;
	memset(&r.view, 0, sizeof(r.view));
	r.view.data = dst;
	r.view.map = dst;
	r.view.len = (size_t)h->raw_size;
	r.view.fd = -1;
	io_in_hint(&r.view, 0, h->raw_size, IO_IN_SPARSE);
	rc = ccob_decompress_into(buf, len, h, &mine, dst, into_sink, release,
				  &r, used, hash, e);
	io_out_discard(&r.scratch);
	return rc;
}
