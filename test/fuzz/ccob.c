/* Fuzz target: CCOB headers and decompression (formats/ccob.c), CCOB after
 * CCOB as --list and ccob -d read a concatenation.  The limits are small so
 * that no input can make the fuzzer allocate much: at most 1 MiB, and at most
 * 64 times the compressed bytes.  Where a CCOB ends is found once by its
 * header and frames (ccob_extent, no decoding) and once by decoding it: the
 * two agree (issue 16.3), but for a zlib total size inside the stream.
 * libFuzzer: -max_len=4096
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/ccob.h"
#include "../../formats/ccob_decode.h"

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	FUZZ_CHECK(ctx == NULL);
	FUZZ_CHECK(done <= total);
}

static const struct ccob_limits limits = {
	.max_ratio = 64,
	.max_size = 1u << 20,
	.progress = progress,
};

/* What the streaming decoder hands out, gathered. */
struct copy {
	uint8_t *buf;
	size_t len, used;
	uint64_t hash;
	struct err e;
};

static int take(void *ctx, const void *p, size_t n, struct err *e)
{
	struct copy *c = ctx;
	uint8_t *grown = realloc(c->buf, c->len + n);

	(void)e;
	FUZZ_CHECK(grown != NULL);
	memcpy(grown + c->len, p, n);
	c->buf = grown;
	c->len += n;
	return 0;
}

/* More bytes than the header declares, in LLVM's words (zstd's or zlib's). */
static bool too_much(const struct err *e)
{
	return strstr(e->msg, "Destination buffer is too small") ||
	       strstr(e->msg, "zlib error: Z_BUF_ERROR");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 0;
	struct ccob_header h;
	struct err e;

	/* The header parser does not ask for the magic: feed it anything. */
	if (ccob_parse_header(data, size, &h, &e) == 0) {
		FUZZ_CHECK(h.header_size <= size);
		FUZZ_CHECK(h.method == CCOB_ZLIB || h.method == CCOB_ZSTD);
	}
	while (pos < size && ccob_is(data + pos, size - pos)) {
		const uint8_t *at = data + pos;
		size_t left = size - pos, used = 0;
		uint8_t *raw;
		uint64_t extent, hash;
		struct copy c = { 0 };
		int one, streamed;

		if (ccob_parse_header(at, left, &h, &e) < 0)
			break;
		/* One decoder, two ways out: into a buffer, or in pieces to
		 * a sink; they agree on everything, the error included, but
		 * for data past the declared size: into a full buffer zstd
		 * stops there, into pieces it may first find the block
		 * after it damaged. */
		streamed = ccob_decompress_stream(at, left, &h, &limits, take,
						  &c, &c.used, &c.hash, &c.e);
		one = ccob_decompress(at, left, &h, &limits, &raw, &used, &hash,
				      &e);
		FUZZ_CHECK(one == streamed);
		if (one < 0) {
			FUZZ_CHECK(!strcmp(e.msg, c.e.msg) ||
				   too_much(&e) || too_much(&c.e));
			free(c.buf);
			break;
		}
		FUZZ_CHECK(c.used == used && c.hash == hash &&
			   c.len == h.raw_size &&
			   (!c.len || !memcmp(c.buf, raw, c.len)));
		FUZZ_CHECK(hash == ccob_hash(raw, (size_t)h.raw_size));
		free(c.buf);
		FUZZ_CHECK(ccob_extent(at, left, &h, &limits, &extent, &e) == 0);
		/* But a zlib header's total size that falls inside its
		 * stream is known wrong only once inflated. */
		FUZZ_CHECK(extent == used ||
			   (h.method == CCOB_ZLIB && h.version >= 2 &&
			    extent == h.total_size && extent < used));
		FUZZ_CHECK(h.raw_size <= limits.max_size);
		FUZZ_CHECK(used >= h.header_size && used <= left);
		fuzz_touch(raw, (size_t)h.raw_size);
		free(raw);
		pos += used;
	}
	return 0;
}
