/* ccob: compressed offload bundles ("CCOB").  The codecs are zstd and zlib,
 * the hash libmd's MD5; this file only frames them as LLVM 22 does. */
#include <md5.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
/* ZSTD_c_stableInBuffer is in the "experimental" part of the API: fine
 * here, built and run against the same libzstd package. */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "ccob.h"
#include "../core/md5lanes.h"
#include "../core/bytes.h"

size_t ccob_header_size(unsigned version)
{
	return version == 1 ? 20 : version == 2 ? 24 : version == 3 ? 32 : 0;
}

bool ccob_is(const uint8_t *buf, size_t len)
{
	return len >= 4 && !memcmp(buf, "CCOB", 4);
}

size_t ccob_skip_padding(const uint8_t *buf, size_t len, size_t off)
{
	uint64_t w;

	while (off < len && off % 8 && !buf[off])
		off++;
	while (off % 8 == 0 && len - off >= 8) {
		memcpy(&w, buf + off, 8);
		if (w)
			break;
		off += 8;
	}
	while (off < len && !buf[off])
		off++;
	return off;
}

int ccob_parse_header(const uint8_t *buf, size_t len, struct ccob_header *h,
		      struct err *e)
{
	memset(h, 0, sizeof(*h));
	if (len < 8)
		return err_cut(e, "Compressed bundle header size too small");
	h->version = (unsigned)get_le(buf + 4, 2);
	h->method = (unsigned)get_le(buf + 6, 2);
	h->header_size = ccob_header_size(h->version);
	if (!h->header_size || len < h->header_size)
		return err_cut(e, "Compressed bundle header size too small");
	switch (h->version) {
	case 1:
		h->raw_size = get_le(buf + 8, 4);
		h->hash = get_le(buf + 12, 8);
		break;
	case 2:
		h->total_size = get_le(buf + 8, 4);
		h->raw_size = get_le(buf + 12, 4);
		h->hash = get_le(buf + 16, 8);
		break;
	default:
		h->total_size = get_le(buf + 8, 8);
		h->raw_size = get_le(buf + 16, 8);
		h->hash = get_le(buf + 24, 8);
		break;
	}
	if (h->method != CCOB_ZLIB && h->method != CCOB_ZSTD)
		return err_bad(e, "Unknown compressing method");
	return 0;
}

void ccob_write_header(uint8_t *out, const struct ccob_header *h)
{
	memcpy(out, "CCOB", 4);
	put_le(out + 4, h->version, 2);
	put_le(out + 6, h->method, 2);
	switch (h->version) {
	case 1:
		put_le(out + 8, h->raw_size, 4);
		put_le(out + 12, h->hash, 8);
		break;
	case 2:
		put_le(out + 8, h->total_size, 4);
		put_le(out + 12, h->raw_size, 4);
		put_le(out + 16, h->hash, 8);
		break;
	default:
		put_le(out + 8, h->total_size, 8);
		put_le(out + 16, h->raw_size, 8);
		put_le(out + 24, h->hash, 8);
		break;
	}
}

void ccob_hasher_init(struct ccob_hasher *h)
{
	MD5Init(&h->md5);
}

void ccob_hasher_add(struct ccob_hasher *h, const uint8_t *buf, size_t len)
{
	MD5Update(&h->md5, buf, len);
}

uint64_t ccob_hasher_end(struct ccob_hasher *h)
{
	uint8_t digest[MD5_DIGEST_LENGTH];

	MD5Final(digest, &h->md5);
	return get_le(digest, 8);
}

void ccob_hash_many(const uint8_t *const *buf, const size_t *len, size_t n,
		    uint64_t *hash, md5lanes_read *read, void *ctx)
{
	uint8_t (*digest)[16] = malloc(n ? n * sizeof(*digest) : 1);

	if (!digest) {
		for (size_t i = 0; i < n; i++)
			hash[i] = ccob_hash(buf[i], len[i]);
		return;
	}
	md5lanes_each(buf, len, n, digest, read, ctx);
	for (size_t i = 0; i < n; i++)
		hash[i] = get_le(digest[i], 8);
	free(digest);
}

uint64_t ccob_hash(const uint8_t *buf, size_t len)
{
	struct ccob_hasher h;

	ccob_hasher_init(&h);
	ccob_hasher_add(&h, buf, len);
	return ccob_hasher_end(&h);
}

/* ---- compression ---- */

struct ccob_encoder {
	unsigned method;
	ZSTD_CCtx *zc;
	ZSTD_inBuffer in;	/* the growing input (ccob_encoder_grow) */
	uint64_t window;	/* how far back zstd may match */
	bool growing;
	z_stream zs;
	bool zs_ready;
	uint64_t out;
	uint8_t buf[1 << 17];
};

struct ccob_encoder *ccob_encoder_new(unsigned method, int level,
				      uint64_t raw_size, struct err *e)
{
	struct ccob_encoder *enc = calloc(1, sizeof(*enc));

	if (!enc) {
		err_nomem(e);
		return NULL;
	}
	enc->method = method;
	if (method == CCOB_ZSTD) {
		size_t r;

		/* The same parameters LLVM sets before ZSTD_compress2; the
		 * pledged size makes the streamed frame equal the one-shot. */
		enc->zc = ZSTD_createCCtx();
		if (!enc->zc ||
		    ZSTD_isError(r = ZSTD_CCtx_setParameter(enc->zc,
				ZSTD_c_enableLongDistanceMatching, 1)) ||
		    ZSTD_isError(r = ZSTD_CCtx_setParameter(enc->zc,
				ZSTD_c_compressionLevel, level)) ||
		    ZSTD_isError(r = ZSTD_CCtx_setPledgedSrcSize(enc->zc,
								  raw_size))) {
			err_set(e, "zstd: %s", enc->zc ? ZSTD_getErrorName(r)
						       : "out of memory");
			ccob_encoder_free(enc);
			return NULL;
		}
		{
			ZSTD_compressionParameters cp =
				ZSTD_getCParams(level, raw_size, 0);
			unsigned wlog = cp.windowLog > 27 ? cp.windowLog : 27;

			enc->window = (uint64_t)1 << wlog;
		}
		return enc;
	}
	if (deflateInit(&enc->zs, level) != Z_OK) {
		err_set(e, "zlib: cannot compress at level %d", level);
		free(enc);
		return NULL;
	}
	enc->zs_ready = true;
	return enc;
}

static int drain(struct ccob_encoder *enc, size_t n, ccob_sink sink, void *ctx,
		 struct err *e)
{
	enc->out += n;
	return n ? sink(ctx, enc->buf, n, e) : 0;
}

static int zstd_step(struct ccob_encoder *enc, const void *p, size_t n,
		     ZSTD_EndDirective how, ccob_sink sink, void *ctx,
		     struct err *e)
{
	ZSTD_inBuffer in = { p, n, 0 };

	for (;;) {
		ZSTD_outBuffer out = { enc->buf, sizeof(enc->buf), 0 };
		size_t left = ZSTD_compressStream2(enc->zc, &out, &in, how);

		if (ZSTD_isError(left))
			return err_set(e, "zstd: %s", ZSTD_getErrorName(left));
		if (drain(enc, out.pos, sink, ctx, e) < 0)
			return -1;
		if (how == ZSTD_e_end ? left == 0 : in.pos == in.size)
			return 0;
	}
}

static int zlib_step(struct ccob_encoder *enc, const void *p, size_t n,
		     int flush, ccob_sink sink, void *ctx, struct err *e)
{
	enc->zs.next_in = (Bytef *)p;
	enc->zs.avail_in = (uInt)n;
	for (;;) {
		int rc;

		enc->zs.next_out = enc->buf;
		enc->zs.avail_out = sizeof(enc->buf);
		rc = deflate(&enc->zs, flush);
		if (rc == Z_STREAM_ERROR)
			return err_set(e, "zlib: %s", enc->zs.msg ? enc->zs.msg
								: "stream error");
		if (drain(enc, sizeof(enc->buf) - enc->zs.avail_out, sink, ctx,
			  e) < 0)
			return -1;
		if (flush == Z_FINISH ? rc == Z_STREAM_END
				      : enc->zs.avail_in == 0 &&
					enc->zs.avail_out != 0)
			return 0;
	}
}

int ccob_encoder_add(struct ccob_encoder *enc, const void *p, size_t n,
		     ccob_sink sink, void *ctx, struct err *e)
{
	/* zlib counts in uInt: feed it at most 1 GiB at a time. */
	while (n) {
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;
		int rc = enc->method == CCOB_ZSTD
			 ? zstd_step(enc, p, chunk, ZSTD_e_continue, sink, ctx, e)
			 : zlib_step(enc, p, chunk, Z_NO_FLUSH, sink, ctx, e);

		if (rc < 0)
			return -1;
		p = (const uint8_t *)p + chunk;
		n -= chunk;
	}
	return 0;
}

int ccob_encoder_finish(struct ccob_encoder *enc, ccob_sink sink, void *ctx,
			struct err *e)
{
	return enc->method == CCOB_ZSTD
	       ? zstd_step(enc, NULL, 0, ZSTD_e_end, sink, ctx, e)
	       : zlib_step(enc, NULL, 0, Z_FINISH, sink, ctx, e);
}

int ccob_encoder_grow(struct ccob_encoder *enc, const void *src,
		      size_t avail, bool last, ccob_sink sink, void *ctx,
		      struct err *e)
{
	size_t had = enc->growing ? enc->in.size : 0;

	if (!enc->growing) {
		enc->growing = true;
		enc->in = (ZSTD_inBuffer){ src, 0, 0 };
		/* zstd may index the input in place (a stable input buffer),
		 * as LLVM's ZSTD_compress2 does.  The output still streams. */
		if (enc->method == CCOB_ZSTD) {
			size_t r = ZSTD_CCtx_setParameter(
				enc->zc, ZSTD_c_stableInBuffer, 1);

			if (ZSTD_isError(r))
				return err_set(e, "zstd: %s",
					       ZSTD_getErrorName(r));
		}
	}
	if (src != enc->in.src || avail < had)
		return err_set(e, "compressor input moved or shrank");
	enc->in.size = avail;
	/* Up to zstd 1.5.6 a stable input fed as it grows is cut into the
	 * same blocks as LLVM's ZSTD_compress2 cuts the whole (the streaming
	 * loop takes only full blocks until the end), and what is behind can
	 * leave memory; from 1.5.7 on, zstd gets the whole input in one call,
	 * as newer zstds may cut other blocks when it comes in pieces. */
	if (enc->method == CCOB_ZSTD && !last && ZSTD_versionNumber() >= 10507)
		return 0;
	if (enc->method == CCOB_ZSTD && ZSTD_versionNumber() >= 10507) {
		/* And, from zstd 1.5.7 on, room for all it makes: with less
		 * it takes its streaming path, whose frames then differ from
		 * LLVM's (up to 1.5.6 they do not, and the output streams). */
		size_t cap = ZSTD_compressBound(enc->in.size);
		uint8_t *big = malloc(cap ? cap : 1);

		if (big) {
			ZSTD_outBuffer out = { big, cap, 0 };
			size_t left = ZSTD_compressStream2(enc->zc, &out,
							   &enc->in, ZSTD_e_end);
			int rc = 0;

			if (ZSTD_isError(left))
				rc = err_set(e, "zstd: %s",
					     ZSTD_getErrorName(left));
			else if (left)
				rc = err_set(e, "zstd: the frame did not end");
			else if (out.pos) {
				enc->out += out.pos;
				rc = sink(ctx, big, out.pos, e);
			}
			free(big);
			return rc;
		}
	}
	if (enc->method != CCOB_ZSTD)
		return ccob_encoder_add(enc, (const uint8_t *)src + had,
					avail - had, sink, ctx, e) < 0 ? -1
		       : last ? ccob_encoder_finish(enc, sink, ctx, e) : 0;
	for (;;) {
		ZSTD_EndDirective how = last ? ZSTD_e_end : ZSTD_e_continue;
		ZSTD_outBuffer out = { enc->buf, sizeof(enc->buf), 0 };
		size_t left = ZSTD_compressStream2(enc->zc, &out, &enc->in, how);

		if (ZSTD_isError(left))
			return err_set(e, "zstd: %s", ZSTD_getErrorName(left));
		if (drain(enc, out.pos, sink, ctx, e) < 0)
			return -1;
		if (last ? left == 0 : enc->in.pos == enc->in.size)
			return 0;
	}
}

int ccob_encoder_all(struct ccob_encoder *enc, const void *src, size_t n,
		     ccob_sink sink, void *ctx, struct err *e)
{
	return ccob_encoder_grow(enc, src, n, true, sink, ctx, e);
}

uint64_t ccob_encoder_in(const struct ccob_encoder *enc)
{
	if (enc->method != CCOB_ZSTD)
		return enc->zs.total_in;
	return enc->growing ? enc->in.pos : 0;
}

uint64_t ccob_encoder_reach(const struct ccob_encoder *enc)
{
	/* zstd: its window (2^27 with long-distance matching, for every
	 * level), a block it may hold unconsumed, and slack; zlib copies its
	 * window and never reads back. */
	if (enc->method != CCOB_ZSTD)
		return 0;
	return enc->window + ((uint64_t)1 << 20);
}

uint64_t ccob_encoder_out(const struct ccob_encoder *enc)
{
	return enc->out;
}

void ccob_encoder_free(struct ccob_encoder *enc)
{
	if (!enc)
		return;
	ZSTD_freeCCtx(enc->zc);
	if (enc->zs_ready)
		deflateEnd(&enc->zs);
	free(enc);
}

/* ---- LLVM's -verbose wording ---- */

/* 1234567 -> "1,234,567" */
static const char *thousands(uint64_t v, char *buf)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	int o = 0;

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

static double mib_per_s(uint64_t bytes, double seconds)
{
	return ((double)bytes / 1048576.0) / seconds;
}

static const char *method_name(unsigned m)
{
	return m == CCOB_ZSTD ? "zstd" : "zlib";
}

void ccob_report_compress(char *buf, size_t cap, const struct ccob_stats *s)
{
	char total[32], raw[32], comp[32];
	double rate = (double)s->raw_size / (double)s->compressed_size;

	snprintf(buf, cap,
		 "Compressed bundle format version: %u\n"
		 "Total file size (including headers): %s bytes\n"
		 "Compression method used: %s\n"
		 "Compression level: %d\n"
		 "Binary size before compression: %s bytes\n"
		 "Binary size after compression: %s bytes\n"
		 "Compression rate: %.2f\n"
		 "Compression ratio: %.2f%%\n"
		 "Compression speed: %.2f MB/s\n"
		 "Truncated MD5 hash: 0x%014llx\n",
		 s->version, thousands(s->total_size, total),
		 method_name(s->method), s->level, thousands(s->raw_size, raw),
		 thousands(s->compressed_size, comp), rate, 100.0 / rate,
		 mib_per_s(s->raw_size, s->seconds),
		 (unsigned long long)s->computed_hash);
}

void ccob_report_decompress(char *buf, size_t cap, const struct ccob_stats *s)
{
	char total[64] = "", raw[32], comp[32];
	double rate = (double)s->raw_size / (double)s->compressed_size;
	if (s->version >= 2) {
		char t[32];

		snprintf(total, sizeof(total),
			 "Total file size (from header): %s bytes\n",
			 thousands(s->total_size, t));
	}
	snprintf(buf, cap,
		     "Compressed bundle format version: %u\n"
		     "%s"
		     "Decompression method: %s\n"
		     "Size before decompression: %s bytes\n"
		     "Size after decompression: %s bytes\n"
		     "Compression rate: %.2f\n"
		     "Compression ratio: %.2f%%\n"
		     "Decompression speed: %.2f MB/s\n"
		     "Stored hash: 0x%014llx\n"
		     "Recalculated hash: 0x%014llx\n"
		     "Hashes match: %s\n",
		     s->version, total, method_name(s->method),
		     thousands(s->compressed_size, comp),
		     thousands(s->raw_size, raw), rate, 100.0 / rate,
		     mib_per_s(s->raw_size, s->seconds),
		     (unsigned long long)s->stored_hash,
		     (unsigned long long)s->computed_hash,
		     s->stored_hash == s->computed_hash ? "Yes" : "No");
}

