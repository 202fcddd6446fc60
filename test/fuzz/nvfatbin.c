/* Fuzz target: NVIDIA fatbin containers (formats/nvfatbin.c): the header,
 * every entry, each entry's code (zstd or LZ4 inflated under a 1 MiB
 * limit), and containers one after another as a section holds them.
 * libFuzzer: -max_len=8192
 */
#include <stdlib.h>

#include "fuzz.h"
#include "../../formats/nvfatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = 0;

	while (at < size) {
		struct nvfatbin_header h;
		struct nvfatbin_entry ent;
		uint64_t pos;
		struct err e;
		int rc;

		if (nvfatbin_open(data + at, size - at, &h, &e) < 0)
			return 0;
		FUZZ_CHECK(h.total >= 16 && h.total <= size - at);
		for (pos = h.header_size;
		     (rc = nvfatbin_next(data + at, &h, &pos, &ent, &e)) > 0;) {
			const uint8_t *code;
			uint64_t n;
			uint8_t *owned;

			FUZZ_CHECK(pos <= h.total);
			FUZZ_CHECK(ent.payload_offset + ent.payload_size == pos);
			fuzz_touch(data + at + ent.payload_offset,
				   (size_t)ent.payload_size);
			(void)nvfatbin_kind_name(ent.kind);
			if (nvfatbin_code(data + at, &ent, 1u << 20, &code, &n,
					  &owned, &e) == 0) {
				fuzz_touch(code, (size_t)n);
				if (!owned)
					FUZZ_CHECK(code >= data && code + n <= data + size);
				free(owned);
			} else {
				FUZZ_CHECK(e.msg[0] && !owned);
			}
		}
		if (rc < 0)
			FUZZ_CHECK(e.msg[0] != 0);
		at += (size_t)h.total;
		while (at < size && !data[at])
			at++;
	}
	return 0;
}
