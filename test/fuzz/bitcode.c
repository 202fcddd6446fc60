/* Fuzz target: the bitcode IR symbol-table reader (formats/bitcode.c):
 * every symbol, and the names an archive's symbol table would list.
 * libFuzzer: -max_len=16384
 */
#include "fuzz.h"
#include "../../formats/bitcode.h"

static int touch_name(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	fuzz_touch(name, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bitcode_symtab t;
	struct err e;

	bitcode_validate(data, size, &e);
	if (bitcode_symtab_open(&t, data, size, &e) == 0)
		for (uint32_t i = 0; i < t.nsyms; i++) {
			struct bitcode_symbol s;

			if (bitcode_symbol(&t, i, &s, &e) < 0)
				break;
			fuzz_touch(s.name, s.name_len);
			fuzz_touch(s.ir_name, s.ir_name_len);
		}
	bitcode_archive_symbols(data, size, touch_name, NULL, &e);
	return 0;
}
