/* xz_splice: an xz-compressed tar written again after a walk
 * (ops/layer.c) changed a few of its members, the original's blocks
 * whose bytes did not change copied as they are, compressed, instead of
 * compressed again.  The original is one xz stream of many blocks
 * (dpkg-deb and xz -T write one every 24 MiB at level 6); the walk says
 * where the bytes it writes are the original's (layer_walk.span).  A
 * block of the original whose bytes all lie before the first changed
 * member, or after the last one (shifted by what the changed ones grew
 * or shrank), is copied with its header and check; the rest is
 * compressed by liblzma's threaded encoder, as dpkg-deb compresses, in
 * runs that end where a copied block begins, whose blocks are taken out
 * of the encoder's stream as they come.  The stream's index and footer
 * are made anew (liblzma's lzma_index); its check is the original's.
 * An original that is not one stream with a readable index, or has a
 * check liblzma cannot compute, has nothing copied: the result is then
 * the threaded encoder's stream of it all, byte for byte.  The copied
 * blocks are trusted because the walk's reader decodes and checks every
 * one of them (their CRC, the index against the blocks) before the
 * caller keeps the result. */
#ifndef OPS_XZ_SPLICE_H
#define OPS_XZ_SPLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"

struct xz_splice;

/* What was copied and what compressed. */
struct xz_splice_told {
	uint64_t blocks_copied, bytes_copied;	/* uncompressed bytes */
	uint64_t blocks_made, bytes_made;
};

/* The new stream written to out (at its current end), the original
 * being in->data[off, off + len), compressed at level (0: 6) as
 * layer_writer compresses xz.  0, or -1 with e filled. */
int xz_splice_open(struct xz_splice **s, const struct io_in *in, uint64_t off,
		   uint64_t len, int level, struct io_out *out, struct err *e);
/* layer_walk's write and span, with s as their write_ctx. */
int xz_splice_write(void *s, const uint8_t *buf, size_t n, struct err *e);
int xz_splice_span(void *s, uint64_t at, bool same, struct err *e);
/* The stream ended: its last blocks, index and footer written, *size
 * the bytes of it all. */
int xz_splice_finish(struct xz_splice *s, uint64_t *size, struct err *e);
void xz_splice_told(const struct xz_splice *s, struct xz_splice_told *t);
void xz_splice_close(struct xz_splice *s);

#endif
