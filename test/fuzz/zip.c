/* Fuzz target: zip archives (formats/zip.c) read and checked; a sound one
 * is written again as a wheel's prune writes it (each member's headers
 * copied, its CRC, sizes and offsets set anew, the descriptor flag
 * cleared where the member's sizes move into its local header) and must
 * read again to the same members.
 * libFuzzer: -max_len=8192
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../formats/zip.h"

/* z written again, members in the order of their data, descriptors
 * dropped: *len bytes, or NULL when out of memory. */
static uint8_t *rewrite(const struct zip *z, size_t *len)
{
	uint8_t *out = malloc(z->len + 1);
	uint32_t *local = calloc(z->n + 1, sizeof(*local));
	size_t at = 0, central;

	if (!out || !local) {
		free(out);
		free(local);
		return NULL;
	}
	for (size_t k = 0; k < z->n; k++) {
		const struct zip_entry *en = &z->entry[z->by_offset[k]];
		size_t head = (size_t)(en->data - en->local);

		local[z->by_offset[k]] = (uint32_t)at;
		memcpy(out + at, z->buf + en->local, head);
		zip_local_set(out + at, en->crc, en->csize, en->usize);
		at += head;
		memcpy(out + at, z->buf + en->data, en->csize);
		at += en->csize;
	}
	central = at;
	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *en = &z->entry[i];

		memcpy(out + at, z->buf + en->central, en->central_len);
		zip_central_set(out + at, en->crc, en->csize, en->usize);
		zip_central_set_local(out + at, local[i]);
		at += en->central_len;
	}
	memcpy(out + at, z->buf + z->eocd, z->len - z->eocd);
	zip_eocd_set(out + at, (uint32_t)central, (uint32_t)(at - central));
	at += z->len - z->eocd;
	free(local);
	*len = at;
	return out;
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
		FUZZ_CHECK(len <= size);
		FUZZ_CHECK(zip_open(&again, out, len, &e) == 0);
		FUZZ_CHECK(again.n == z.n);
		for (size_t i = 0; i < z.n; i++) {
			FUZZ_CHECK(again.entry[i].name_len == z.entry[i].name_len);
			FUZZ_CHECK(again.entry[i].crc == z.entry[i].crc);
			FUZZ_CHECK(again.entry[i].usize == z.entry[i].usize);
			FUZZ_CHECK(!(again.entry[i].flags & ZIP_FLAG_DESCRIPTOR));
		}
		zip_close(&again);
		free(out);
	}
	zip_close(&z);
	return 0;
}
