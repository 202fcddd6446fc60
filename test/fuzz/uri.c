/* Fuzz target: code object URIs (core/uri.c): what uri_file writes,
 * uri_parse reads back; anything else is read or refused, never overrun.
 * libFuzzer: -max_len=512
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../core/uri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *made;
	struct uri u;
	struct err e;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	(void)uri_is_uri(s);
	if (uri_parse(s, &u, &e) == 0)
		uri_free(&u);
	else
		FUZZ_CHECK(e.msg[0] != 0);
	/* Any non-empty path survives the round trip (up to its NUL). */
	if (size > 16 && s[16]) {
		uint64_t off, len;

		memcpy(&off, data, 8);
		memcpy(&len, data + 8, 8);
		made = uri_file(s + 16, off, len);
		FUZZ_CHECK(made != NULL);
		FUZZ_CHECK(uri_parse(made, &u, &e) == 0);
		FUZZ_CHECK(!strcmp(u.path, s + 16) && u.offset == off &&
			   u.size == len && u.has_size);
		uri_free(&u);
		free(made);
	}
	free(s);
	return 0;
}
