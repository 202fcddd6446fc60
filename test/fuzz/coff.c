/* Fuzz target: the sections of a COFF object (formats/coff.c) whose names
 * start with .llvm.offloading, and those starting with "" (every section),
 * as the packager reads them: every name and every section's bytes lie in
 * the input, and the two walks agree on the offloading sections.
 * libFuzzer: -max_len=4096
 */
#include <string.h>

#include "fuzz.h"
#include "../../core/sections.h"
#include "../../formats/coff.h"
#include "../../formats/magic.h"

struct seen {
	const uint8_t *base;
	size_t len;
	const char *prefix;
	size_t n;
	uint32_t last;
};

static bool want(void *ctx, const char *name, size_t name_len)
{
	struct seen *s = ctx;
	size_t n = strlen(s->prefix);

	FUZZ_CHECK((const uint8_t *)name >= s->base &&
		   (const uint8_t *)name + name_len <= s->base + s->len);
	fuzz_touch(name, name_len);
	return name_len >= n && !memcmp(name, s->prefix, n);
}

static int each(void *ctx, const struct coff_section *sec, struct err *e)
{
	struct seen *s = ctx;

	(void)e;
	FUZZ_CHECK(want(ctx, sec->name, sec->name_len));
	FUZZ_CHECK(sec->index > s->last);
	FUZZ_CHECK(sec->size <= s->len && sec->offset <= s->len - sec->size);
	fuzz_touch(s->base + sec->offset, (size_t)sec->size);
	s->last = sec->index;
	s->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen offloading = { data, size,
				   sections_name(SECTION_OFFLOADING), 0, 0 };
	struct seen all = { data, size, "", 0, 0 };
	uint16_t machine;
	bool bigobj;
	struct err e;
	int rc1, rc2;

	(void)coff_has_magic(data, size);
	(void)magic_is_object(data, size);	/* coff_is_object for COFF */
	rc1 = coff_sections(data, size, want, each, &offloading, &machine,
			    &bigobj, &e);
	if (rc1 < 0)
		FUZZ_CHECK(e.msg[0] != 0);
	rc2 = coff_sections(data, size, want, each, &all, &machine, &bigobj,
			    &e);
	if (rc2 < 0)
		FUZZ_CHECK(e.msg[0] != 0);
	/* Every section's name is resolved either way: only the bytes of the
	 * sections asked for can fail the walk. */
	if (rc2 == 0)
		FUZZ_CHECK(rc1 == 0 && offloading.n <= all.n);
	return 0;
}
