/* Fuzz target: the sections of a COFF object (formats/coff.c) whose names
 * start with .llvm.offloading, and those starting with "" (every section),
 * as the packager reads them: every name and every section's bytes lie in
 * the input, and the two walks agree on the offloading sections.
 * libFuzzer: -max_len=4096
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/coff.h"
#include "../../formats/magic.h"

struct seen {
	const uint8_t *base;
	size_t len;
	const char *prefix;
	size_t n;
};

static int each(void *ctx, const char *name, size_t name_len,
		const uint8_t *data, uint64_t size, struct err *e)
{
	struct seen *s = ctx;

	(void)e;
	FUZZ_CHECK(name_len >= strlen(s->prefix) &&
		   !memcmp(name, s->prefix, strlen(s->prefix)));
	FUZZ_CHECK((const uint8_t *)name >= s->base &&
		   (const uint8_t *)name + name_len <= s->base + s->len);
	FUZZ_CHECK(data >= s->base && size <= s->len &&
		   (size_t)(data - s->base) <= s->len - size);
	fuzz_touch(name, name_len);
	fuzz_touch(data, (size_t)size);
	s->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen offloading = { data, size, ".llvm.offloading", 0 };
	struct seen all = { data, size, "", 0 };
	struct err e;
	int rc1, rc2;

	(void)magic_is_coff_object(data, size);
	rc1 = coff_sections(data, size, offloading.prefix, each, &offloading, &e);
	if (rc1 < 0)
		FUZZ_CHECK(e.msg[0] != 0);
	rc2 = coff_sections(data, size, all.prefix, each, &all, &e);
	if (rc2 < 0)
		FUZZ_CHECK(e.msg[0] != 0);
	/* Every section's name is resolved either way: only the bytes of the
	 * sections asked for can fail the walk. */
	if (rc2 == 0)
		FUZZ_CHECK(rc1 == 0 && offloading.n <= all.n);
	return 0;
}
