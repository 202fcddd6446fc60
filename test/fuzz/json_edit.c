/* Fuzz target: formats/json_edit.c, the in-place edits of an image's
 * JSON, on what jansson accepts (as ops/image_prune.c uses it): a string
 * value replaced everywhere, a descriptor's size and media type set; the
 * result must be JSON again, every edit a string or a number.
 * libFuzzer: -max_len=4096
 */
#include <jansson.h>
#include <string.h>

#include "fuzz.h"
#include "../../formats/json_edit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_edit ed[] = {
		{ .from = "a", .to = "sha256:bb", .has_size = true, .size = 12345,
		  .media_type = "application/x" },
		{ .from = "sha256:00", .to = "", .has_size = false },
		{ .from = "", .to = "e", .has_size = true, .size = 0 },
	};
	json_error_t jerr;
	json_t *in = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES,
				&jerr), *again;
	char *out;
	size_t out_len, hits;
	struct err e;

	if (!in)
		return 0;
	json_decref(in);
	if (json_edit((const char *)data, size, ed, 3, &out, &out_len, &hits,
		      &e) < 0)
		return 0;
	FUZZ_CHECK(strlen(out) <= out_len);
	FUZZ_CHECK(hits >= ed[0].hits + ed[1].hits + ed[2].hits);
	again = json_loadb(out, out_len, 0, &jerr);
	FUZZ_CHECK(again != NULL);
	json_decref(again);
	free(out);
	return 0;
}
