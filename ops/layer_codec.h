/* layer_codec: the compressions of image layers, gzip (zlib) and zstd
 * (libzstd), both already what offload links for CCOBs and packages, and
 * of Debian packages' members, xz (liblzma) too, of zip members,
 * raw deflate (zlib), and of conda's older .tar.bz2 packages, bzip2
 * (libbz2);
 * a layer's tar read out of its blob and written into a new one as
 * streams, hashed (SHA-256) on both sides as they pass. */
#ifndef OPS_LAYER_CODEC_H
#define OPS_LAYER_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <lzma.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"
#include "../core/sha256.h"

enum layer_codec {
	LAYER_NONE, LAYER_GZIP, LAYER_ZSTD, LAYER_XZ,
	LAYER_DEFLATE,		/* raw deflate: a zip member's */
	LAYER_BZIP2,
};
enum { LAYER_CODECS = LAYER_BZIP2 + 1 };

/* Its name ("none", "gzip", "zstd"), and the suffix of OCI media types
 * ("", "+gzip", "+zstd"). */
const char *layer_codec_name(enum layer_codec c);
const char *layer_codec_suffix(enum layer_codec c);
/* Whether an OCI image layer may be compressed with it (xz, raw deflate
 * and bzip2 may not). */
bool layer_codec_oci(enum layer_codec c);
/* The codec of a name: 0, or -1 for none of them. */
int layer_codec_parse(const char *name, enum layer_codec *c);
/* What the blob's first bytes say it is compressed with. */
enum layer_codec layer_codec_probe(const uint8_t *p, size_t n);

struct layer_reader;
/* The tar in blob[0..len), decompressed as it is read; sha256 of what
 * comes out (the layer's diff_id).  -1: out of memory. */
int layer_reader_open(struct layer_reader **r, enum layer_codec c,
		      const uint8_t *blob, size_t len, struct err *e);
/* The same on threads decoder threads (xz's alone; 0: a thread per CPU,
 * 1: the caller's, without the blocks' buffers, 128 MiB at most). */
int layer_reader_open_threads(struct layer_reader **r, enum layer_codec c,
			      const uint8_t *blob, size_t len,
			      unsigned threads, struct err *e);
/* The blob is in's bytes, mapped: what has been read of it leaves the
 * process's map as the stream goes (io_in_hint), so that a layer's
 * resident memory does not grow with it. */
void layer_reader_mapped(struct layer_reader *r, const struct io_in *in);
/* layer_walk's read: buf[0..n) filled, *got < n at the end alone. */
int layer_reader_read(void *r, uint8_t *buf, size_t n, size_t *got,
		      struct err *e);
/* The digest of all it gave (hex[SHA256_HEX + 1]). */
void layer_reader_digest(struct layer_reader *r, char *hex);
/* Its digest of what it gives taken on a thread of its own
 * (core/bytepipe.c, copied), the caller's thread left to the walk: 0, or -1 with
 * e filled. */
int layer_reader_thread(struct layer_reader *r, struct err *e);
/* What it gave so far marked: the digests of that tar and of the blob
 * its decoder read for it kept (the last mark replaces the one before).
 * 0, or -1 out of memory. */
int layer_reader_mark(struct layer_reader *r, struct err *e);
/* The last mark: the tar's length and its digest in progress (the
 * reader's, valid while it is open and not marked again), how much of
 * the blob the decoder had read and that part's digest. */
struct layer_mark {
	uint64_t len;
	const struct sha256 *tar;
	size_t blob_len;
	char blob_hex[SHA256_HEX + 1];
};
/* False when it was never marked, or a mark could not be made. */
bool layer_reader_marked(struct layer_reader *r, struct layer_mark *m);
/* A reader of r's blob from its start, r's bytes (the same map: the same
 * file, whatever its name names now), that hashes neither its tar nor
 * its blob: a tar read again, checked by its caller.  0, or -1 with e
 * filled. */
int layer_reader_again(const struct layer_reader *r,
		       struct layer_reader **again, struct err *e);
/* How many bytes of its blob its decoder has read; *blob where the
 * blob's bytes are. */
size_t layer_reader_blob_read(const struct layer_reader *r,
			      const uint8_t **blob);
/* How many bytes it gave. */
uint64_t layer_reader_given(const struct layer_reader *r);
/* The digest of the blob, hashed as it was read (what it did not read,
 * past the end of its stream, hashed now). */
void layer_reader_blob_digest(struct layer_reader *r, char *hex);
void layer_reader_close(struct layer_reader *r);

struct layer_writer;
/* A blob written to out, compressed with c at level (0: the codec's
 * default, gzip 6, zstd 3, xz 6 and bzip2 9, bzip2's level its block
 * size in 100 kB; xz on a thread per CPU); both digests taken. */
int layer_writer_open(struct layer_writer **w, enum layer_codec c, int level,
		      struct io_out *out, struct err *e);
/* Before the first write: the tar's digest taken on a thread of its own
 * (core/bytepipe.c, copied), and zstd compressed by libzstd's worker threads, as
 * many as threads (at least one): the bytes are zstd's with workers (the
 * zstd tool's -3, -T0 or -T1: the same whatever their number), not its
 * single thread's.  The other codecs have no threads of their own. */
int layer_writer_threads(struct layer_writer *w, unsigned threads,
			 struct err *e);
/* Before the first write: the tar's first len bytes are ones whose
 * digest in progress is tar (a tar read again, image_replay): tar's
 * state carried over and those bytes compressed, not hashed again.  0,
 * or -1 out of memory. */
int layer_writer_known(struct layer_writer *w, const struct sha256 *tar,
		       uint64_t len, struct err *e);
/* layer_walk's write. */
int layer_writer_write(void *w, const uint8_t *buf, size_t n, struct err *e);
/* The stream ended: the digests of the tar (diff_id) and of the blob,
 * and the blob's size. */
int layer_writer_finish(struct layer_writer *w, char *diff_hex,
			char *blob_hex, uint64_t *blob_size, struct err *e);
void layer_writer_close(struct layer_writer *w);

/* xz's encoder set up in xz (LZMA_STREAM_INIT, or an encoder of this
 * kind again) as dpkg-deb sets it up at level (0: 6), with check:
 * liblzma's threaded encoder, its blocks of three dictionaries, on a
 * thread per CPU as memory allows.  0, or -1 (out of memory). */
int layer_xz_encoder(lzma_stream *xz, int level, lzma_check check);

#endif
