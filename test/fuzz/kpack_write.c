/* Fuzz target: what the kpack writer (formats/kpack_write.c) writes, the
 * reader (formats/kpack.c) reads back exactly.  The first byte picks the
 * scheme ("none" or zstd-per-kernel at level 1..3), the number of targets
 * (1..3) and whether kernels carry metadata; the rest is cut into kernels
 * at each 0xff byte, each kernel's first byte picking its key (one of 5,
 * so keys repeat and interleave) and its target.  The same key and target
 * twice must be refused; every other set reads back: the TOC's entries in
 * the writer's key order, each with its key, target, ordinal and size, and
 * its code, byte for byte.  Written again as a stream (kpack_stream_*, one
 * kernel at a time, the header and count put in after), the bytes are the
 * same.
 * libFuzzer: -max_len=16384
 */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "../../formats/kpack_write.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const arches[] = { "gfx90a", "gfx1100",
					      "gfx942:xnack+" };
	static const struct ccob_limits limits = { .max_ratio = 1u << 16,
						   .max_size = 1u << 20 };
	static char keys[5][300];
	struct kpack_new v[64];
	const char *kv[4] = { "target", "hipv4-amdgcn-amd-amdhsa--gfx90a",
			      "source_prefix", "stage" };
	struct kpack_write_opts o = { .group_name = "fuzz",
				      .arch_family = "gfx90a",
				      .arches = arches };
	struct sink out = { 0 };
	uint8_t *meta = NULL;
	size_t n = 0, meta_len = 0, at = 1;
	bool twice = false;
	uint32_t first = 0;
	struct kpack k;
	struct err e;

	if (size < 1)
		return 0;
	for (int i = 0; i < 5; i++) {
		/* Short keys, and ones past 31 and 255 bytes (str8, str16). */
		size_t len = i < 3 ? 11 : i == 3 ? 40 : 280, l;

		l = (size_t)snprintf(keys[i], sizeof(keys[i]), "lib/k%d.so#%d",
				     i, i % 2);
		memset(keys[i] + l, 'x', len - l);
		keys[i][len] = 0;
	}
	o.scheme = data[0] & 1 ? KPACK_ZSTD : KPACK_NONE;
	o.level = 1 + (data[0] >> 1) % 3;
	o.narches = 1 + (data[0] >> 3) % 3;
	if (data[0] & 0x80)
		FUZZ_CHECK(kpack_meta_strings(kv, 2, &meta, &meta_len, &e) == 0);
	while (at < size && n < 64) {
		size_t end = at;

		while (end < size && data[end] != 0xff)
			end++;
		v[n] = (struct kpack_new){
			.key = keys[data[at] % 5],
			.arch = arches[(data[at] / 5) % o.narches],
			.code = data + at, .size = end - at,
			.meta = meta, .meta_len = meta_len,
		};
		for (size_t j = 0; j < n; j++)
			twice |= v[j].key == v[n].key && v[j].arch == v[n].arch;
		n++;
		at = end + 1;
	}
	if (kpack_write(v, n, &o, collect, &out, &e) < 0) {
		FUZZ_CHECK(twice && e.msg[0]);
		goto out;
	}
	FUZZ_CHECK(!twice);
	{
		struct kpack_stream st;
		struct sink again = { 0 };
		uint8_t head[KPACK_HEADER_SIZE], count[4];

		FUZZ_CHECK(kpack_stream_begin(&st, &o, collect, &again, &e) == 0);
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(kpack_stream_add(&st, &v[i], collect, &again,
						    &e) == 0);
		FUZZ_CHECK(kpack_stream_end(&st, collect, &again, head, count,
					    &e) == 0);
		kpack_stream_free(&st);
		FUZZ_CHECK(again.len == out.len && again.len >= 68);
		memcpy(again.buf, head, sizeof(head));
		if (o.scheme == KPACK_ZSTD)
			memcpy(again.buf + 64, count, 4);
		FUZZ_CHECK(!memcmp(again.buf, out.buf, out.len));
		free(again.buf);
	}
	FUZZ_CHECK(kpack_parse(out.buf, out.len, &k, &e) == 0);
	FUZZ_CHECK(k.n == n && k.nblobs == n && k.scheme == o.scheme &&
		   k.narches == o.narches);
	for (size_t i = 0; i < k.n; i++) {
		const struct kpack_entry *en = &k.v[i];
		const struct kpack_new *w = &v[en->ordinal];
		uint8_t *code;
		uint64_t got;

		FUZZ_CHECK(en->ordinal < n && !strcmp(en->key, w->key) &&
			   !strcmp(en->target, w->arch) &&
			   !strcmp(en->type, "hsaco") && en->has_size &&
			   en->size == w->size);
		/* Grouped by key, each key where its first kernel came, its
		 * kernels in their order. */
		if (i && !strcmp(k.v[i - 1].key, en->key)) {
			FUZZ_CHECK(k.v[i - 1].ordinal < en->ordinal);
		} else {
			FUZZ_CHECK(!i || first < en->ordinal);
			first = en->ordinal;
		}
		FUZZ_CHECK(kpack_entry_code(out.buf, out.len, &k, i, &limits,
					    &code, &got, &e) == 0);
		FUZZ_CHECK(got == w->size &&
			   (!got || !memcmp(code, w->code, got)));
		free(code);
	}
	kpack_free(&k);
out:
	free(meta);
	free(out.buf);
	return 0;
}
