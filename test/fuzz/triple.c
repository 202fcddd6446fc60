/* Fuzz target: triple parsing and normalising (core/triple*.c).  Input: one
 * or two triples, split at the first newline; the first is parsed and
 * normalised in every form, and checked for compatibility with the second.
 * libFuzzer: -max_len=256
 */
#include <string.h>

#include "fuzz.h"
#include "../../core/triple.h"
#include "../../core/triple_impl.h"
#include "../../core/triple_normalize.h"

static void normalise(const char *s, size_t len, enum llvm_release r)
{
	static const int forms[] = { 0, 3, 4 };

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct err e;
		char *norm = triple_normalize(s, len, forms[i], r, &e);
		struct triple t;

		if (!norm) {
			FUZZ_CHECK(e.code == ERR_FATAL || e.code == ERR_NOMEM);
			continue;
		}
		/* The normal form parses, and has exactly the parts asked
		 * for (a NUL in the input would hide some from strlen). */
		triple_parse(norm, strlen(norm), r, &t);
		if (forms[i] && !memchr(s, 0, len)) {
			int dashes = 0;

			for (const char *p = norm; *p; p++)
				dashes += *p == '-';
			FUZZ_CHECK(dashes == forms[i] - 1);
		}
		free(norm);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const uint8_t *nl = memchr(data, '\n', size);
	size_t a_len = nl ? (size_t)(nl - data) : size;
	const char *b = nl ? (const char *)nl + 1 : s;
	size_t b_len = nl ? size - a_len - 1 : size;
	struct triple ta, tb;

	/* The first byte's low bit picks whose rules: 22's or 23's. */
	enum llvm_release r = size && (data[0] & 1) ? LLVM_22 : LLVM_23;

	triple_parse(s, a_len, r, &ta);
	triple_parse(b, b_len, r, &tb);
	normalise(s, a_len, r);
	(void)triple_arch_known(&ta);
	(void)triple_os_is_amdhsa(&ta);
	(void)triple_is_amdgcn(&ta);
	(void)triple_is_nvptx(&ta);
	(void)triple_compatible(&ta, &tb);
	/* Compatible with itself, but for an amdgpu arch of no known
	 * sub-architecture ("amdgpuxx"), which LLVM 23's bundler matches with
	 * nothing, itself included (AMDGPU::isSubArchCompatible). */
	FUZZ_CHECK(triple_compatible(&ta, &ta) || ta.subarch == S_AMDGPU_ODD);
	return 0;
}
