/* ccob: compressed offload bundles ("CCOB"): a small header, then one zlib
 * stream or zstd frames (as many as the writer made, skippable ones
 * included) of the whole uncompressed bundle. */
#ifndef FORMATS_CCOB_H
#define FORMATS_CCOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <md5.h>

#include "../core/env.h"
#include "../core/err.h"
#include "../core/md5lanes.h"

enum ccob_method { CCOB_ZLIB = 0, CCOB_ZSTD = 1 };

/*            V1 (20 bytes)   V2 (24 bytes)   V3 (32 bytes)
 * magic      0..4 "CCOB"     0..4            0..4
 * version    u16 @4          u16 @4          u16 @4
 * method     u16 @6          u16 @6          u16 @6
 * total size -               u32 @8          u64 @8
 * raw size   u32 @8          u32 @12         u64 @16
 * hash       u64 @12         u64 @16         u64 @24
 * All little endian; the hash is the first 8 bytes of the MD5 of the
 * uncompressed bundle. */
struct ccob_header {
	unsigned version, method;
	size_t header_size;
	uint64_t total_size;	/* header + compressed bytes; 0 in V1 */
	uint64_t raw_size;
	uint64_t hash;
};

/* How far a declared uncompressed size is believed before anything is
 * allocated: at most max_ratio times the compressed bytes (plus a little
 * slack), and never more than max_size. */
struct ccob_limits {
	uint64_t max_ratio;
	uint64_t max_size;
	/* Called now and then while decompressing, if set, with
	 * progress_ctx (passed, so a caller keeps its state in no global). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* A zlib stream's failures named as zlib's uncompress() names them
	 * (LLVM 22: Z_BUF_ERROR for one cut short after all the declared
	 * bytes, Z_DATA_ERROR for more than 0 declared ones), not as LLVM 23
	 * does (Z_DATA_ERROR for any cut, Z_BUF_ERROR for any excess). */
	bool uncompress_words;
	/* Called, if set, while the frames are walked before decoding (a
	 * walk reads a header each block), with progress_ctx and how far the
	 * walk has come after the header: the bytes before may leave memory
	 * until the decoder reaches them. */
	void (*walked)(void *ctx, uint64_t upto);
};
#define CCOB_DEFAULT_MAX_RATIO 65536
/* Half the physical memory, at most 32 GiB (see env_memory_cap). */
#define CCOB_DEFAULT_MAX_SIZE env_memory_cap()

size_t ccob_header_size(unsigned version);	/* 0 if unknown */
bool ccob_is(const uint8_t *buf, size_t len);	/* starts with "CCOB" */
/* The first byte at or after off that is not zero, or len: a linker puts
 * each translation unit's CCOB of a .hip_fatbin section at the section's
 * alignment, with zero padding between them. */
size_t ccob_skip_padding(const uint8_t *buf, size_t len, size_t off);
/* LLVM 22's checks and messages: "Compressed bundle header size too small",
 * "Unknown compressing method". */
int ccob_parse_header(const uint8_t *buf, size_t len, struct ccob_header *h,
		      struct err *e);
void ccob_write_header(uint8_t *out, const struct ccob_header *h);

/* The stored form of a hash: the first 8 MD5 bytes read as a LE u64;
 * whole, or piece by piece with a hasher. */
uint64_t ccob_hash(const uint8_t *buf, size_t len);
/* hash[i] = ccob_hash(buf[i], len[i]) for i < n, sixteen at a time where
 * the CPU can; the bytes copied by read (may be NULL) and hashed there
 * (core/md5lanes.h). */
void ccob_hash_many(const uint8_t *const *buf, const size_t *len, size_t n,
		    uint64_t *hash, md5lanes_read *read, void *ctx);
struct ccob_hasher {
	MD5_CTX md5;
};
void ccob_hasher_init(struct ccob_hasher *h);
void ccob_hasher_add(struct ccob_hasher *h, const uint8_t *buf, size_t len);
uint64_t ccob_hasher_end(struct ccob_hasher *h);

/* A compressor with LLVM's parameters (zstd with long-distance matching at
 * `level`, or zlib's compress2); sink receives the compressed bytes as they
 * come.  zlib output is the same however the input is fed; zstd output
 * matches LLVM's one-shot call only when the whole input comes at once
 * (ccob_encoder_all, or, up to zstd 1.5.6, ccob_encoder_grow), since
 * frames past 128 MiB differ when fed in pieces. */
typedef int (*ccob_sink)(void *ctx, const void *p, size_t n, struct err *e);
struct ccob_encoder;
struct ccob_encoder *ccob_encoder_new(unsigned method, int level,
				      uint64_t raw_size, struct err *e);
int ccob_encoder_add(struct ccob_encoder *enc, const void *p, size_t n,
		     ccob_sink sink, void *ctx, struct err *e);
int ccob_encoder_finish(struct ccob_encoder *enc, ccob_sink sink, void *ctx,
			struct err *e);
/* Compress all of src at once, the way LLVM's one-shot call sees it: zstd
 * frames over 128 MiB (the long-distance window) differ when the input is
 * fed in pieces, so large inputs must come whole.  Output still streams. */
int ccob_encoder_all(struct ccob_encoder *enc, const void *src, size_t n,
		     ccob_sink sink, void *ctx, struct err *e);
/* The same for an input that is still arriving: src stays where it is and
 * each call makes more of it (avail bytes) readable, the last call all of
 * it.  The frame is the one ccob_encoder_all makes of the whole.  Neither
 * mixes with ccob_encoder_add. */
int ccob_encoder_grow(struct ccob_encoder *enc, const void *src,
		      size_t avail, bool last, ccob_sink sink, void *ctx,
		      struct err *e);
uint64_t ccob_encoder_out(const struct ccob_encoder *enc); /* bytes so far */
/* How far behind ccob_encoder_in the compressor may still read the input
 * it was given (ccob_encoder_grow): what is further back may leave
 * memory. */
uint64_t ccob_encoder_reach(const struct ccob_encoder *enc);
/* Input bytes the compressor has taken so far (for a progress line). */
uint64_t ccob_encoder_in(const struct ccob_encoder *enc);
void ccob_encoder_free(struct ccob_encoder *enc);

/* LLVM's -verbose report of a compression or a decompression, as text. */
struct ccob_stats {
	unsigned version, method;
	int level;
	uint64_t total_size, raw_size, compressed_size;
	uint64_t stored_hash, computed_hash;
	double seconds;
};
void ccob_report_compress(char *buf, size_t cap, const struct ccob_stats *s);
void ccob_report_decompress(char *buf, size_t cap, const struct ccob_stats *s);

#endif
