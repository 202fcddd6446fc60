/* Fuzz target: a fat-binary section walked into its containers
 * (formats/fatbin.c), each binary bundle's header read whole and from every
 * prefix a partial inflation could give (the answers must agree), and the
 * CCOB peek (formats/ccob.c ccob_peek) on each CCOB.  Limits are small:
 * at most 1 MiB inflated, 64 times the compressed bytes.
 * libFuzzer: -max_len=8192
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../formats/fatbin.h"
#include "../../formats/ccob_decode.h"

static const struct ccob_limits limits = {
	.max_ratio = 64,
	.max_size = 1u << 20,
};

static void bundle(const uint8_t *p, size_t n)
{
	struct fatbin_entry *all, *part;
	size_t nall, npart;
	uint64_t hend, ext, hend2, ext2;
	struct err e;
	int rc = fatbin_bundle_entries(p, n, n, &all, &nall, &hend, &ext, &e);

	if (rc <= 0) {
		FUZZ_CHECK(rc < 0 && e.msg[0]);
		return;
	}
	FUZZ_CHECK(hend <= ext && ext <= n);
	for (size_t i = 0; i < nall; i++) {
		FUZZ_CHECK(all[i].offset + all[i].size <= ext);
		fuzz_touch(all[i].id, all[i].id_len);
	}
	/* From a prefix: "more" until the header fits, then the same. */
	for (size_t avail = 0; avail <= n; avail += 1 + avail / 4) {
		rc = fatbin_bundle_entries(p, avail, n, &part, &npart, &hend2,
					   &ext2, &e);
		FUZZ_CHECK(rc >= 0);
		if (rc == 0) {
			FUZZ_CHECK(avail < hend);
			continue;
		}
		FUZZ_CHECK(npart == nall && hend2 == hend && ext2 == ext);
		for (size_t i = 0; i < nall; i++)
			FUZZ_CHECK(part[i].offset == all[i].offset &&
				   part[i].size == all[i].size &&
				   part[i].id_len == all[i].id_len &&
				   !memcmp(part[i].id, all[i].id, all[i].id_len));
		free(part);
	}
	free(all);
}

static void peek(const uint8_t *p, size_t n)
{
	struct ccob_header h;
	uint8_t buf[4096];
	size_t got;
	struct err e;

	if (ccob_parse_header(p, n, &h, &e) < 0)
		return;
	if (ccob_peek(p, n, &h, buf, sizeof(buf), &got, &e) == 0)
		FUZZ_CHECK(got <= sizeof(buf) && got <= h.raw_size);
	else
		FUZZ_CHECK(e.msg[0] != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fatbin_item it;
	uint64_t pos = 0, last = 0;
	struct err e;
	int rc;

	while ((rc = fatbin_next(data, size, &pos, &limits, &it, &e)) > 0) {
		FUZZ_CHECK(it.offset >= last && it.size > 0);
		FUZZ_CHECK(it.offset + it.size == pos && pos <= size);
		if (it.kind == FATBIN_BUNDLE)
			bundle(data + it.offset, (size_t)it.size);
		if (it.kind == FATBIN_CCOB)
			peek(data + it.offset, (size_t)it.size);
		(void)fatbin_item_name(&it);
		last = pos;
	}
	if (rc < 0)
		FUZZ_CHECK(e.msg[0] != 0);
	return 0;
}
