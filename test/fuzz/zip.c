/* Fuzz target: zip archives (formats/zip.c) read and checked; a sound one
 * is written again as a wheel's prune writes it (each member's headers
 * made from its own, its CRC, sizes and offsets set anew, ZIP64 fields
 * kept, the descriptor flag cleared where the member's sizes move into
 * its local header) and must read again to the same members.
 * libFuzzer: -max_len=8192
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../formats/zip.h"

/* z written again, members in the order of their data, descriptors
 * dropped: *len bytes, or NULL when out of memory or when a header's
 * extra fields would pass their bound. */
static uint8_t *rewrite(const struct zip *z, size_t *len)
{
	/* A header may grow by a ZIP64 field (28 bytes), the end by the
	 * ZIP64 records. */
	uint8_t *out = malloc(z->len + 28 * (z->n + 1) + ZIP_END_MAX);
	uint64_t *local = calloc(z->n + 1, sizeof(*local));
	uint8_t *head = malloc(ZIP_HEADER_MAX);
	size_t at = 0, central, n;

	if (!out || !local || !head)
		goto fail;
	for (size_t k = 0; k < z->n; k++) {
		const struct zip_entry *en = &z->entry[z->by_offset[k]];

		local[z->by_offset[k]] = at;
		if (!(n = zip_local_make(z, en, en->crc, en->csize, en->usize,
					 head)))
			goto fail;
		memcpy(out + at, head, n);
		at += n;
		memcpy(out + at, z->buf + en->data, en->csize);
		at += en->csize;
	}
	central = at;
	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *en = &z->entry[i];

		if (!(n = zip_central_make(z, en, en->crc, en->csize, en->usize,
					   local[i], true, head)))
			goto fail;
		memcpy(out + at, head, n);
		at += n;
	}
	at += zip_end_make(z, z->n, central, at - central, out + at);
	free(local);
	free(head);
	*len = at;
	return out;
fail:
	free(out);
	free(local);
	free(head);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zip z, again;
	struct err e;
	uint8_t *out;
	size_t len;

	(void)zip_probe(data, size);
	if (zip_open(&z, data, size, &e) < 0) {
		zip_close(&z);
		return 0;
	}
	for (size_t i = 0; i < z.n; i++) {
		fuzz_touch(z.entry[i].name, z.entry[i].name_len);
		fuzz_touch(data + z.entry[i].data, z.entry[i].csize);
	}
	out = rewrite(&z, &len);
	if (out) {
		FUZZ_CHECK(len <= size + 28 * (z.n + 1) + 76);
		FUZZ_CHECK(zip_open(&again, out, len, &e) == 0);
		FUZZ_CHECK(again.n == z.n);
		for (size_t i = 0; i < z.n; i++) {
			FUZZ_CHECK(again.entry[i].name_len == z.entry[i].name_len);
			FUZZ_CHECK(again.entry[i].crc == z.entry[i].crc);
			FUZZ_CHECK(again.entry[i].usize == z.entry[i].usize);
			FUZZ_CHECK(again.entry[i].csize == z.entry[i].csize);
			FUZZ_CHECK(!(again.entry[i].flags & ZIP_FLAG_DESCRIPTOR));
		}
		zip_close(&again);
		free(out);
	}
	zip_close(&z);
	return 0;
}
