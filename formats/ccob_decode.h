/* ccob_decode: a CCOB's extent found, and its bytes decompressed, whole,
 * streamed, placed or only their first bytes (ccob_decode.c). */
#ifndef FORMATS_CCOB_DECODE_H
#define FORMATS_CCOB_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "ccob.h"

/* Where the CCOB at the start of buf ends (*size counts its header), found
 * by its header and its frames, never by searching for the next "CCOB".
 * zstd: all of buf when everything after the header is zstd frames (LLVM
 * 22's reading: it decodes all of it and never reads the total size);
 * else the total size of a version 2 or 3 header when a frame ends there;
 * else (version 1, or a total size that is not a frame's end) the end of
 * the run of whole frames after the header.  zlib: the total size of a
 * version 2 or 3 header when it holds the stream, else the stream's end
 * (which takes inflating it, within lim). */
int ccob_extent(const uint8_t *buf, size_t len, const struct ccob_header *h,
		const struct ccob_limits *lim, uint64_t *size, struct err *e);

/* Decompress the one CCOB at the start of buf (header already parsed into
 * h): every frame within its extent (see ccob_extent).  *out (malloc'd)
 * receives exactly h->raw_size bytes, or an error says why not; *used is
 * the extent, so a next CCOB may follow.  *hash, unless hash is NULL,
 * is their hash (see ccob_hash), made by a second thread as they come;
 * it is not compared with the stored one here. */
int ccob_decompress(const uint8_t *buf, size_t len, const struct ccob_header *h,
		    const struct ccob_limits *lim, uint8_t **out, size_t *used,
		    uint64_t *hash, struct err *e);

/* The same decoder, without holding the bytes: they go to sink in pieces
 * of at most 1 MiB as they are inflated (memory stays flat whatever the
 * size; a sink's failure stops it and is returned; a NULL sink drops
 * them), and *hash, unless NULL, is their hash, made by a second thread
 * while the sink works.  A failure may come after some pieces went out. */
int ccob_decompress_stream(const uint8_t *buf, size_t len,
			   const struct ccob_header *h,
			   const struct ccob_limits *lim, ccob_sink sink,
			   void *ctx, size_t *used, uint64_t *hash,
			   struct err *e);

/* The same decoded into dst, the caller's h->raw_size bytes (a map of a
 * file), so that the decoder needs no window of its own: sink gets each
 * run as it lands there (p inside dst), and release is told, now and then,
 * that dst[0, upto) may leave memory (the sink and the hasher are done
 * with it; the decoder may read some of it back, through the map). */
typedef void (*ccob_release)(void *ctx, uint64_t upto);
int ccob_decompress_into(const uint8_t *buf, size_t len,
			 const struct ccob_header *h,
			 const struct ccob_limits *lim, uint8_t *dst,
			 ccob_sink sink, ccob_release release, void *ctx,
			 size_t *used, uint64_t *hash, struct err *e);

/* How far back any frame of the CCOB at buf may match (zstd: the widest
 * window its frames declare; zlib: 32 KiB): what a decoder into a map
 * must keep behind what it has decoded.  UINT64_MAX when the frames do
 * not say (damaged: the decoder will tell).  lim->walked hears of the
 * frames' headers read, as before decoding. */
uint64_t ccob_window_size(const uint8_t *buf, size_t len,
			  const struct ccob_header *h,
			  const struct ccob_limits *lim);
/* The same without the ring of pieces: the caller says where each run of
 * bytes is to be inflated (place: at most *room bytes, at least 1, at the
 * pointer returned; NULL with e filled to stop), and sink is then told of
 * the n bytes inflated there, at p.  What zstd or zlib decode lands where
 * it is wanted, with no copy of ours (a frame whose window is wider than
 * the bundle is inflated whole, and sink's p is then elsewhere: it copies).
 * No hash: the bytes are the caller's as soon as sink has them. */
typedef uint8_t *(*ccob_place)(void *ctx, size_t *room, struct err *e);
int ccob_decompress_placed(const uint8_t *buf, size_t len,
			   const struct ccob_header *h,
			   const struct ccob_limits *lim, ccob_place place,
			   ccob_sink sink, void *ctx, size_t *used,
			   struct err *e);

/* Inflate only the first `want` bytes (at most h->raw_size) of the CCOB at
 * buf into out, reading no more of the stream than that takes: enough for
 * the bundle header inside, without inflating the code objects after it.
 * *got is want, or less when the stream ends first (not an error here). */
int ccob_peek(const uint8_t *buf, size_t len, const struct ccob_header *h,
	      uint8_t *out, size_t want, size_t *got, struct err *e);

#endif
