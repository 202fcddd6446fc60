/* ccob_decode: reading CCOBs back.  One decoder per codec serves both
 * ways of taking the bytes: all into one buffer (ccob_decompress) or a
 * piece at a time to a sink (ccob_decompress_stream); the hash is made by
 * a second thread (core/bytepipe) while the decoder goes on.
 *
 * Past 800 lines on purpose: the codecs, where a CCOB ends and the ways
 * of taking the bytes all work on one struct dec and its window, whose
 * bounds are the checks a hostile CCOB meets; split, that state and its
 * invariants would be shared through a header by every part, and read in
 * two places instead of one. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "ccob.h"
#include "ccob_decode.h"
#include "../core/bytes.h"
#include "../core/bytepipe.h"

enum {
	STEP = 8 << 20,		/* input bytes between progress reports */
	SLOT = 1 << 20,		/* bytes handed to a sink at a time */
	RING = 8,		/* slots the hasher may lag behind by */
	THREAD_MIN = 1 << 20,	/* below this, a thread costs more */
};

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

/* ---- the hash, in a thread of its own ---- */

/* MD5 is slower than zstd's decoder: hashed on the main thread it would
 * more than double the time.  Pieces go through a bytepipe to a second
 * thread; a piece's bytes stay put until the pipe has hashed them. */
struct hashpipe {
	struct ccob_hasher h;
	bool on;
	struct bytepipe pipe;
};

static void hash_piece(void *ctx, const uint8_t *p, size_t n)
{
	ccob_hasher_add(ctx, p, n);
}

static void hashpipe_start(struct hashpipe *hp, bool on, uint64_t size)
{
	memset(hp, 0, sizeof(*hp));
	hp->on = on;
	if (!on)
		return;
	ccob_hasher_init(&hp->h);
	bytepipe_start(&hp->pipe, hash_piece, &hp->h, size >= THREAD_MIN);
}

static void hashpipe_push(struct hashpipe *hp, const uint8_t *p, size_t n)
{
	if (hp->on)
		bytepipe_push(&hp->pipe, p, n);
}

/* Wait until the first `upto` bytes pushed are hashed. */
static void hashpipe_wait(struct hashpipe *hp, uint64_t upto)
{
	if (hp->on)
		bytepipe_wait(&hp->pipe, upto);
}

/* Hash what is queued, stop the thread; the hash of everything pushed. */
static uint64_t hashpipe_end(struct hashpipe *hp)
{
	if (!hp->on)
		return 0;
	bytepipe_end(&hp->pipe);
	hp->on = false;
	return ccob_hasher_end(&hp->h);
}

/* ---- where decoded bytes go ---- */

/* Into one buffer of the declared size (whole), or through a ring of
 * slots to a sink, or where the sink's owner places them (place), or
 * nowhere (only counted, and hashed if asked). */
struct dec {
	const struct ccob_header *h;
	const struct ccob_limits *lim;
	uint8_t *whole;
	uint8_t spare[1];	/* past the whole buffer's end (window) */
	uint8_t *ring;
	ccob_place place;
	uint64_t slot_end[RING];	/* produced when each slot was filled */
	unsigned slot;
	ccob_sink sink;
	void *ctx;
	uint64_t produced;
	struct hashpipe hash;
	/* Into the caller's whole buffer (ccob_decompress_into): told what
	 * may leave memory, and at most ROOM decoded per call. */
	ccob_release release;
	uint64_t released;
};

enum {
	ROOM = 4 << 20,		/* bytes decoded at a time into a map */
	LAG = 16 << 20,		/* how far behind the hasher may be */
	NEAR = 1 << 20,		/* what the decoder may still be writing */
};

/* What LLVM's one-shot call (ZSTD_decompress, zlib's uncompress) says of
 * a stream that holds more than the header declares, or of a zlib stream
 * cut short (lim->uncompress_words: as zlib's uncompress() itself). */
static int too_much(const struct dec *d, struct err *e)
{
	bool data = d->lim->uncompress_words && !d->h->raw_size;

	return err_llvm(e, ERR_MALFORMED, "Could not decompress embedded file "
			"contents: %s", d->h->method == CCOB_ZSTD
			? "Destination buffer is too small" : data
			? "zlib error: Z_DATA_ERROR" : "zlib error: Z_BUF_ERROR");
}

static int zlib_cut(const struct dec *d, struct err *e)
{
	bool full = d->lim->uncompress_words && d->h->raw_size &&
		    d->produced == d->h->raw_size;

	return err_llvm(e, ERR_TRUNCATED, "Could not decompress embedded file "
			"contents: zlib error: %s",
			full ? "Z_BUF_ERROR" : "Z_DATA_ERROR");
}

/* The next place to decode into, and its room (NULL: the owner's place
 * failed, e says why).  A ring slot is reused only once the hasher is
 * past what it held. */
static uint8_t *window(struct dec *d, size_t *room, struct err *e)
{
	uint8_t *w;

	if (d->place) {
		w = d->place(d->ctx, room, e);
		if (*room > UINT32_MAX)
			*room = UINT32_MAX;	/* zlib counts in uInt */
		return w;
	}
	if (d->whole) {
		uint64_t left = d->h->raw_size - d->produced;

		/* Full, a byte of room still: zlib then says what comes
		 * next (more bytes, or damage, as LLVM's uncompress finds
		 * it) rather than only that it has no room (the ccob
		 * fuzzer: a zlib CCOB declaring 0 bytes). */
		if (!left) {
			*room = 1;
			return d->spare;
		}
		*room = left > UINT32_MAX ? UINT32_MAX : (size_t)left;
		if (d->release && *room > ROOM)
			*room = ROOM;
		return d->whole + d->produced;
	}
	d->slot = (d->slot + 1) % RING;
	hashpipe_wait(&d->hash, d->slot_end[d->slot]);
	w = d->ring + (size_t)d->slot * SLOT;
	*room = SLOT;
	return w;
}

static int deliver(struct dec *d, const uint8_t *p, size_t n, struct err *e)
{
	uint64_t lag = d->hash.on ? LAG : 0;

	if (!n)
		return 0;
	if (n > d->h->raw_size - d->produced)
		return too_much(d, e);
	hashpipe_push(&d->hash, p, n);
	d->produced += n;
	if (!d->whole)
		d->slot_end[d->slot] = d->produced;
	if (d->sink && d->sink(d->ctx, p, n, e) < 0)
		return -1;
	/* What the sink and the hasher (up to LAG behind, when there is
	 * one) have seen may leave: the decoder reads its window back
	 * through the map. */
	if (d->release && d->produced >= d->released + lag + NEAR + ROOM) {
		uint64_t upto = d->produced - lag - NEAR;

		hashpipe_wait(&d->hash, upto);
		d->release(d->ctx, upto);
		d->released = upto;
	}
	return 0;
}

/* ---- the two codecs ---- */

/* Whether the frame starting at p declares more than the room left: what
 * zstd finds out itself when decoding into the whole buffer (a stable
 * output is checked against each frame's content size as it starts),
 * found out the same way for slots. */
static bool frame_too_big(const uint8_t *p, size_t n, uint64_t room)
{
	ZSTD_frameHeader fh;

	return ZSTD_getFrameHeader(&fh, p, n) == 0 &&
	       fh.frameType != ZSTD_skippableFrame &&
	       fh.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN &&
	       fh.frameContentSize > room;
}

static int window_log_max(uint64_t raw_size)
{
	int log = ZSTD_WINDOWLOG_LIMIT_DEFAULT;

	while (log < ZSTD_WINDOWLOG_MAX && ((uint64_t)1 << log) < raw_size)
		log++;
	return log;
}

/* Whether a frame in src[0, n) declares a window wider than both zstd's
 * default limit and the size the header declares: a crafted frame may
 * claim 2 GiB for a few bytes of content (found by the ccob fuzzer).
 * LLVM's one-shot decoder needs no window and reads it; streamed, zstd
 * would allocate all of it. */
static bool wide_window(const uint8_t *src, size_t n, uint64_t raw_size)
{
	uint64_t limit = (uint64_t)1 << window_log_max(raw_size);

	while (n) {
		ZSTD_frameHeader fh;
		size_t len = ZSTD_findFrameCompressedSize(src, n);

		if (ZSTD_isError(len) || ZSTD_getFrameHeader(&fh, src, n) != 0)
			return false;
		if (fh.frameType != ZSTD_skippableFrame && fh.windowSize > limit)
			return true;
		src += len;
		n -= len;
	}
	return false;
}

/* Every frame of src[0, end), skippable ones passed over, as LLVM reads
 * it.  Into the whole buffer zstd decodes in place (a stable output, no
 * window buffer of its own); into slots it keeps its window. */
static int unzstd(struct dec *d, const uint8_t *src, size_t end, struct err *e)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer in = { src, 0, 0 };
	ZSTD_outBuffer out = { NULL, 0, 0 };
	size_t r = 0, reported = 0, chunk = 64;
	bool frame_start = true;

	if (!dc)
		return err_code_set(e, ERR_NOMEM, "zstd: out of memory");
	if (d->whole) {
		ZSTD_DCtx_setParameter(dc, ZSTD_d_stableOutBuffer, 1);
		out = (ZSTD_outBuffer){ d->whole, (size_t)d->h->raw_size, 0 };
	}
	/* Into slots zstd allocates the window a frame declares: any that
	 * LLVM's levels choose (zstd's default limit, 128 MiB) or up to the
	 * size the header declares (wide_window sends frames declaring more
	 * to the whole buffer).  Into the whole buffer zstd needs no window
	 * of its own. */
	ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax,
			       d->whole ? ZSTD_WINDOWLOG_MAX
				        : window_log_max(d->h->raw_size));
	for (;;) {
		size_t before_in = in.pos, before_out, room;

		if (!d->whole) {
			if (!(out.dst = window(d, &room, e))) {
				ZSTD_freeDCtx(dc);
				return -1;
			}
			out.size = room;
			out.pos = 0;
		}
		before_out = out.pos;
		if (in.pos == in.size && d->release) {
			/* Into a map, about ROOM at a time: a stable output
			 * cannot be cut shorter, so the input is, as the
			 * ratio goes (a run of zeros: 4 bytes a block). */
			in.size = end - in.size > chunk ? in.size + chunk : end;
		} else if (in.pos == in.size) {
			in.size = end - in.size > STEP ? in.size + STEP : end;
		}
		if (!d->whole && frame_start &&
		    frame_too_big(src + in.pos, end - in.pos,
				  d->h->raw_size - d->produced)) {
			r = (size_t)-ZSTD_error_dstSize_tooSmall;
			break;
		}
		r = ZSTD_decompressStream(dc, &out, &in);
		if (ZSTD_isError(r))
			break;
		if (out.pos - before_out > ROOM && chunk > 64)
			chunk /= 2;
		else if (out.pos - before_out < ROOM / 2 && chunk < STEP)
			chunk *= 2;
		frame_start = !r;
		if (deliver(d, (uint8_t *)out.dst + before_out,
			    out.pos - before_out, e) < 0) {
			ZSTD_freeDCtx(dc);
			return -1;
		}
		/* As often as inflating whole reports, a step of input: a
		 * stream's pieces would report far more often, and after the
		 * last entry it handed over. */
		if (d->lim->progress && (in.pos - reported >= STEP ||
					 in.pos == end)) {
			d->lim->progress(d->lim->progress_ctx, in.pos, end);
			reported = in.pos;
		}
		/* All input read: done, or cut short (more output to come
		 * only when this call filled its room). */
		if (in.pos == end && (!r || out.pos < out.size))
			break;
		if (in.pos == before_in && out.pos == before_out)
			break;		/* output full, input left */
	}
	ZSTD_freeDCtx(dc);
	if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ||
	    (!ZSTD_isError(r) && in.pos < end))
		return too_much(d, e);
	if (ZSTD_isError(r))
		return err_llvm(e, ERR_DECOMPRESS, "Could not decompress "
				"embedded file contents: %s",
				ZSTD_getErrorName(r));
	if (r)
		return err_cut(e, "compressed data is cut short");
	return 0;
}

/* One zlib stream from src (what follows it is not read); *consumed is
 * where it ended. */
static int unzlib(struct dec *d, const uint8_t *src, size_t avail,
		  size_t *consumed, struct err *e)
{
	z_stream zs;
	size_t reported = 0;
	int rc = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return err_code_set(e, ERR_NOMEM, "zlib: out of memory");
	zs.next_in = (Bytef *)src;
	for (;;) {
		size_t in_left = avail - (size_t)((const uint8_t *)zs.next_in - src);
		size_t room;
		uint8_t *w = window(d, &room, e);

		if (!w) {
			inflateEnd(&zs);
			return -1;
		}
		if (!zs.avail_in)
			zs.avail_in = in_left > STEP ? STEP : (uInt)in_left;
		zs.next_out = w;
		zs.avail_out = (uInt)room;
		rc = inflate(&zs, Z_NO_FLUSH);
		if (deliver(d, w, room - zs.avail_out, e) < 0) {
			inflateEnd(&zs);
			return -1;
		}
		/* As often as inflating whole reports (see unzstd). */
		if (d->lim->progress &&
		    ((size_t)((const uint8_t *)zs.next_in - src) - reported >=
		     STEP || rc != Z_OK)) {
			reported = (size_t)((const uint8_t *)zs.next_in - src);
			d->lim->progress(d->lim->progress_ctx, reported,
					 avail);
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
	/* No progress with input left: the room was all used. */
	if (rc == Z_BUF_ERROR && *consumed < avail)
		return too_much(d, e);
	if (rc == Z_BUF_ERROR)
		return zlib_cut(d, e);
	return err_llvm(e, ERR_DECOMPRESS, "Could not decompress embedded file "
			"contents: zlib error: %s", zlib_code(rc));
}

/* ---- where a CCOB ends ---- */

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

/* ZSTD_findFrameCompressedSize of the frame at src + at, its block
 * headers walked here when lim wants to hear of the walk (one frame may be
 * the whole CCOB); anything unusual is left to zstd, for its answer. */
static size_t frame_size(const uint8_t *src, size_t at, size_t avail,
			 const struct ccob_limits *lim)
{
	const uint8_t *p = src + at;
	ZSTD_frameHeader fh;
	size_t pos, told = 0;

	if (!lim || !lim->walked || ZSTD_getFrameHeader(&fh, p, avail) != 0 ||
	    fh.frameType == ZSTD_skippableFrame)
		return ZSTD_findFrameCompressedSize(p, avail);
	for (pos = fh.headerSize;;) {
		uint32_t bh;
		unsigned type;
		size_t size;

		if (avail - pos < 3)
			return ZSTD_findFrameCompressedSize(p, avail);
		bh = (uint32_t)get_le(p + pos, 3);
		type = (bh >> 1) & 3;
		size = type == 1 ? 1 : bh >> 3;	/* RLE: one byte */
		if (type == 3 || size > avail - pos - 3)
			return ZSTD_findFrameCompressedSize(p, avail);
		pos += 3 + size;
		if (pos - told >= STEP) {
			lim->walked(lim->progress_ctx, at + pos);
			told = pos;
		}
		if (bh & 1)
			break;
	}
	if (fh.checksumFlag) {
		if (avail - pos < 4)
			return ZSTD_findFrameCompressedSize(p, avail);
		pos += 4;
	}
	return pos;
}

/* The length of the run of whole zstd frames (skippable ones included) at
 * src; *on_mark says whether one of them ends exactly at mark. */
static size_t zstd_run(const uint8_t *src, size_t avail, size_t mark,
		       bool *on_mark, const struct ccob_limits *lim)
{
	size_t pos = 0;

	*on_mark = false;
	while (pos < avail && zstd_magic(src + pos, avail - pos)) {
		size_t n = frame_size(src, pos, avail - pos, lim);

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
			  const struct ccob_header *h, size_t len,
			  const struct ccob_limits *lim)
{
	bool sized = h->version >= 2 && h->total_size > h->header_size &&
		     h->total_size <= len;
	size_t mark = sized ? (size_t)(h->total_size - h->header_size) : 0;
	bool on_mark;
	size_t run = zstd_run(src, avail, mark, &on_mark, lim);

	if (run == avail)
		return avail;
	if (sized && on_mark)
		return mark;
	/* Nothing decodable: all of it, and decoding says why not. */
	return run ? run : avail;
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

/* ---- decompressing ---- */

/* The one decoder both entry points share: d says where bytes go. */
static int decode(struct dec *d, const uint8_t *buf, size_t len,
		  size_t *used, struct err *e)
{
	const struct ccob_header *h = d->h;
	const uint8_t *src = buf + h->header_size;
	size_t avail = len - h->header_size, consumed = 0;

	if (!avail && h->method == CCOB_ZLIB) {
		return zlib_cut(d, e);	/* inflating nothing */
	} else if (!avail && !h->raw_size) {
		/* A header alone: LLVM reads it as an empty bundle. */
	} else if (!avail) {
		/* LLVM reads this as empty too, dropping what was declared. */
		return err_cut(e, "compressed data is missing: the header "
			       "declares %llu bytes and nothing follows it",
			       (unsigned long long)h->raw_size);
	} else if (h->method == CCOB_ZSTD) {
		bool unused;
		size_t run;

		consumed = zstd_extent(src, avail, h, len, d->lim);
		run = zstd_run(src, consumed, 0, &unused, d->lim);
		/* Bytes that are not frames: LLVM's message (its one-shot
		 * call walks the frames first, as this does). */
		if (run < consumed) {
			size_t bad = ZSTD_findFrameCompressedSize(src + run,
								  consumed - run);

			if (!ZSTD_isError(bad))	/* a frame, just not whole */
				bad = (size_t)-ZSTD_error_srcSize_wrong;
			return err_llvm(e, ERR_DECOMPRESS, "Could not decompress "
					"embedded file contents: %s",
					ZSTD_getErrorName(bad));
		}
		if (unzstd(d, src, consumed, e) < 0)
			return -1;
	} else if (unzlib(d, src, avail, &consumed, e) < 0) {
		return -1;
	} else {
		consumed = zlib_extent(h, len, consumed);
	}
	if (d->produced != h->raw_size)
		return err_bad(e, "decompresses to %llu bytes, but its header "
			       "declares %llu", (unsigned long long)d->produced,
			       (unsigned long long)h->raw_size);
	*used = h->header_size + consumed;
	return 0;
}

int ccob_decompress(const uint8_t *buf, size_t len, const struct ccob_header *h,
		    const struct ccob_limits *lim, uint8_t **out, size_t *used,
		    uint64_t *hash, struct err *e)
{
	struct dec d = { .h = h, .lim = lim };
	int rc;

	*out = NULL;
	if (believe(h, len - h->header_size, lim, e) < 0)
		return -1;
	d.whole = malloc(h->raw_size ? (size_t)h->raw_size : 1);
	if (!d.whole)
		return err_code_set(e, ERR_NOMEM, "out of memory for %llu uncompressed bytes",
			       (unsigned long long)h->raw_size);
	hashpipe_start(&d.hash, hash != NULL, h->raw_size);
	rc = decode(&d, buf, len, used, e);
	if (hash)
		*hash = hashpipe_end(&d.hash);
	if (rc < 0) {
		free(d.whole);
		return -1;
	}
	*out = d.whole;
	return 0;
}

/* Decoded whole (memory: the declared size, within the limits), then
 * handed to the sink a slot at a time. */
static int whole_to_sink(const uint8_t *buf, size_t len,
			 const struct ccob_header *h,
			 const struct ccob_limits *lim, ccob_sink sink,
			 void *ctx, size_t *used, uint64_t *hash,
			 struct err *e)
{
	uint8_t *raw;
	int rc = ccob_decompress(buf, len, h, lim, &raw, used, hash, e);

	for (uint64_t at = 0; rc == 0 && sink && at < h->raw_size; at += SLOT)
		rc = sink(ctx, raw + at, h->raw_size - at < SLOT
					 ? (size_t)(h->raw_size - at) : SLOT, e);
	free(raw);	/* (NULL when decoding failed) */
	return rc;
}

int ccob_decompress_stream(const uint8_t *buf, size_t len,
			   const struct ccob_header *h,
			   const struct ccob_limits *lim, ccob_sink sink,
			   void *ctx, size_t *used, uint64_t *hash,
			   struct err *e)
{
	struct dec d = { .h = h, .lim = lim, .sink = sink, .ctx = ctx };
	uint64_t sum;
	int rc;

	if (believe(h, len - h->header_size, lim, e) < 0)
		return -1;
	if (h->method == CCOB_ZSTD &&
	    wide_window(buf + h->header_size, len - h->header_size,
			h->raw_size))
		return whole_to_sink(buf, len, h, lim, sink, ctx, used, hash,
				     e);
	if (!(d.ring = malloc((size_t)RING * SLOT)))
		return err_nomem(e);
	hashpipe_start(&d.hash, hash != NULL, h->raw_size);
	rc = decode(&d, buf, len, used, e);
	sum = hashpipe_end(&d.hash);
	if (hash)
		*hash = sum;
	free(d.ring);
	return rc;
}

int ccob_decompress_into(const uint8_t *buf, size_t len,
			 const struct ccob_header *h,
			 const struct ccob_limits *lim, uint8_t *dst,
			 ccob_sink sink, ccob_release release, void *ctx,
			 size_t *used, uint64_t *hash, struct err *e)
{
	struct dec d = { .h = h, .lim = lim, .whole = dst, .sink = sink,
			 .release = release, .ctx = ctx };
	uint64_t sum;
	int rc;

	if (believe(h, len - h->header_size, lim, e) < 0)
		return -1;
	hashpipe_start(&d.hash, hash != NULL, h->raw_size);
	rc = decode(&d, buf, len, used, e);
	sum = hashpipe_end(&d.hash);
	if (hash)
		*hash = sum;
	return rc;
}

int ccob_decompress_placed(const uint8_t *buf, size_t len,
			   const struct ccob_header *h,
			   const struct ccob_limits *lim, ccob_place place,
			   ccob_sink sink, void *ctx, size_t *used,
			   struct err *e)
{
	struct dec d = { .h = h, .lim = lim, .place = place, .sink = sink,
			 .ctx = ctx };

	if (believe(h, len - h->header_size, lim, e) < 0)
		return -1;
	/* A frame declaring a window wider than the bundle: decoded whole
	 * (see wide_window); the sink copies from there. */
	if (h->method == CCOB_ZSTD &&
	    wide_window(buf + h->header_size, len - h->header_size,
			h->raw_size))
		return whole_to_sink(buf, len, h, lim, sink, ctx, used, NULL,
				     e);
	return decode(&d, buf, len, used, e);
}

uint64_t ccob_window_size(const uint8_t *buf, size_t len,
			  const struct ccob_header *h,
			  const struct ccob_limits *lim)
{
	const uint8_t *src = buf + h->header_size;
	size_t n = len - h->header_size, at = 0;
	uint64_t widest = 0;

	if (h->method != CCOB_ZSTD)
		return (uint64_t)1 << 15;	/* deflate's */
	while (at < n) {
		ZSTD_frameHeader fh;
		size_t flen = frame_size(src, at, n - at, lim);

		if (ZSTD_isError(flen) || !flen ||
		    ZSTD_getFrameHeader(&fh, src + at, n - at) != 0)
			return UINT64_MAX;
		if (fh.frameType != ZSTD_skippableFrame &&
		    fh.windowSize > widest)
			widest = fh.windowSize;
		at += flen;
	}
	return widest;
}

int ccob_extent(const uint8_t *buf, size_t len, const struct ccob_header *h,
		const struct ccob_limits *lim, uint64_t *size, struct err *e)
{
	size_t used;

	if (h->method == CCOB_ZSTD) {
		size_t avail = len - h->header_size;
		size_t end = zstd_extent(buf + h->header_size, avail, h, len,
					 lim);
		bool unused;

		/* Cut short: say so by the size the header declares. */
		if (h->version >= 2 && (h->total_size < h->header_size ||
					h->total_size > len) && avail &&
		    !zstd_run(buf + h->header_size, avail, 0, &unused, lim))
			return err_bad(e, "CCOB total size %llu is not between "
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
	/* Only the stream itself tells where it ends: inflate it to no
	 * sink, a slot at a time. */
	if (ccob_decompress_stream(buf, len, h, lim, NULL, NULL, &used, NULL,
				   e) < 0)
		return -1;
	*size = used;
	return 0;
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
			return err_code_set(e, ERR_NOMEM, "zstd: out of memory");
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
			return err_code_set(e, ERR_NOMEM, "zlib: out of memory");
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
