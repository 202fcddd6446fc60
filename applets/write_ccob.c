/* write_ccob: writing a bundle plan as one CCOB (bundler and ccob applets). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "write_ccob.h"

write_ccob_progress write_ccob_on_progress;

typedef int (*piece_fn)(void *ctx, const void *p, size_t n, struct err *e);

/* Feed a plan's bytes, in order, to fn (a hash or a compressor), in slices
 * small enough to report progress between them. */
static int walk_plan(const struct bundle_plan *plan, const struct io_in *inputs,
		     piece_fn fn, void *ctx, struct err *e)
{
	static const uint8_t zeros[65536];
	enum { SLICE = 8 << 20 };
	uint64_t done = 0;

	for (size_t i = 0; i < plan->n; i++) {
		const struct bundle_piece *p = &plan->piece[i];
		uint64_t pad = p->pad;

		if (p->lit_len && fn(ctx, p->lit, p->lit_len, e) < 0)
			return -1;
		while (pad) {
			size_t n = pad < sizeof(zeros) ? (size_t)pad : sizeof(zeros);

			if (fn(ctx, zeros, n, e) < 0)
				return -1;
			pad -= n;
		}
		for (size_t off = 0; p->input >= 0 && off < inputs[p->input].len;) {
			size_t n = inputs[p->input].len - off;

			n = n > SLICE ? SLICE : n;
			if (fn(ctx, inputs[p->input].data + off, n, e) < 0)
				return -1;
			off += n;
			done += n;
			if (write_ccob_on_progress)
				write_ccob_on_progress(done, plan->total);
		}
	}
	return 0;
}

static int hash_piece(void *ctx, const void *p, size_t n, struct err *e)
{
	(void)e;
	ccob_hasher_add(ctx, p, n);
	return 0;
}

/* Where compressed bytes go: straight to a file whose header is patched at
 * the end, or into memory when the output cannot seek (stdout, a pipe). */
struct compressed_sink {
	struct io_out *out;
	uint8_t *mem;
	size_t len, cap;
};

static int sink_write(void *ctx, const void *p, size_t n, struct err *e)
{
	struct compressed_sink *k = ctx;

	if (io_out_seekable(k->out))
		return io_out_write(k->out, p, n, e);
	if (k->len + n > k->cap) {
		size_t ncap = (k->len + n) * 2;
		uint8_t *grown = realloc(k->mem, ncap);

		if (!grown)
			return err_set(e, "out of memory");
		k->mem = grown;
		k->cap = ncap;
	}
	memcpy(k->mem + k->len, p, n);
	k->len += n;
	return 0;
}

struct feed {
	struct ccob_encoder *enc;
	struct compressed_sink *sink;
};

static int compress_piece(void *ctx, const void *p, size_t n, struct err *e)
{
	struct feed *f = ctx;

	return ccob_encoder_add(f->enc, p, n, sink_write, f->sink, e);
}

int write_ccob(const struct bundle_plan *plan, const struct io_in *inputs,
	       struct io_out *out, unsigned version, unsigned method, int level,
	       struct ccob_stats *st, struct err *e)
{
	struct ccob_header h = {
		.version = version, .method = method,
		.header_size = ccob_header_size(version),
		.raw_size = plan->total,
	};
	struct compressed_sink sink = { out, NULL, 0, 0 };
	struct ccob_hasher *hasher = ccob_hasher_new();
	struct ccob_encoder *enc = NULL;
	struct feed feed;
	struct timespec t0, t1;
	uint8_t head[32] = { 0 };
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!hasher) {
		err_set(e, "out of memory");
		goto out;
	}
	walk_plan(plan, inputs, hash_piece, hasher, e);
	h.hash = ccob_hasher_done(hasher);
	if (h.version < 3 && h.raw_size > UINT32_MAX) {
		err_set(e, "Uncompressed size exceeds version %u limit", version);
		goto out;
	}
	enc = ccob_encoder_new(method, level, h.raw_size, e);
	feed = (struct feed){ enc, &sink };
	if (!enc ||
	    (io_out_seekable(out) &&
	     io_out_write(out, head, h.header_size, e) < 0) ||
	    walk_plan(plan, inputs, compress_piece, &feed, e) < 0 ||
	    ccob_encoder_finish(enc, sink_write, &sink, e) < 0)
		goto out;
	h.total_size = h.header_size + ccob_encoder_out(enc);
	if (h.version == 2 && h.total_size > UINT32_MAX) {
		err_set(e, "Total file size exceeds version 2 limit");
		goto out;
	}
	ccob_write_header(head, &h);
	if ((io_out_seekable(out)
	     ? io_out_pwrite(out, head, h.header_size, 0, e)
	     : io_out_write(out, head, h.header_size, e) < 0 ||
	       io_out_write(out, sink.mem, sink.len, e)) < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*st = (struct ccob_stats){
		.version = h.version, .method = h.method, .level = level,
		.total_size = h.total_size, .raw_size = h.raw_size,
		.compressed_size = ccob_encoder_out(enc),
		.stored_hash = h.hash, .computed_hash = h.hash,
		.seconds = (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	};
	rc = 0;
out:
	ccob_encoder_free(enc);
	free(sink.mem);
	return rc;
}
