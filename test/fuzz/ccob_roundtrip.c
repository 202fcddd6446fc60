/* Fuzz target: what the CCOB encoder writes, the decoder reads back exactly
 * (formats/ccob.c).  The first byte picks zlib or zstd, a small level, the
 * header version and whether the input comes whole or in pieces; the rest is
 * the bundle to compress.  Whole, it is also fed as a growing stable input
 * (ccob_encoder_grow, what compressed bundling does while its inputs are
 * still being gathered), tiled past zstd's 128 KiB blocks when its last
 * byte is odd, which must give the same bytes; and hashed in pieces.
 * A zstd CCOB is then reframed as other writers may frame it (issue 16.3):
 * skippable frames holding "CCOB" before, between and after its frames,
 * and the payload cut into two frames, twice back to back; every such CCOB
 * reads back whole, each ending where its header says, and ccob_extent
 * agrees without decoding.
 * libFuzzer: -max_len=65536
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/ccob.h"
#include "../../formats/ccob_decode.h"

struct sink {
	uint8_t *buf;
	size_t len, cap;
};

static int collect(void *ctx, const void *p, size_t n, struct err *e)
{
	struct sink *s = ctx;

	if (n > s->cap - s->len) {
		size_t cap = (s->cap + n) * 2;
		uint8_t *buf = realloc(s->buf, cap);

		if (!buf)
			return err_set(e, "out of memory");
		s->buf = buf;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

/* ccob_encoder_all's bytes and ccob_encoder_grow's, in steps, agree; the
 * hash in pieces is the hash whole. */
static void check_growing(unsigned method, int level, const uint8_t *data,
			  size_t size, size_t step)
{
	struct sink whole = { 0 }, grown = { 0 };
	struct ccob_encoder *a = ccob_encoder_new(method, level, size, NULL);
	struct ccob_encoder *b = ccob_encoder_new(method, level, size, NULL);
	struct ccob_hasher h;
	size_t have = 0;
	struct err e;

	FUZZ_CHECK(a && b);
	FUZZ_CHECK(ccob_encoder_all(a, data, size, collect, &whole, &e) == 0);
	ccob_hasher_init(&h);
	do {
		size_t next = size - have < step ? size : have + step;

		ccob_hasher_add(&h, data + have, next - have);
		have = next;
		FUZZ_CHECK(ccob_encoder_grow(b, data, have, have == size,
					     collect, &grown, &e) == 0);
	} while (have < size);
	FUZZ_CHECK(ccob_hasher_end(&h) == ccob_hash(data, size));
	FUZZ_CHECK(whole.len == grown.len &&
		   (!whole.len || !memcmp(whole.buf, grown.buf, whole.len)));
	ccob_encoder_free(a);
	ccob_encoder_free(b);
	free(whole.buf);
	free(grown.buf);
}

/* One skippable frame holding "CCOB" and n more bytes of data. */
static void put_skippable(struct sink *s, const uint8_t *data, size_t n)
{
	uint8_t head[8] = { 0x50 + (n & 15), 0x2a, 0x4d, 0x18 };
	struct err e;

	head[4] = (uint8_t)(n + 4);
	head[5] = (uint8_t)((n + 4) >> 8);
	head[6] = (uint8_t)((n + 4) >> 16);
	head[7] = (uint8_t)((n + 4) >> 24);
	FUZZ_CHECK(collect(s, head, 8, &e) == 0 &&
		   collect(s, "CCOB", 4, &e) == 0 &&
		   (!n || collect(s, data, n, &e) == 0));
}

/* A zstd frame of data, appended to s. */
static void put_frame(struct sink *s, int level, const uint8_t *data, size_t n)
{
	struct ccob_encoder *enc = ccob_encoder_new(CCOB_ZSTD, level, n, NULL);
	struct err e;

	FUZZ_CHECK(enc);
	FUZZ_CHECK(ccob_encoder_all(enc, data, n, collect, s, &e) == 0);
	ccob_encoder_free(enc);
}

/* The same bundle framed otherwise: [skip] frame [skip] frame [skip], two
 * such CCOBs back to back; each decodes to the bundle and ends where its
 * header (or, in version 1, its run of frames) says. */
static void check_reframed(unsigned version, int level, const uint8_t *data,
			   size_t size, const struct ccob_limits *limits)
{
	struct sink out = { 0 };
	size_t header = ccob_header_size(version), cut = size / 3;
	size_t skip = size % 9, one, at = 0;
	struct ccob_header h = { version, CCOB_ZSTD, header, 0, size,
				 ccob_hash(data, size) };
	struct err e;

	out.cap = header;
	out.buf = calloc(1, header);
	FUZZ_CHECK(out.buf);
	out.len = header;
	put_skippable(&out, data, skip < size ? skip : size);
	put_frame(&out, level, data, cut);
	put_skippable(&out, data, 0);
	put_frame(&out, level, data + cut, size - cut);
	put_skippable(&out, data + cut, size - cut < 5 ? size - cut : 5);
	one = out.len;
	h.total_size = version >= 2 ? one : 0;
	ccob_write_header(out.buf, &h);
	{
		uint8_t *copy = malloc(one);	/* collect may move out.buf */

		FUZZ_CHECK(copy);
		memcpy(copy, out.buf, one);
		FUZZ_CHECK(collect(&out, copy, one, &e) == 0);
		free(copy);
	}
	for (int i = 0; i < 2; i++) {
		struct ccob_header back;
		uint8_t *raw;
		uint64_t extent;
		size_t used;

		FUZZ_CHECK(ccob_parse_header(out.buf + at, out.len - at, &back,
					     &e) == 0);
		FUZZ_CHECK(ccob_extent(out.buf + at, out.len - at, &back, limits,
				       &extent, &e) == 0);
		FUZZ_CHECK(ccob_decompress(out.buf + at, out.len - at, &back,
					   limits, &raw, &used, NULL, &e) == 0);
		FUZZ_CHECK(used == one && extent == one);
		FUZZ_CHECK(!size || !memcmp(raw, data, size));
		free(raw);
		at += used;
	}
	free(out.buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ccob_limits limits = { .max_ratio = 65536,
						   .max_size = 1u << 20 };
	struct sink out = { 0 };
	struct ccob_encoder *enc;
	struct ccob_header h = { 0 }, back;
	struct err e;
	unsigned method, version;
	int level;
	bool whole;
	uint8_t *raw = NULL;
	size_t used, header;

	if (size < 1)
		return 0;
	method = data[0] & 1 ? CCOB_ZSTD : CCOB_ZLIB;
	whole = data[0] & 2;
	version = 1 + (data[0] >> 2) % 3;
	level = 1 + (data[0] >> 4) % (method == CCOB_ZSTD ? 3 : 9);
	data++;
	size--;

	header = ccob_header_size(version);
	h = (struct ccob_header){ version, method, header, 0, size,
				  ccob_hash(data, size) };
	out.cap = header + 64;
	out.buf = malloc(out.cap);
	FUZZ_CHECK(out.buf);
	out.len = header;
	enc = ccob_encoder_new(method, level, size, &e);
	FUZZ_CHECK(enc);
	if (whole) {
		size_t step = 1 + size % 70001;

		if (size && data[size - 1] & 1) {
			/* Past two zstd blocks, in steps that straddle them. */
			size_t n = 300000 / size * size + size;
			uint8_t *tiled = malloc(n);

			FUZZ_CHECK(tiled);
			for (size_t at = 0; at < n; at += size)
				memcpy(tiled + at, data, size);
			check_growing(method, level, tiled, n, step * 3);
			free(tiled);
		} else {
			check_growing(method, level, data, size, step);
		}
		FUZZ_CHECK(ccob_encoder_all(enc, data, size, collect, &out, &e) == 0);
	} else {
		/* Uneven pieces: 1, 2, 4, ... bytes. */
		size_t off = 0, piece = 1;

		while (off < size) {
			size_t n = piece < size - off ? piece : size - off;

			FUZZ_CHECK(ccob_encoder_add(enc, data + off, n, collect,
						    &out, &e) == 0);
			off += n;
			piece *= 2;
		}
		FUZZ_CHECK(ccob_encoder_finish(enc, collect, &out, &e) == 0);
	}
	FUZZ_CHECK(ccob_encoder_out(enc) == out.len - header);
	ccob_encoder_free(enc);
	h.total_size = out.len;
	ccob_write_header(out.buf, &h);

	FUZZ_CHECK(ccob_is(out.buf, out.len));
	FUZZ_CHECK(ccob_parse_header(out.buf, out.len, &back, &e) == 0);
	FUZZ_CHECK(back.version == version && back.method == method &&
		   back.raw_size == size && back.hash == h.hash &&
		   back.header_size == header);
	FUZZ_CHECK(ccob_decompress(out.buf, out.len, &back, &limits, &raw,
				   &used, NULL, &e) == 0);
	FUZZ_CHECK(used == out.len);
	FUZZ_CHECK(!size || !memcmp(raw, data, size));
	free(raw);
	free(out.buf);
	if (method == CCOB_ZSTD)
		check_reframed(version, level, data, size, &limits);
	return 0;
}
