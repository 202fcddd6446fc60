/* Fuzz target: the binary bundle reader (formats/bundle_binary.c), driven as
 * --list and --unbundle drive it: open, every entry's ID, every content.
 * libFuzzer: -max_len=4096
 */
#include "fuzz.h"
#include "../../formats/bundle.h"
#include "../../formats/bundle_binary.h"
#include "../../formats/bundle_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bundle_reader r;
	struct bundle_entry ent;
	struct err e;
	uint32_t seen = 0;

	if (bundle_open_binary(&r, data, size, &e) < 0)
		return 0;
	while (bundle_next(&r, &ent) == 1) {
		uint64_t off, len;

		seen++;
		FUZZ_CHECK(seen <= r.entries.items);
		/* IDs point into the header, which lies inside the input. */
		FUZZ_CHECK((const uint8_t *)ent.id >= data &&
			   ent.id_len <= size - (size_t)((const uint8_t *)ent.id - data));
		fuzz_touch(ent.id, ent.id_len);
		if (bundle_content(&r, &off, &len, &e) < 0)
			continue;
		FUZZ_CHECK(off <= size && len <= size - off);
		fuzz_touch(data + off, (size_t)len);
	}
	FUZZ_CHECK(seen == r.entries.items);
	FUZZ_CHECK(bundle_binary_extent(&r) <= size);
	bundle_close(&r);
	return 0;
}
