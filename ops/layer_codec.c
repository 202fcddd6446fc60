/* layer_codec: gzip, zstd, xz and bzip2 layer streams, hashed
 * (layer_codec.h). */
#include <stdlib.h>
#include <string.h>
#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "layer_codec.h"
#include "../core/bytepipe.h"
#include "../core/io_write.h"

static const struct {
	const char *name, *suffix;
	bool oci;	/* a compression OCI image layers may have */
} codecs[] = {
	[LAYER_NONE] = { "none", "", true },
	[LAYER_GZIP] = { "gzip", "+gzip", true },
	[LAYER_ZSTD] = { "zstd", "+zstd", true },
	[LAYER_XZ] = { "xz", "", false },
	[LAYER_DEFLATE] = { "deflate", "", false },
	[LAYER_BZIP2] = { "bzip2", "", false },
};
_Static_assert(sizeof(codecs) / sizeof(codecs[0]) == LAYER_CODECS,
	       "a row per codec");

const char *layer_codec_name(enum layer_codec c)
{
	return codecs[c].name;
}

const char *layer_codec_suffix(enum layer_codec c)
{
	return codecs[c].suffix;
}

bool layer_codec_oci(enum layer_codec c)
{
	return codecs[c].oci;
}

int layer_codec_parse(const char *name, enum layer_codec *c)
{
	for (int i = 0; i < LAYER_CODECS; i++)
		if (!strcmp(name, codecs[i].name)) {
			*c = (enum layer_codec)i;
			return 0;
		}
	return -1;
}

enum layer_codec layer_codec_probe(const uint8_t *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return LAYER_GZIP;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f &&
	    p[3] == 0xfd)
		return LAYER_ZSTD;
	if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
		return LAYER_XZ;
	/* "BZh", the block size, then a block's or the end's magic. */
	if (n >= 10 && !memcmp(p, "BZh", 3) && p[3] >= '1' && p[3] <= '9' &&
	    (!memcmp(p + 4, "\x31\x41\x59\x26\x53\x59", 6) ||
	     !memcmp(p + 4, "\x17\x72\x45\x38\x50\x90", 6)))
		return LAYER_BZIP2;
	return LAYER_NONE;
}

struct layer_reader {
	enum layer_codec codec;
	const uint8_t *blob;
	size_t len, pos;
	z_stream z;
	bool z_open, ended;
	ZSTD_DStream *zd;
	lzma_stream xz;
	bool xz_open;
	bz_stream bz;
	bool bz_open;
	struct sha256 *sha, *blob_sha;
	struct sha256 *mark;	/* sha at the last mark, or NULL */
	struct sha256 *blob_mark;	/* blob_sha at the last mark */
	uint64_t given, mark_len;
	size_t blob_mark_len;
	bool marked;
	bool unhashed;		/* neither tar nor blob hashed: read again */
	/* sha taken on a thread (core/bytepipe, copied), marks among the
	 * bytes; mark_failed when a mark's copy could not be made. */
	struct bytepipe pipe;
	bool piped, mark_failed;
	const struct io_in *in;	/* the blob's map, or NULL */
	size_t done;		/* the bytes of it let go of */
};

/* LET_GO: how much of a mapped blob is let go of at a time; HASH_RING:
 * what a stream may run ahead of its digest's thread. */
enum { LET_GO = 32 << 20, HASH_RING = 1 << 20 };

void layer_reader_mapped(struct layer_reader *r, const struct io_in *in)
{
	r->in = in;
	io_in_hint(in, 0, in->len, IO_IN_WHOLE);
}

int layer_reader_open(struct layer_reader **rp, enum layer_codec c,
		      const uint8_t *blob, size_t len, struct err *e)
{
	return layer_reader_open_threads(rp, c, blob, len, 0, e);
}

int layer_reader_open_threads(struct layer_reader **rp, enum layer_codec c,
			      const uint8_t *blob, size_t len,
			      unsigned threads, struct err *e)
{
	struct layer_reader *r = calloc(1, sizeof(*r));

	*rp = NULL;
	if (!r)
		return err_nomem(e);
	if (!(r->sha = sha256_new(e)) || !(r->blob_sha = sha256_new(e))) {
		layer_reader_close(r);
		return -1;
	}
	r->codec = c;
	r->blob = blob;
	r->len = len;
	switch (c) {
	case LAYER_NONE:
		break;
	case LAYER_GZIP:
	case LAYER_DEFLATE:
		if (inflateInit2(&r->z, c == LAYER_GZIP ? 15 + 16 : -15) != Z_OK)
			goto nomem;
		r->z_open = true;
		break;
	case LAYER_ZSTD:
		if (!(r->zd = ZSTD_createDStream()))
			goto nomem;
		ZSTD_initDStream(r->zd);
		break;
	case LAYER_XZ: {
		/* Blocks decoded on a thread per CPU (dpkg-deb and xz -T0
		 * write many), as many as 128 MiB of buffers holds (a block
		 * is held whole, in and out: dpkg-deb's at level 6 are 24
		 * MiB); one block goes on one.  No limit past that: a
		 * dictionary is at most what xz -9 asks, 64 MiB.  One
		 * thread (threads 1) decodes on the caller's, in the
		 * dictionary's memory alone. */
		lzma_mt mt = {
			.flags = LZMA_CONCATENATED,
			.threads = threads ? threads : lzma_cputhreads(),
			.memlimit_threading = 128u << 20,
			.memlimit_stop = UINT64_MAX,
		};

		if (!mt.threads)
			mt.threads = 1;
		r->xz = (lzma_stream)LZMA_STREAM_INIT;
		if (lzma_stream_decoder_mt(&r->xz, &mt) != LZMA_OK)
			goto nomem;
		r->xz_open = true;
		break;
	}
	case LAYER_BZIP2:
		if (BZ2_bzDecompressInit(&r->bz, 0, 0) != BZ_OK)
			goto nomem;
		r->bz_open = true;
		break;
	}
	*rp = r;
	return 0;
nomem:
	layer_reader_close(r);
	return err_nomem(e);
}

static int gzip_read(struct layer_reader *r, uint8_t *buf, size_t n,
		     size_t *got, struct err *e)
{
	r->z.next_out = buf;
	r->z.avail_out = (uInt)n;
	while (r->z.avail_out && !r->ended) {
		int zr;

		r->z.next_in = (Bytef *)(uintptr_t)(r->blob + r->pos);
		r->z.avail_in = (uInt)(r->len - r->pos > (1u << 30) ?
				       1u << 30 : r->len - r->pos);
		zr = inflate(&r->z, Z_NO_FLUSH);
		r->pos = (size_t)((const uint8_t *)r->z.next_in - r->blob);
		if (zr == Z_STREAM_END) {
			/* gzip members may follow each other; a zip
			 * member's deflate stream is one. */
			if (r->pos == r->len || r->codec == LAYER_DEFLATE)
				r->ended = true;
			else if (inflateReset(&r->z) != Z_OK)
				return err_code_set(e, ERR_DECOMPRESS, "gzip: "
						    "cannot go on");
			continue;
		}
		if (zr == Z_BUF_ERROR && r->pos == r->len)
			return err_cut(e, "gzip stream cut short");
		if (zr != Z_OK)
			return err_code_set(e, ERR_DECOMPRESS, "gzip: %s",
					    r->z.msg ? r->z.msg : "bad data");
	}
	*got = n - r->z.avail_out;
	return 0;
}

static int zstd_read(struct layer_reader *r, uint8_t *buf, size_t n,
		     size_t *got, struct err *e)
{
	ZSTD_outBuffer out = { buf, n, 0 };
	size_t hint = 1;

	while (out.pos < n) {
		ZSTD_inBuffer in = { r->blob, r->len, r->pos };

		if (r->pos == r->len) {
			if (hint)
				return err_cut(e, "zstd stream cut short");
			break;
		}
		hint = ZSTD_decompressStream(r->zd, &out, &in);
		r->pos = in.pos;
		if (ZSTD_isError(hint))
			return err_code_set(e, ERR_DECOMPRESS, "zstd: %s",
					    ZSTD_getErrorName(hint));
		if (!hint && r->pos == r->len)
			break;
	}
	*got = out.pos;
	return 0;
}

static int xz_read(struct layer_reader *r, uint8_t *buf, size_t n,
		   size_t *got, struct err *e)
{
	r->xz.next_out = buf;
	r->xz.avail_out = n;
	while (r->xz.avail_out && !r->ended) {
		lzma_ret xr;

		r->xz.next_in = r->blob + r->pos;
		r->xz.avail_in = r->len - r->pos;
		xr = lzma_code(&r->xz, r->pos == r->len ? LZMA_FINISH
						       : LZMA_RUN);
		r->pos = (size_t)(r->xz.next_in - r->blob);
		if (xr == LZMA_STREAM_END) {
			r->ended = true;
			break;
		}
		/* No progress with all input given and LZMA_FINISH. */
		if (xr == LZMA_BUF_ERROR)
			return err_cut(e, "xz stream cut short");
		if (xr != LZMA_OK)
			return err_code_set(e, ERR_DECOMPRESS, "xz: %s",
					    xr == LZMA_MEM_ERROR ?
					    "out of memory" : "bad data");
	}
	*got = n - r->xz.avail_out;
	return 0;
}

/* bzip2 streams may follow each other (pbzip2 and lbzip2 write such);
 * libbz2 counts in unsigned ints: pieces under 1 GiB. */
static int bzip2_read(struct layer_reader *r, uint8_t *buf, size_t n,
		      size_t *got, struct err *e)
{
	size_t done = 0;

	while (done < n && !r->ended) {
		size_t in_left = r->len - r->pos, out_left = n - done;
		unsigned in_part = in_left > (1u << 30) ? 1u << 30
							: (unsigned)in_left;
		int br;

		r->bz.next_in = (char *)(uintptr_t)(r->blob + r->pos);
		r->bz.avail_in = in_part;
		r->bz.next_out = (char *)buf + done;
		r->bz.avail_out = out_left > (1u << 30) ? 1u << 30
							: (unsigned)out_left;
		br = BZ2_bzDecompress(&r->bz);
		r->pos += in_part - r->bz.avail_in;
		done = (size_t)((uint8_t *)r->bz.next_out - buf);
		if (br == BZ_STREAM_END) {
			BZ2_bzDecompressEnd(&r->bz);
			r->bz_open = false;
			if (r->pos == r->len) {
				r->ended = true;
				break;
			}
			memset(&r->bz, 0, sizeof(r->bz));
			if (BZ2_bzDecompressInit(&r->bz, 0, 0) != BZ_OK)
				return err_nomem(e);
			r->bz_open = true;
			continue;
		}
		if (br != BZ_OK)
			return err_code_set(e, br == BZ_MEM_ERROR ? ERR_NOMEM
					    : ERR_DECOMPRESS, "bzip2: %s",
					    br == BZ_MEM_ERROR ?
					    "out of memory" : "bad data");
		if (r->pos == r->len && done < n)
			return err_cut(e, "bzip2 stream cut short");
	}
	*got = done;
	return 0;
}

int layer_reader_read(void *rp, uint8_t *buf, size_t n, size_t *got,
		      struct err *e)
{
	struct layer_reader *r = rp;
	size_t from = r->pos;
	int rc = 0;

	*got = 0;
	switch (r->codec) {
	case LAYER_NONE:
		*got = r->len - r->pos < n ? r->len - r->pos : n;
		memcpy(buf, r->blob + r->pos, *got);
		r->pos += *got;
		break;
	case LAYER_GZIP:
	case LAYER_DEFLATE:
		rc = gzip_read(r, buf, n, got, e);
		break;
	case LAYER_ZSTD:
		rc = zstd_read(r, buf, n, got, e);
		break;
	case LAYER_XZ:
		rc = xz_read(r, buf, n, got, e);
		break;
	case LAYER_BZIP2:
		rc = bzip2_read(r, buf, n, got, e);
		break;
	}
	if (rc == 0 && !r->unhashed && r->piped)
		bytepipe_push(&r->pipe, buf, *got);
	else if (rc == 0 && !r->unhashed)
		sha256_update(r->sha, buf, *got);
	if (rc == 0)
		r->given += *got;
	if (!r->unhashed)
		sha256_update(r->blob_sha, r->blob + from, r->pos - from);
	/* The blob's bytes read leave our memory when they lie in a mapped
	 * input (an image's blob, a package's member): by address, as the
	 * reader may not know the map. */
	if (r->pos - r->done >= LET_GO) {
		size_t to = r->pos / LET_GO * LET_GO;

		io_in_release(r->blob + r->done, to - r->done);
		r->done = to;
	}
	return rc;
}

void layer_reader_digest(struct layer_reader *r, char *hex)
{
	if (r->piped)
		bytepipe_drain(&r->pipe);
	sha256_hex(r->sha, hex);
}

/* The consumer of its pipe: bytes hashed, a mark (no bytes) copied. */
static void reader_hash(void *ctx, const uint8_t *p, size_t n)
{
	struct layer_reader *r = ctx;

	if (p)
		sha256_update(r->sha, p, n);
	else if (sha256_copy(r->mark, r->sha) < 0)
		r->mark_failed = true;
}

int layer_reader_thread(struct layer_reader *r, struct err *e)
{
	if (!r->mark && !(r->mark = sha256_new(e)))
		return -1;
	bytepipe_start_copied(&r->pipe, reader_hash, r, HASH_RING);
	r->piped = true;
	return 0;
}

int layer_reader_mark(struct layer_reader *r, struct err *e)
{
	if ((!r->mark && !(r->mark = sha256_new(e))) ||
	    (!r->blob_mark && !(r->blob_mark = sha256_new(e))))
		return -1;
	if (sha256_copy(r->blob_mark, r->blob_sha) < 0)
		return err_nomem(e);
	if (r->piped)
		bytepipe_mark(&r->pipe);
	else if (sha256_copy(r->mark, r->sha) < 0)
		return err_nomem(e);
	r->mark_len = r->given;
	r->blob_mark_len = r->pos;
	r->marked = true;
	return 0;
}

bool layer_reader_marked(struct layer_reader *r, struct layer_mark *m)
{
	if (!r->marked)
		return false;
	if (r->piped)
		bytepipe_drain(&r->pipe);
	if (r->mark_failed)
		return false;
	m->len = r->mark_len;
	m->tar = r->mark;
	m->blob_len = r->blob_mark_len;
	sha256_hex(r->blob_mark, m->blob_hex);
	return true;
}

int layer_reader_again(const struct layer_reader *r,
		       struct layer_reader **again, struct err *e)
{
	if (layer_reader_open(again, r->codec, r->blob, r->len, e) < 0)
		return -1;
	(*again)->unhashed = true;
	return 0;
}

size_t layer_reader_blob_read(const struct layer_reader *r,
			      const uint8_t **blob)
{
	*blob = r->blob;
	return r->pos;
}

uint64_t layer_reader_given(const struct layer_reader *r)
{
	return r->given;
}

void layer_reader_blob_digest(struct layer_reader *r, char *hex)
{
	sha256_update(r->blob_sha, r->blob + r->pos, r->len - r->pos);
	r->pos = r->len;
	sha256_hex(r->blob_sha, hex);
}

void layer_reader_close(struct layer_reader *r)
{
	if (!r)
		return;
	if (r->z_open)
		inflateEnd(&r->z);
	ZSTD_freeDStream(r->zd);
	if (r->xz_open)
		lzma_end(&r->xz);
	if (r->bz_open)
		BZ2_bzDecompressEnd(&r->bz);
	if (r->piped)
		bytepipe_end(&r->pipe);
	sha256_free(r->sha);
	sha256_free(r->blob_sha);
	sha256_free(r->mark);
	sha256_free(r->blob_mark);
	free(r);
}

enum { OUT_CHUNK = 128 * 1024 };

struct layer_writer {
	enum layer_codec codec;
	struct io_out *out;
	z_stream z;
	bool z_open;
	ZSTD_CStream *zc;
	lzma_stream xz;
	bool xz_open;
	bz_stream bz;
	bool bz_open;
	struct sha256 *tar_sha, *blob_sha;
	struct bytepipe pipe;	/* tar_sha taken on a thread, if piped */
	bool piped;
	uint64_t known;		/* bytes yet to come whose digest it has */
	uint64_t size;
	uint8_t *buf;
};

static int emit(struct layer_writer *w, const uint8_t *p, size_t n,
		struct err *e)
{
	sha256_update(w->blob_sha, p, n);
	w->size += n;
	return io_out_write(w->out, p, n, e);
}

/* xz as dpkg-deb compresses (lib/dpkg/compress.c, filter_lzma_init):
 * level (0: 6, xz's and dpkg's default), liblzma's default block size
 * (three dictionaries: 24 MiB at level 6), a thread per CPU
 * (lzma_cputhreads), as many as fit in half the physical memory
 * (dpkg-deb's bound when it cannot read MemAvailable; the threads'
 * count moves no byte of the output, the block size does).  A thread
 * at level 6 costs 165 MiB by liblzma's count: a bound of 330 MiB, as
 * this had, was 2^18 bytes short of two threads and ran one. */
int layer_xz_encoder(lzma_stream *xz, int level, lzma_check check)
{
	lzma_mt mt = {
		.threads = lzma_cputhreads(),
		.preset = (uint32_t)(level ? level : 6),
		.check = check,
	};
	uint64_t limit = lzma_physmem() / 2;

	if (!limit)
		limit = 128u << 20;
	if (!mt.threads)
		mt.threads = 1;
	while (mt.threads > 1 &&
	       lzma_stream_encoder_mt_memusage(&mt) >= limit)
		mt.threads--;
	return lzma_stream_encoder_mt(xz, &mt) == LZMA_OK ? 0 : -1;
}

/* dpkg-deb's check, CRC64. */
static int xz_open(struct layer_writer *w, int level)
{
	w->xz = (lzma_stream)LZMA_STREAM_INIT;
	if (layer_xz_encoder(&w->xz, level, LZMA_CHECK_CRC64) < 0)
		return -1;
	w->xz_open = true;
	return 0;
}

int layer_writer_open(struct layer_writer **wp, enum layer_codec c, int level,
		      struct io_out *out, struct err *e)
{
	struct layer_writer *w = calloc(1, sizeof(*w));

	*wp = NULL;
	if (!w)
		return err_nomem(e);
	if (!(w->tar_sha = sha256_new(e)) || !(w->blob_sha = sha256_new(e))) {
		layer_writer_close(w);
		return -1;
	}
	if (!(w->buf = malloc(OUT_CHUNK)))
		goto nomem;
	w->codec = c;
	w->out = out;
	switch (c) {
	case LAYER_NONE:
		break;
	case LAYER_GZIP:
	case LAYER_DEFLATE:
		if (deflateInit2(&w->z, level ? level : 6, Z_DEFLATED,
				 c == LAYER_GZIP ? 15 + 16 : -15,
				 8, Z_DEFAULT_STRATEGY) != Z_OK)
			goto nomem;
		w->z_open = true;
		break;
	case LAYER_ZSTD:
		if (!(w->zc = ZSTD_createCStream()) ||
		    ZSTD_isError(ZSTD_initCStream(w->zc, level ? level : 3)))
			goto nomem;
		break;
	case LAYER_XZ:
		if (xz_open(w, level) < 0)
			goto nomem;
		break;
	case LAYER_BZIP2:
		if (BZ2_bzCompressInit(&w->bz, level ? level : 9, 0, 0) != BZ_OK)
			goto nomem;
		w->bz_open = true;
		break;
	}
	*wp = w;
	return 0;
nomem:
	layer_writer_close(w);
	return err_nomem(e);
}

static void writer_hash(void *ctx, const uint8_t *p, size_t n)
{
	sha256_update(ctx, p, n);
}

int layer_writer_threads(struct layer_writer *w, unsigned threads,
			 struct err *e)
{
	size_t r;

	if (!w->piped) {
		bytepipe_start_copied(&w->pipe, writer_hash, w->tar_sha,
				      HASH_RING);
		w->piped = true;
	}
	if (w->codec != LAYER_ZSTD)
		return 0;
	r = ZSTD_CCtx_setParameter(w->zc, ZSTD_c_nbWorkers,
				   threads ? (int)threads : 1);
	if (ZSTD_isError(r))
		return err_code_set(e, ERR_DECOMPRESS, "zstd: %s",
				    ZSTD_getErrorName(r));
	return 0;
}

static int gzip_write(struct layer_writer *w, const uint8_t *buf, size_t n,
		      int flush, struct err *e)
{
	int zr;

	w->z.next_in = (Bytef *)(uintptr_t)buf;
	w->z.avail_in = (uInt)n;
	do {
		w->z.next_out = w->buf;
		w->z.avail_out = OUT_CHUNK;
		zr = deflate(&w->z, flush);
		if (zr == Z_STREAM_ERROR)
			return err_code_set(e, ERR_DECOMPRESS, "gzip: cannot "
					    "compress");
		if (emit(w, w->buf, OUT_CHUNK - w->z.avail_out, e) < 0)
			return -1;
	} while (w->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

static int zstd_write(struct layer_writer *w, const uint8_t *buf, size_t n,
		      bool end, struct err *e)
{
	ZSTD_inBuffer in = { buf, n, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { w->buf, OUT_CHUNK, 0 };

		left = end ? ZSTD_endStream(w->zc, &out)
			   : ZSTD_compressStream(w->zc, &out, &in);
		if (ZSTD_isError(left))
			return err_code_set(e, ERR_DECOMPRESS, "zstd: %s",
					    ZSTD_getErrorName(left));
		if (emit(w, w->buf, out.pos, e) < 0)
			return -1;
	} while (end ? left != 0 : in.pos < in.size);
	return 0;
}

static int xz_write(struct layer_writer *w, const uint8_t *buf, size_t n,
		    bool end, struct err *e)
{
	lzma_ret xr;

	w->xz.next_in = buf;
	w->xz.avail_in = n;
	do {
		w->xz.next_out = w->buf;
		w->xz.avail_out = OUT_CHUNK;
		xr = lzma_code(&w->xz, end ? LZMA_FINISH : LZMA_RUN);
		if (xr != LZMA_OK && xr != LZMA_STREAM_END)
			return err_code_set(e, ERR_DECOMPRESS, "xz: cannot "
					    "compress");
		if (emit(w, w->buf, OUT_CHUNK - w->xz.avail_out, e) < 0)
			return -1;
	} while (end ? xr != LZMA_STREAM_END
		     : w->xz.avail_in || !w->xz.avail_out);
	return 0;
}

static int bzip2_write(struct layer_writer *w, const uint8_t *buf, size_t n,
		       bool end, struct err *e)
{
	int br;

	w->bz.next_in = (char *)(uintptr_t)buf;
	w->bz.avail_in = (unsigned)n;
	do {
		w->bz.next_out = (char *)w->buf;
		w->bz.avail_out = OUT_CHUNK;
		br = BZ2_bzCompress(&w->bz, end ? BZ_FINISH : BZ_RUN);
		if (br != BZ_RUN_OK && br != BZ_FINISH_OK && br != BZ_STREAM_END)
			return err_code_set(e, ERR_DECOMPRESS, "bzip2: cannot "
					    "compress");
		if (emit(w, w->buf, OUT_CHUNK - w->bz.avail_out, e) < 0)
			return -1;
	} while (end ? br != BZ_STREAM_END : w->bz.avail_in > 0);
	return 0;
}

int layer_writer_known(struct layer_writer *w, const struct sha256 *tar,
		       uint64_t len, struct err *e)
{
	if (sha256_copy(w->tar_sha, tar) < 0)
		return err_nomem(e);
	w->known = len;
	return 0;
}

int layer_writer_write(void *wp, const uint8_t *buf, size_t n, struct err *e)
{
	struct layer_writer *w = wp;
	size_t known = w->known < n ? (size_t)w->known : n;

	w->known -= known;
	if (w->piped)
		bytepipe_push(&w->pipe, buf + known, n - known);
	else
		sha256_update(w->tar_sha, buf + known, n - known);
	switch (w->codec) {
	case LAYER_NONE:
		return emit(w, buf, n, e);
	case LAYER_GZIP:
	case LAYER_DEFLATE:
		/* zlib counts in uInt: pieces under 1 GiB. */
		while (n) {
			size_t part = n > (1u << 30) ? 1u << 30 : n;

			if (gzip_write(w, buf, part, Z_NO_FLUSH, e) < 0)
				return -1;
			buf += part;
			n -= part;
		}
		return 0;
	case LAYER_ZSTD:
		return zstd_write(w, buf, n, false, e);
	case LAYER_XZ:
		return xz_write(w, buf, n, false, e);
	case LAYER_BZIP2:
		while (n) {
			size_t part = n > (1u << 30) ? 1u << 30 : n;

			if (bzip2_write(w, buf, part, false, e) < 0)
				return -1;
			buf += part;
			n -= part;
		}
		return 0;
	}
	return 0;
}

int layer_writer_finish(struct layer_writer *w, char *diff_hex,
			char *blob_hex, uint64_t *blob_size, struct err *e)
{
	int rc = 0;

	switch (w->codec) {
	case LAYER_NONE:
		break;
	case LAYER_GZIP:
	case LAYER_DEFLATE:
		rc = gzip_write(w, NULL, 0, Z_FINISH, e);
		break;
	case LAYER_ZSTD:
		rc = zstd_write(w, NULL, 0, true, e);
		break;
	case LAYER_XZ:
		rc = xz_write(w, NULL, 0, true, e);
		break;
	case LAYER_BZIP2:
		rc = bzip2_write(w, NULL, 0, true, e);
		break;
	}
	if (rc < 0)
		return -1;
	if (w->piped)
		bytepipe_drain(&w->pipe);
	sha256_hex(w->tar_sha, diff_hex);
	sha256_hex(w->blob_sha, blob_hex);
	*blob_size = w->size;
	return 0;
}

void layer_writer_close(struct layer_writer *w)
{
	if (!w)
		return;
	if (w->z_open)
		deflateEnd(&w->z);
	ZSTD_freeCStream(w->zc);
	if (w->xz_open)
		lzma_end(&w->xz);
	if (w->bz_open)
		BZ2_bzCompressEnd(&w->bz);
	if (w->piped)
		bytepipe_end(&w->pipe);
	sha256_free(w->tar_sha);
	sha256_free(w->blob_sha);
	free(w->buf);
	free(w);
}
