/* Fuzz target: a kpack archive (formats/kpack.c): header, MessagePack TOC
 * (read where it lies), blobs or zstd frames (each entry's its own,
 * between the header and the TOC), every entry's code under small limits
 * (at most 1 MiB inflated, 64 times the frame's bytes); and the same bytes
 * read as a host binary's .rocm_kpack_ref map and as its
 * .hipFatBinSegment wrappers (each class and byte order,
 * formats/kpack_ref.c).
 * libFuzzer: -max_len=16384
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../formats/kpack.h"
#include "../../formats/kpack_ref.h"

static const struct ccob_limits limits = {
	.max_ratio = 64,
	.max_size = 1u << 20,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kpack k;
	struct kpack_ref r;
	struct err e;

	if (kpack_parse(data, size, &k, &e) == 0) {
		uint64_t stored = 0;

		FUZZ_CHECK(k.version == KPACK_VERSION);
		FUZZ_CHECK(k.n <= KPACK_ENTRIES_MAX &&
			   k.nblobs <= KPACK_ENTRIES_MAX &&
			   k.narches <= KPACK_ARCHES_MAX);
		for (size_t i = 0; i < k.n; i++) {
			const struct kpack_entry *en = &k.v[i];
			uint8_t *code;
			uint64_t n;

			FUZZ_CHECK(en->ordinal < k.nblobs);
			FUZZ_CHECK(en->offset <= size &&
				   en->stored <= size - en->offset);
			/* Between the header and the TOC, each its own: no
			 * byte stored twice (issue 34.5). */
			FUZZ_CHECK(en->offset >= KPACK_HEADER_SIZE &&
				   en->stored <= k.toc_offset - en->offset);
			stored += en->stored;
			FUZZ_CHECK(stored <= k.toc_offset - KPACK_HEADER_SIZE);
			if (en->meta)
				fuzz_touch(en->meta, en->meta_len);
			fuzz_touch(data + en->offset, (size_t)en->stored);
			fuzz_touch(en->key, strlen(en->key));
			fuzz_touch(en->target, strlen(en->target));
			if (kpack_entry_code(data, size, &k, i, &limits, &code,
					     &n, &e) == 0) {
				FUZZ_CHECK(n == en->size);
				fuzz_touch(code, (size_t)n);
				free(code);
			} else {
				FUZZ_CHECK(e.msg[0] && !code);
			}
		}
		(void)kpack_scheme_name(k.scheme);
		kpack_free(&k);
	} else {
		FUZZ_CHECK(e.msg[0]);
	}
	for (int c = 0; c < 4; c++) {
		uint64_t *index;
		size_t nk, nf;

		if (kpack_wrappers(data, size, c & 1, c & 2, &index, &nk, &nf,
				   &e) == 0) {
			FUZZ_CHECK(nk + nf == size / (c & 1 ? 24 : 16));
			free(index);
		} else {
			FUZZ_CHECK(e.msg[0] && !index);
		}
	}
	if (kpack_ref_parse(data, size, &r, &e) == 0) {
		FUZZ_CHECK(r.kernel_name && r.npaths > 0);
		for (size_t i = 0; i < r.npaths; i++)
			fuzz_touch(r.paths[i], strlen(r.paths[i]));
		kpack_ref_free(&r);
	} else {
		FUZZ_CHECK(e.msg[0]);
	}
	return 0;
}
