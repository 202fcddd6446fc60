/* Fuzz target: the text bundle reader (formats/bundle_text.c).  The first
 * byte picks the comment ("//", "#" or ";") and the walk: --list's (next, skip
 * a line) or --unbundle's (next, content); the rest is the bundle.  LLVM 22
 * loops forever on some damaged text bundles; this reader must not, so the
 * walk is bounded by the input size.
 * libFuzzer: -max_len=4096
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/bundle.h"
#include "../../formats/bundle_text.h"
#include "../../formats/bundle_reader.h"

static const char *const comments[] = { "//", "#", ";" };
static const char END_WORD[] = "__CLANG_OFFLOAD_BUNDLE____END__ ";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bundle_reader r;
	struct bundle_entry ent;
	struct err e;
	const char *comment;
	bool list;
	size_t steps = 0;

	if (size < 1)
		return 0;
	comment = comments[data[0] % 3];
	list = data[0] & 4;
	data++;
	size--;
	bundle_open_text(&r, comment, data, size);
	while (bundle_next(&r, &ent) == 1) {
		uint64_t off, len;

		/* Every entry moves the cursor past at least its START line. */
		FUZZ_CHECK(++steps <= size);
		FUZZ_CHECK((const uint8_t *)ent.id >= data &&
			   ent.id_len <= size - (size_t)((const uint8_t *)ent.id - data));
		fuzz_touch(ent.id, ent.id_len);
		if (list) {
			bundle_skip(&r);
			continue;
		}
		if (bundle_content(&r, &off, &len, &e) < 0)
			break;
		FUZZ_CHECK(off <= size && len <= size - off);
		fuzz_touch(data + off, (size_t)len);
		/* The content stops right before "\n<comment> <END word>". */
		{
			size_t at = (size_t)(off + len), clen = strlen(comment);

			FUZZ_CHECK(size - at >= 2 + clen + strlen(END_WORD));
			FUZZ_CHECK(data[at] == '\n' &&
				   !memcmp(data + at + 1, comment, clen) &&
				   data[at + 1 + clen] == ' ' &&
				   !memcmp(data + at + 2 + clen, END_WORD,
					   strlen(END_WORD)));
		}
	}
	bundle_close(&r);
	return 0;
}
