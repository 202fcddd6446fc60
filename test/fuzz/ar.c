/* Fuzz target: the ar reader (formats/ar.c) and what the archive writer
 * lists for each member (formats/ar_symbols.c, which reads ELF through
 * core/elfscan.c and bitcode through formats/bitcode.c).
 * libFuzzer: -max_len=16384
 */
#include "fuzz.h"
#include "../../formats/ar.h"
#include "../../formats/ar_symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ar_reader r;
	struct ar_member m;
	struct err e;

	ar_validate(data, size, &e);
	if (ar_open(&r, data, size, &e) < 0)
		return 0;
	while (ar_next(&r, &m, &e) == 1) {
		struct ar_symlist l = { 0 };

		fuzz_touch(m.name, m.name_len);
		if (m.thin)
			continue;
		FUZZ_CHECK(m.offset <= size && m.size <= size - m.offset);
		fuzz_touch(data + m.offset, (size_t)m.size);
		if (ar_member_symbols(data + m.offset, (size_t)m.size, &l, &e) == 0)
			fuzz_touch(l.syms, l.len);
		ar_symlist_free(&l);
	}
	return 0;
}
