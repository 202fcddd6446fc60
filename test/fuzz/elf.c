/* Fuzz target: ELF reading and rewriting (core/elfscan.c, core/elfcopy.c,
 * formats/bundle_object.c): the section table, the offload sections, the
 * archive symbols, the bundle entries, and llvm-objcopy's rewrite with a
 * section added and with the bundle sections removed (to /dev/null).
 * libFuzzer: -max_len=8192
 */
#include <elf.h>
#include <string.h>

#include "fuzz.h"
#include "../../core/elfcopy.h"
#include "../../core/elfscan.h"
#include "../../formats/bundle.h"

static int count_symbol(void *ctx, const char *name, size_t len)
{
	fuzz_touch(name, len);
	++*(size_t *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t zero[1];
	struct elfcopy_add add = {
		.name = BUNDLE_MAGIC "host-x86_64-unknown-linux-gnu-",
		.data = zero, .size = 1, .type = SHT_PROGBITS,
		.flags = SHF_EXCLUDE, .align = 1, .set_existing = true,
	};
	struct bundle_reader r;
	struct bundle_entry ent;
	struct elfscan s;
	struct io_out out = { .fd = -1 };
	struct err e;
	size_t nsyms = 0;

	if (elfscan_open(&s, data, size, &e) < 0)
		return 0;
	for (size_t i = 1; i < s.n; i++) {
		uint64_t len;
		const uint8_t *p = elfscan_bytes(&s, data, i, &len);

		fuzz_touch(s.sec[i].name, s.sec[i].name_len + 1);
		FUZZ_CHECK(s.sec[i].name[s.sec[i].name_len] == 0);
		if (len)
			FUZZ_CHECK(p >= data && len <= size - (size_t)(p - data));
		fuzz_touch(p, (size_t)len);
	}
	elfscan_free(&s);
	elfscan_symbols(data, size, count_symbol, &nsyms, &e);
	if (bundle_open_object(&r, data, size, &e) == 0) {
		while (bundle_next(&r, &ent) == 1) {
			uint64_t off, len;

			fuzz_touch(ent.id, ent.id_len);
			if (bundle_content(&r, &off, &len, &e) == 0 && len) {
				FUZZ_CHECK(off <= size && len <= size - off);
				fuzz_touch(data + off, (size_t)len);
			}
		}
		bundle_close(&r);
	}
	if (io_out_open(&out, "/dev/null", &e) == 0) {
		elfcopy_write(data, size, NULL, NULL, &add, 1, &out, &e);
		io_out_discard(&out);
	}
	if (io_out_open(&out, "/dev/null", &e) == 0) {
		bundle_strip_object(data, size, &out, &e);
		io_out_discard(&out);
	}
	return 0;
}
