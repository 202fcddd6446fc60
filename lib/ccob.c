/* ccob: a CCOB inflated as a stream (include/offcode.h, "files
 * written"): formats/ccob_decode.c's decoder, which holds no more than a
 * piece of the code at a time, its pieces handed to the caller. */
#include "error.h"
#include "../formats/ccob.h"
#include "../formats/ccob_decode.h"

struct pieces {
	offcode_bytes_fn fn;
	void *ctx;
	int stopped;	/* fn's nonzero */
};

static int piece(void *ctx, const void *p, size_t n, struct err *e)
{
	struct pieces *pc = ctx;

	/* The record stops the decoder; the caller gets its own value. */
	if ((pc->stopped = pc->fn(pc->ctx, p, n)))
		return err_code_set(e, ERR_NOTHING, "stopped by the caller");
	return 0;
}

int offcode_ccob_inflate(const void *ccob, size_t len, uint64_t max_size,
			 uint64_t max_ratio, offcode_bytes_fn fn, void *ctx,
			 offcode_error **err)
{
	struct ccob_limits lim = {
		.max_ratio = max_ratio ? max_ratio : CCOB_DEFAULT_MAX_RATIO,
		.max_size = max_size ? max_size : CCOB_DEFAULT_MAX_SIZE,
	};
	struct pieces pc = { .fn = fn, .ctx = ctx };
	struct ccob_header h;
	offcode_error *r;
	size_t used;
	struct err e;

	if (err)
		*err = NULL;
	if (!ccob || !fn) {
		r = error_new(OFFCODE_INVALID, "no CCOB, or no function for "
			      "its bytes");
		goto fail;
	}
	if (ccob_parse_header(ccob, len, &h, &e) == 0 &&
	    ccob_decompress_stream(ccob, len, &h, &lim, piece, &pc, &used,
				   NULL, &e) == 0)
		return OFFCODE_OK;
	if (pc.stopped)
		return pc.stopped;
	r = error_from(&e, NULL);
fail:
	return error_give(r, err);
}
