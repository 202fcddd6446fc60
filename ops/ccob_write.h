/* ccob_write: data, or the bundle a plan describes, compressed into one
 * CCOB on an output (the bundler's --compress and the ccob applet). */
#ifndef FORMATS_CCOB_WRITE_H
#define FORMATS_CCOB_WRITE_H

#include "../formats/bundle.h"
#include "../formats/ccob.h"
#include "../core/io_in.h"
#include "../core/io_types.h"

/* Called every so often while compressing, with progress_ctx, bytes done
 * and total. */
typedef void ccob_progress_fn(void *ctx, uint64_t done, uint64_t total);

struct ccob_write_opts {
	unsigned version, method;	/* CCOB version, CCOB_ZSTD or _ZLIB */
	int level;
	ccob_progress_fn *progress;	/* NULL: none */
	void *progress_ctx;
};

/* Compress data into one CCOB on out; the compressed bytes stream to out
 * when it is a file (its header is patched at the end).  st receives what
 * -verbose reports. */
int ccob_write(const struct io_in *data, struct io_out *out,
	       const struct ccob_write_opts *o, struct ccob_stats *st,
	       struct err *e);
/* The same for the bundle a plan describes.  Its bytes are gathered into a
 * mapped scratch file (zstd must see them contiguous to match LLVM's
 * frames, and our heap need not hold them) by a second thread while the
 * compressor reads what is there. */
int ccob_write_plan(const struct bundle_plan *plan, const struct io_in *inputs,
		    struct io_out *out, const struct ccob_write_opts *o,
		    struct ccob_stats *st, struct err *e);

#endif
