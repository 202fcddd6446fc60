/* Fuzz target: what the CCOB encoder writes, the decoder reads back exactly
 * (formats/ccob.c).  The first byte picks zlib or zstd, a small level, the
 * header version and whether the input comes whole or in pieces; the rest is
 * the bundle to compress.  Whole, it is also fed as a growing stable input
 * (ccob_encoder_grow, what compressed bundling does while its inputs are
 * still being gathered), tiled past zstd's 128 KiB blocks when its last
 * byte is odd, which must give the same bytes; and hashed in pieces.
 * libFuzzer: -max_len=65536
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/ccob.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ccob_limits limits = { 65536, 1u << 20, NULL };
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
				   &used, &e) == 0);
	FUZZ_CHECK(used == out.len);
	FUZZ_CHECK(!size || !memcmp(raw, data, size));
	free(raw);
	free(out.buf);
	return 0;
}
