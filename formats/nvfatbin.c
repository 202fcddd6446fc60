/* nvfatbin: NVIDIA fat binary containers, headers only; see nvfatbin.h. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "nvfatbin.h"
#include "../core/bytes.h"

bool nvfatbin_is(const uint8_t *buf, size_t len)
{
	return len >= 4 && get_le(buf, 4) == 0xba55ed50;
}

int nvfatbin_open(const uint8_t *buf, size_t len, struct nvfatbin_header *h,
		  struct err *e)
{
	memset(h, 0, sizeof(*h));
	if (!nvfatbin_is(buf, len))
		return err_set(e, "not an NVIDIA fatbin (no magic 0xBA55ED50)");
	if (len < NVFATBIN_HEADER)
		return err_set(e, "NVIDIA fatbin header cut short (%zu of 16 "
			       "bytes)", len);
	h->version = (uint16_t)get_le(buf + 4, 2);
	h->header_size = (uint16_t)get_le(buf + 6, 2);
	h->fat_size = get_le(buf + 8, 8);
	if (h->header_size < NVFATBIN_HEADER || h->header_size > len)
		return err_set(e, "NVIDIA fatbin header size %u is not between "
			       "16 and the %zu bytes there are",
			       h->header_size, len);
	if (h->fat_size > len - h->header_size)
		return err_set(e, "NVIDIA fatbin declares %llu bytes of entries, "
			       "but only %zu follow its header",
			       (unsigned long long)h->fat_size,
			       len - h->header_size);
	h->total = h->header_size + h->fat_size;
	return 0;
}

int nvfatbin_next(const uint8_t *buf, const struct nvfatbin_header *h,
		  uint64_t *pos, struct nvfatbin_entry *ent, struct err *e)
{
	uint64_t at = *pos, end = h->total, left;
	const uint8_t *p;

	memset(ent, 0, sizeof(*ent));
	if (at >= end)
		return 0;
	left = end - at;
	if (left < NVFATBIN_ENTRY_MIN)
		return err_set(e, "NVIDIA fatbin entry at offset %llu is cut "
			       "short (%llu of 64 header bytes)",
			       (unsigned long long)at, (unsigned long long)left);
	p = buf + at;
	ent->offset = at;
	ent->kind = (uint16_t)get_le(p, 2);
	ent->version = (uint16_t)get_le(p + 2, 2);
	ent->header_size = (uint32_t)get_le(p + 4, 4);
	ent->payload_size = get_le(p + 8, 8);
	ent->compressed_size = (uint32_t)get_le(p + 16, 4);
	ent->minor = (uint16_t)get_le(p + 24, 2);
	ent->major = (uint16_t)get_le(p + 26, 2);
	ent->arch = (uint32_t)get_le(p + 28, 4);
	ent->flags = get_le(p + 40, 8);
	ent->uncompressed_size = get_le(p + 56, 8);
	if (ent->header_size < NVFATBIN_ENTRY_MIN || ent->header_size > left)
		return err_set(e, "NVIDIA fatbin entry at offset %llu has header "
			       "size %u, not between 64 and the %llu bytes left",
			       (unsigned long long)at, ent->header_size,
			       (unsigned long long)left);
	if (ent->payload_size > left - ent->header_size)
		return err_set(e, "NVIDIA fatbin entry at offset %llu declares "
			       "%llu payload bytes, but only %llu are left",
			       (unsigned long long)at,
			       (unsigned long long)ent->payload_size,
			       (unsigned long long)(left - ent->header_size));
	if (nvfatbin_compressed(ent) &&
	    ent->compressed_size > ent->payload_size)
		return err_set(e, "NVIDIA fatbin entry at offset %llu declares "
			       "%u compressed bytes in a %llu-byte payload",
			       (unsigned long long)at, ent->compressed_size,
			       (unsigned long long)ent->payload_size);
	ent->payload_offset = at + ent->header_size;
	*pos = ent->payload_offset + ent->payload_size;
	return 1;
}

const char *nvfatbin_kind_name(uint16_t kind)
{
	switch (kind) {
	case NVFATBIN_PTX: return "ptx";
	case NVFATBIN_ELF: return "elf";
	case NVFATBIN_OLD_CUBIN: return "cubin";
	default: return NULL;
	}
}

bool nvfatbin_compressed(const struct nvfatbin_entry *ent)
{
	return (ent->flags & (NVFATBIN_FLAG_LZ4 | NVFATBIN_FLAG_ZSTD)) != 0;
}

int nvfatbin_code(const uint8_t *buf, const struct nvfatbin_entry *ent,
		  uint64_t max_size, const uint8_t **code, uint64_t *size,
		  uint8_t **owned, struct err *e)
{
	const uint8_t *src = buf + ent->payload_offset;
	uint64_t n = ent->payload_size;
	uint8_t *dst;
	size_t got;

	*owned = NULL;
	if (ent->flags & NVFATBIN_FLAG_LZ4)
		return err_set(e, "entry is compressed in NVIDIA's LZ4 variant, "
			       "which is not decoded here");
	if (ent->flags & NVFATBIN_FLAG_ZSTD) {
		if (ent->uncompressed_size > max_size)
			return err_set(e, "entry declares %llu uncompressed bytes, "
				       "more than the limit of %llu",
				       (unsigned long long)ent->uncompressed_size,
				       (unsigned long long)max_size);
		dst = malloc(ent->uncompressed_size ? ent->uncompressed_size : 1);
		if (!dst)
			return err_set(e, "out of memory");
		got = ZSTD_decompress(dst, ent->uncompressed_size, src,
				      ent->compressed_size);
		if (ZSTD_isError(got)) {
			free(dst);
			return err_set(e, "entry does not decompress: zstd: %s",
				       ZSTD_getErrorName(got));
		}
		if (got != ent->uncompressed_size) {
			free(dst);
			return err_set(e, "entry decompresses to %zu bytes, but "
				       "its header declares %llu", got,
				       (unsigned long long)ent->uncompressed_size);
		}
		*owned = dst;
		src = dst;
		n = got;
	}
	if (ent->kind == NVFATBIN_PTX) {
		const uint8_t *nul = memchr(src, 0, (size_t)n);

		if (nul)
			n = (uint64_t)(nul - src);
	}
	*code = src;
	*size = n;
	return 0;
}
