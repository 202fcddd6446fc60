/* write_ccob: writing a bundle plan as one CCOB, shared by the bundler and
 * ccob applets (it moves bytes between files, so it is not a format). */
#ifndef APPLETS_WRITE_CCOB_H
#define APPLETS_WRITE_CCOB_H

#include "../core/io.h"
#include "../formats/bundle.h"
#include "../formats/ccob.h"

/* Called every so often while compressing, with bytes done and total. */
typedef void (*write_ccob_progress)(uint64_t done, uint64_t total);

/* Compress data into one CCOB of the given version and method on out; the
 * compressed bytes stream to out when it is a file (its header is patched
 * at the end).  st receives what -verbose reports. */
int write_ccob(const struct io_in *data, struct io_out *out, unsigned version,
	       unsigned method, int level, struct ccob_stats *st,
	       struct err *e);
/* The same for the bundle a plan describes.  Its bytes are gathered into a
 * mapped scratch file (zstd must see them contiguous to match LLVM's
 * frames, and our heap need not hold them) by a second thread while the
 * compressor reads what is there. */
int write_ccob_plan(const struct bundle_plan *plan, const struct io_in *inputs,
		    struct io_out *out, unsigned version, unsigned method,
		    int level, struct ccob_stats *st, struct err *e);
extern write_ccob_progress write_ccob_on_progress;

#endif
