/* ccob: compressed offload bundles ("CCOB").  The codecs are zstd and zlib,
 * the hash libmd's MD5 (ccob_pieces.c); this file frames them as LLVM 22 does. */
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
		return err_set(e, "Compressed bundle header size too small");
	h->version = (unsigned)get_le(buf + 4, 2);
	h->method = (unsigned)get_le(buf + 6, 2);
	h->header_size = ccob_header_size(h->version);
	if (!h->header_size || len < h->header_size)
		return err_set(e, "Compressed bundle header size too small");
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
		return err_set(e, "Unknown compressing method");
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


/* ---- compression ---- */

struct ccob_encoder {
	unsigned method;
	ZSTD_CCtx *zc;
	ZSTD_inBuffer in;	/* the growing input (ccob_encoder_grow) */
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
		err_set(e, "out of memory");
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
		 * as LLVM's ZSTD_compress2 does; such an input may grow
		 * between calls, and zstd cuts the same 128 KiB blocks from
		 * it whatever each call adds, so the frame is the one-shot
		 * frame.  The output still streams. */
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

/* ---- decompression ---- */

static const char *zlib_code(int rc)
{
	switch (rc) {
	case Z_DATA_ERROR: return "Z_DATA_ERROR";
	case Z_MEM_ERROR: return "Z_MEM_ERROR";
	case Z_BUF_ERROR: return "Z_BUF_ERROR";
	case Z_STREAM_ERROR: return "Z_STREAM_ERROR";
	case Z_NEED_DICT: return "Z_NEED_DICT";
	default: return "Z_UNKNOWN_ERROR";
	}
}

enum { STEP = 8 << 20 };	/* input bytes between progress reports */

/* Both decoders work in steps so progress can be reported, and write
 * straight into the caller's buffer of exactly the declared size. */
static int inflate_one(const uint8_t *src, size_t avail, uint8_t *dst,
		       uint64_t raw, const struct ccob_limits *lim,
		       size_t *consumed, uint64_t *produced, struct err *e)
{
	z_stream zs;
	int rc = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return err_set(e, "zlib: out of memory");
	zs.next_in = (Bytef *)src;
	zs.next_out = dst;
	while (rc == Z_OK) {
		size_t in_left = avail - (size_t)((const uint8_t *)zs.next_in - src);
		uint64_t out_left = raw - (uint64_t)(zs.next_out - dst);

		zs.avail_in = in_left > STEP ? STEP : (uInt)in_left;
		zs.avail_out = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
		rc = inflate(&zs, Z_NO_FLUSH);
		if (lim->progress)
			lim->progress((uint64_t)((const uint8_t *)zs.next_in - src),
				      avail);
		if (rc == Z_BUF_ERROR && zs.avail_in == 0 &&
		    (const uint8_t *)zs.next_in - src < (ptrdiff_t)avail)
			rc = Z_OK;		/* just out of this step's input */
	}
	*consumed = (size_t)((const uint8_t *)zs.next_in - src);
	*produced = (uint64_t)(zs.next_out - dst);
	inflateEnd(&zs);
	if (rc == Z_STREAM_END)
		return 0;
	if (rc == Z_BUF_ERROR && *produced == raw)
		return err_set(e, "decompresses to more than the %llu bytes its "
			       "header declares", (unsigned long long)raw);
	if (rc == Z_BUF_ERROR)
		return err_set(e, "compressed data is cut short");
	return err_llvm(e, ERR_DECOMPRESS, "Could not decompress embedded file contents: "
		       "zlib error: %s", zlib_code(rc));
}

/* Does a zstd frame, skippable or not, begin at p? */
static bool zstd_magic(const uint8_t *p, size_t n)
{
	uint32_t m;

	if (n < 4)
		return false;
	m = (uint32_t)get_le(p, 4);
	return m == ZSTD_MAGICNUMBER ||
	       (m & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START;
}

/* The length of the run of whole zstd frames (skippable ones included) at
 * src; *on_mark says whether one of them ends exactly at mark. */
static size_t zstd_run(const uint8_t *src, size_t avail, size_t mark,
		       bool *on_mark)
{
	size_t pos = 0;

	*on_mark = false;
	while (pos < avail && zstd_magic(src + pos, avail - pos)) {
		size_t n = ZSTD_findFrameCompressedSize(src + pos, avail - pos);

		if (ZSTD_isError(n) || !n)
			break;
		pos += n;
		if (pos == mark)
			*on_mark = true;
	}
	return pos;
}

/* How many of the avail bytes after the header belong to a zstd CCOB,
 * without decoding them.  LLVM 22 decodes everything after the header as
 * zstd frames, one after another (ZSTD_decompress), and never reads the
 * total size; so when the rest of the input is nothing but frames, all of
 * it is the CCOB.  Otherwise a version 2 or 3 CCOB ends at its total size,
 * when that is the end of one of its frames, and any other CCOB (version 1,
 * or a total size that is not) at the end of the run of frames after its
 * header: the next CCOB, zero padding or anything else begins where a
 * frame could not.  Nothing is ever found by searching for "CCOB". */
static size_t zstd_extent(const uint8_t *src, size_t avail,
			  const struct ccob_header *h, size_t len)
{
	bool sized = h->version >= 2 && h->total_size > h->header_size &&
		     h->total_size <= len;
	size_t mark = sized ? (size_t)(h->total_size - h->header_size) : 0;
	bool on_mark;
	size_t run = zstd_run(src, avail, mark, &on_mark);

	if (run == avail)
		return avail;
	if (sized && on_mark)
		return mark;
	/* Nothing decodable: all of it, and decoding says why not. */
	return run ? run : avail;
}

/* Decode every frame of src[0, end) straight into dst, exactly raw bytes. */
static int unzstd_frames(const uint8_t *src, size_t end, uint8_t *dst,
			 uint64_t raw, const struct ccob_limits *lim,
			 uint64_t *produced, struct err *e)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer in = { src, 0, 0 };
	ZSTD_outBuffer out = { dst, (size_t)raw, 0 };
	size_t r = 0;

	if (!dc)
		return err_set(e, "zstd: out of memory");
	/* LLVM's message for bytes that are not frames (its one-shot call
	 * walks the frames first, as this does). */
	{
		bool unused;
		size_t run = zstd_run(src, end, 0, &unused);

		if (run < end) {
			size_t bad = ZSTD_findFrameCompressedSize(src + run,
								  end - run);

			ZSTD_freeDCtx(dc);
			*produced = 0;
			if (!ZSTD_isError(bad))	/* a frame, just not whole */
				bad = (size_t)-ZSTD_error_srcSize_wrong;
			return err_llvm(e, ERR_DECOMPRESS, "Could not decompress "
					"embedded file contents: %s",
					ZSTD_getErrorName(bad));
		}
	}
	/* Decode straight into dst (no window buffer of our own), and accept
	 * any window LLVM's levels may choose.  Frame after frame: the
	 * streaming decoder starts the next one where one ends, and passes
	 * over skippable frames. */
	ZSTD_DCtx_setParameter(dc, ZSTD_d_stableOutBuffer, 1);
	ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX);
	while (in.pos < end) {
		size_t before = in.pos, before_out = out.pos;

		if (in.pos == in.size)
			in.size = end - in.size > STEP ? in.size + STEP : end;
		r = ZSTD_decompressStream(dc, &out, &in);
		if (ZSTD_isError(r))
			break;
		if (lim->progress)
			lim->progress(in.pos, end);
		if (in.pos == before && out.pos == before_out)
			break;		/* output full, input left */
	}
	ZSTD_freeDCtx(dc);
	*produced = out.pos;
	if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ||
	    (!ZSTD_isError(r) && in.pos < end))
		return err_set(e, "decompresses to more than the %llu bytes its "
			       "header declares", (unsigned long long)raw);
	if (ZSTD_isError(r))
		return err_llvm(e, ERR_DECOMPRESS, "Could not decompress embedded file contents: "
			       "%s", ZSTD_getErrorName(r));
	if (r)
		return err_set(e, "compressed data is cut short");
	return 0;
}

/* A zlib CCOB is one stream, and LLVM ignores what follows it: a version 2
 * or 3 CCOB runs to its total size when that is at or past the stream's
 * end, any other to the stream's end. */
static size_t zlib_extent(const struct ccob_header *h, size_t len,
			  size_t stream)
{
	if (h->version >= 2 && h->total_size >= h->header_size + stream &&
	    h->total_size <= len)
		return (size_t)h->total_size - h->header_size;
	return stream;
}

int ccob_extent(const uint8_t *buf, size_t len, const struct ccob_header *h,
		const struct ccob_limits *lim, uint64_t *size, struct err *e)
{
	uint8_t *raw;
	size_t used;

	if (h->method == CCOB_ZSTD) {
		size_t avail = len - h->header_size;
		size_t end = zstd_extent(buf + h->header_size, avail, h, len);
		bool unused;

		/* Cut short: say so by the size the header declares. */
		if (h->version >= 2 && (h->total_size < h->header_size ||
					h->total_size > len) && avail &&
		    !zstd_run(buf + h->header_size, avail, 0, &unused))
			return err_set(e, "CCOB total size %llu is not between "
				       "its %zu-byte header and the %zu bytes "
				       "left", (unsigned long long)h->total_size,
				       h->header_size, len);
		*size = h->header_size + end;
		return 0;
	}
	/* A total size inside the stream is found out only by inflating it
	 * (and then the stream's end counts, as LLVM reads it). */
	if (h->version >= 2 && h->total_size >= h->header_size &&
	    h->total_size <= len) {
		*size = h->total_size;
		return 0;
	}
	/* Only the stream itself tells where it ends. */
	if (ccob_decompress(buf, len, h, lim, &raw, &used, e) < 0)
		return -1;
	free(raw);
	*size = used;
	return 0;
}

/* Whether h's declared size is within lim for avail compressed bytes. */
static int believe(const struct ccob_header *h, size_t avail,
		   const struct ccob_limits *lim, struct err *e)
{
	if (h->raw_size > lim->max_size)
		return err_set(e, "header declares %llu uncompressed bytes, more "
			       "than the limit of %llu",
			       (unsigned long long)h->raw_size,
			       (unsigned long long)lim->max_size);
	if (h->raw_size / lim->max_ratio > avail + 64)
		return err_set(e, "header declares %llu uncompressed bytes from "
			       "%zu compressed ones, beyond a ratio of %llu:1",
			       (unsigned long long)h->raw_size, avail,
			       (unsigned long long)lim->max_ratio);
	return 0;
}

int ccob_decompress(const uint8_t *buf, size_t len, const struct ccob_header *h,
		    const struct ccob_limits *lim, uint8_t **out, size_t *used,
		    struct err *e)
{
	const uint8_t *src = buf + h->header_size;
	size_t avail = len - h->header_size, consumed = 0;
	uint64_t produced = 0;
	uint8_t *dst;

	*out = NULL;
	if (believe(h, avail, lim, e) < 0)
		return -1;
	dst = malloc(h->raw_size ? (size_t)h->raw_size : 1);
	if (!dst)
		return err_set(e, "out of memory for %llu uncompressed bytes",
			       (unsigned long long)h->raw_size);
	if (!avail && !h->raw_size) {
		/* A header alone: LLVM reads it as an empty bundle. */
	} else if (!avail) {
		/* LLVM reads this as empty too, dropping what was declared. */
		err_set(e, "compressed data is missing: the header declares "
			"%llu bytes and nothing follows it",
			(unsigned long long)h->raw_size);
		goto fail;
	} else if (h->method == CCOB_ZSTD) {
		consumed = zstd_extent(src, avail, h, len);
		if (unzstd_frames(src, consumed, dst, h->raw_size, lim,
				  &produced, e) < 0)
			goto fail;
	} else if (inflate_one(src, avail, dst, h->raw_size, lim, &consumed,
			       &produced, e) < 0) {
		goto fail;
	} else {
		consumed = zlib_extent(h, len, consumed);
	}
	if (produced != h->raw_size) {
		err_set(e, "decompresses to %llu bytes, but its header declares "
			"%llu", (unsigned long long)produced,
			(unsigned long long)h->raw_size);
		goto fail;
	}
	*out = dst;
	*used = h->header_size + consumed;
	return 0;
fail:
	free(dst);
	return -1;
}

/* ---- decompression in pieces ---- */

enum { PIECE = 1 << 20 };	/* bytes handed to the sink at a time */

struct stream {
	const struct ccob_header *h;
	ccob_sink sink;
	void *ctx;
	struct ccob_pieces *pieces;
	uint64_t produced;
};

static int emit_piece(struct stream *st, const uint8_t *p, size_t n,
		      struct err *e)
{
	if (!n)
		return 0;
	if (n > st->h->raw_size - st->produced)
		return err_set(e, "decompresses to more than the %llu bytes its "
			       "header declares",
			       (unsigned long long)st->h->raw_size);
	ccob_pieces_filled(st->pieces, n);
	st->produced += n;
	return st->sink(st->ctx, p, n, e);
}

static int unzstd_pieces(struct stream *st, const uint8_t *src, size_t frame,
			 const struct ccob_limits *lim, struct err *e)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer in = { src, 0, 0 };
	size_t r = 1, reported = 0;
	int rc = 0;

	if (!dc)
		return err_set(e, "zstd: out of memory");
	ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX);
	/* Frame after frame (skippable ones passed over), as LLVM reads it. */
	while (r || in.pos < frame) {
		uint8_t *piece = ccob_pieces_next(st->pieces);
		ZSTD_outBuffer out = { piece, PIECE, 0 };

		if (in.pos == in.size)
			in.size = frame - in.size > STEP ? in.size + STEP : frame;
		r = ZSTD_decompressStream(dc, &out, &in);
		if (ZSTD_isError(r))
			break;
		if ((rc = emit_piece(st, piece, out.pos, e)) < 0)
			break;
		/* As often as inflating whole reports: a step of input. */
		if (lim->progress && (in.pos - reported >= STEP ||
				      in.pos == frame)) {
			lim->progress(in.pos, frame);
			reported = in.pos;
		}
		if (r && in.pos == frame && out.pos < out.size)
			break;		/* no input left, frame not done */
	}
	ZSTD_freeDCtx(dc);
	if (rc < 0)
		return -1;
	if (ZSTD_isError(r))
		return err_llvm(e, ERR_DECOMPRESS, "Could not decompress embedded "
				"file contents: %s", ZSTD_getErrorName(r));
	if (r)
		return err_set(e, "compressed data is cut short");
	return 0;
}

static int inflate_pieces(struct stream *st, const uint8_t *src, size_t avail,
			  const struct ccob_limits *lim, size_t *consumed,
			  struct err *e)
{
	z_stream zs;
	size_t reported = 0;
	int rc = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return err_set(e, "zlib: out of memory");
	zs.next_in = (Bytef *)src;
	for (;;) {
		size_t in_left = avail - (size_t)((const uint8_t *)zs.next_in - src);
		uint8_t *piece = ccob_pieces_next(st->pieces);

		if (!zs.avail_in)
			zs.avail_in = in_left > STEP ? STEP : (uInt)in_left;
		zs.next_out = piece;
		zs.avail_out = PIECE;
		rc = inflate(&zs, Z_NO_FLUSH);
		if (emit_piece(st, piece, PIECE - zs.avail_out, e) < 0) {
			inflateEnd(&zs);
			return -1;
		}
		/* As often as inflating whole reports: a step of input. */
		if (lim->progress && ((size_t)((const uint8_t *)zs.next_in - src)
				      - reported >= STEP || rc != Z_OK)) {
			reported = (size_t)((const uint8_t *)zs.next_in - src);
			lim->progress(reported, avail);
		}
		if (rc == Z_BUF_ERROR && zs.avail_in == 0 &&
		    (const uint8_t *)zs.next_in - src < (ptrdiff_t)avail)
			rc = Z_OK;		/* just out of this step's input */
		if (rc != Z_OK)
			break;
	}
	*consumed = (size_t)((const uint8_t *)zs.next_in - src);
	inflateEnd(&zs);
	if (rc == Z_STREAM_END)
		return 0;
	if (rc == Z_BUF_ERROR)
		return err_set(e, "compressed data is cut short");
	return err_llvm(e, ERR_DECOMPRESS, "Could not decompress embedded file "
			"contents: zlib error: %s", zlib_code(rc));
}

int ccob_decompress_stream(const uint8_t *buf, size_t len,
			   const struct ccob_header *h,
			   const struct ccob_limits *lim, ccob_sink sink,
			   void *ctx, size_t *used, uint64_t *hash,
			   struct err *e)
{
	const uint8_t *src = buf + h->header_size;
	size_t avail = len - h->header_size, consumed = 0;
	struct stream st = { .h = h, .sink = sink, .ctx = ctx };
	int rc = -1;

	if (believe(h, avail, lim, e) < 0)
		return -1;
	/* A thread hashes what is inflated beside the inflating, when there
	 * is enough of it to be worth one. */
	if (!(st.pieces = ccob_pieces_new(PIECE, h->raw_size > 4 * PIECE)))
		return err_set(e, "out of memory");
	if (!avail && !h->raw_size) {
		/* A header alone: LLVM reads it as an empty bundle. */
	} else if (!avail) {
		err_set(e, "compressed data is missing: the header declares "
			"%llu bytes and nothing follows it",
			(unsigned long long)h->raw_size);
		goto out;
	} else if (h->method == CCOB_ZSTD) {
		size_t frame = zstd_extent(src, avail, h, len);
		bool unused;
		size_t run = zstd_run(src, frame, 0, &unused);

		/* Bytes that are not frames: LLVM's message, as whole. */
		if (run < frame) {
			size_t bad = ZSTD_findFrameCompressedSize(src + run,
								  frame - run);

			if (!ZSTD_isError(bad))	/* a frame, just not whole */
				bad = (size_t)-ZSTD_error_srcSize_wrong;
			err_llvm(e, ERR_DECOMPRESS, "Could not decompress "
				 "embedded file contents: %s",
				 ZSTD_getErrorName(bad));
			goto out;
		}
		if (unzstd_pieces(&st, src, frame, lim, e) < 0)
			goto out;
		consumed = frame;
	} else if (inflate_pieces(&st, src, avail, lim, &consumed, e) < 0) {
		goto out;
	}
	if (st.produced != h->raw_size) {
		err_set(e, "decompresses to %llu bytes, but its header declares "
			"%llu", (unsigned long long)st.produced,
			(unsigned long long)h->raw_size);
		goto out;
	}
	*used = h->header_size + consumed;
	rc = 0;
out:
	if (!rc)
		*hash = ccob_pieces_end(st.pieces);
	else
		ccob_pieces_end(st.pieces);
	return rc;
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

/* ---- a look inside without inflating everything ---- */

int ccob_peek(const uint8_t *buf, size_t len, const struct ccob_header *h,
	      uint8_t *out, size_t want, size_t *got, struct err *e)
{
	const uint8_t *src = buf + h->header_size;
	size_t avail = len - h->header_size;

	*got = 0;
	if (want > h->raw_size)
		want = (size_t)h->raw_size;
	if (want > UINT32_MAX)
		want = UINT32_MAX;	/* zlib counts in uInt */
	if (!want || !avail)
		return 0;
	if (h->method == CCOB_ZSTD) {
		ZSTD_DCtx *dc = ZSTD_createDCtx();
		ZSTD_inBuffer in = { src, avail, 0 };
		ZSTD_outBuffer o = { out, want, 0 };
		size_t r = 0;
		bool ended = false;

		if (!dc)
			return err_set(e, "zstd: out of memory");
		/* Streaming into a small buffer, zstd allocates the window the
		 * frame declares: refuse more than zstd's default limit (128
		 * MiB, what LLVM's frames need at most) rather than let a
		 * crafted header claim 2 GiB (found by the inspect fuzzer). */
		ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax,
				       ZSTD_WINDOWLOG_LIMIT_DEFAULT);
		/* Frame after frame, skippable ones passed over, until a frame
		 * ends where no other begins (the CCOB's end, as in
		 * zstd_extent). */
		while (o.pos < o.size && !ZSTD_isError(r)) {
			size_t before_in = in.pos, before_out = o.pos;

			if (ended && !zstd_magic(src + in.pos, avail - in.pos))
				break;
			r = ZSTD_decompressStream(dc, &o, &in);
			ended = !r;
			if (!ZSTD_isError(r) && in.pos == before_in &&
			    o.pos == before_out)
				break;		/* input gone */
		}
		ZSTD_freeDCtx(dc);
		*got = o.pos;
		if (ZSTD_isError(r))
			return err_llvm(e, ERR_DECOMPRESS, "Could not decompress embedded file "
				       "contents: %s", ZSTD_getErrorName(r));
		return 0;
	} else {
		z_stream zs;
		int rc = Z_OK;

		memset(&zs, 0, sizeof(zs));
		if (inflateInit(&zs) != Z_OK)
			return err_set(e, "zlib: out of memory");
		zs.next_in = (Bytef *)src;
		zs.avail_in = avail > UINT32_MAX ? UINT32_MAX : (uInt)avail;
		zs.next_out = out;
		zs.avail_out = (uInt)want;
		while (rc == Z_OK && zs.avail_out)
			rc = inflate(&zs, Z_NO_FLUSH);
		*got = want - zs.avail_out;
		inflateEnd(&zs);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
			return err_llvm(e, ERR_DECOMPRESS, "Could not decompress embedded file "
				       "contents: zlib error: %s", zlib_code(rc));
		return 0;
	}
}
