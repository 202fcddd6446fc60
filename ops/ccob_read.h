/* ccob_read: a CCOB decompressed to a sink with memory that stays flat
 * whatever its size (ccob_read.c). */
#ifndef OPS_CCOB_READ_H
#define OPS_CCOB_READ_H

#include <stddef.h>
#include <stdint.h>

#include "../core/io_in.h"
#include "../formats/ccob_decode.h"

/* ccob_decompress_stream of the CCOB at buf, which lies in in's map (or
 * in is NULL): its compressed pages leave memory behind the decoder, and
 * a bundle too large for zstd's window to be small is decoded into a map
 * of memory of its own (a memfd; a ring of pieces mapped over and over
 * when the bundle is larger than its frames' window), whose pages leave
 * our map once the sink and the hasher are done with them (zstd reads its
 * window back through the map).  The sink gets the same bytes in the same
 * order either way. */
int ccob_read_stream(const struct io_in *in, const uint8_t *buf, size_t len,
		     const struct ccob_header *h,
		     const struct ccob_limits *lim, ccob_sink sink, void *ctx,
		     size_t *used, uint64_t *hash, struct err *e);

#endif
