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
/* The bytes of a bundle plan, contiguous (zstd must see them whole to match
 * LLVM's frames), in a mapped scratch file rather than our heap. */
int write_ccob_gather(const struct bundle_plan *plan,
		      const struct io_in *inputs, struct io_out *scratch,
		      struct io_in *view, struct err *e);
extern write_ccob_progress write_ccob_on_progress;

#endif
