/* nvfatbin: NVIDIA fat binary containers, headers only; see nvfatbin.h. */
#include <limits.h>
#include <lz4.h>
#include <lz4hc.h>
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
		return err_bad(e, "not an NVIDIA fatbin (no magic 0xBA55ED50)");
	if (len < NVFATBIN_HEADER)
		return err_cut(e, "NVIDIA fatbin header cut short (%zu of 16 "
			       "bytes)", len);
	h->version = (uint16_t)get_le(buf + 4, 2);
	h->header_size = (uint16_t)get_le(buf + 6, 2);
	h->fat_size = get_le(buf + 8, 8);
	if (h->header_size < NVFATBIN_HEADER || h->header_size > len)
		return err_bad(e, "NVIDIA fatbin header size %u is not between "
			       "16 and the %zu bytes there are",
			       h->header_size, len);
	if (h->fat_size > len - h->header_size)
		return err_cut(e, "NVIDIA fatbin declares %llu bytes of entries, "
			       "but only %zu follow its header",
			       (unsigned long long)h->fat_size,
			       len - h->header_size);
	h->total = h->header_size + h->fat_size;
	return 0;
}

/* The (offset, length) pair at field of the entry header p: a string
 * inside the header, past its first 64 bytes, up to its first NUL; left
 * at 0, 0 when it points anywhere else (a field not understood is no
 * reason to refuse the entry). */
static void header_string(const uint8_t *p, uint32_t header_size,
			  unsigned field, uint64_t at, uint64_t *offset,
			  uint32_t *len)
{
	uint32_t off = (uint32_t)get_le(p + field, 4);
	uint32_t n = (uint32_t)get_le(p + field + 4, 4);
	const uint8_t *nul;

	if (!n || off < NVFATBIN_ENTRY_MIN || off > header_size ||
	    n > header_size - off)
		return;
	if ((nul = memchr(p + off, 0, n)))
		n = (uint32_t)(nul - (p + off));
	if (!n)
		return;
	*offset = at + off;
	*len = n;
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
		return err_cut(e, "NVIDIA fatbin entry at offset %llu is cut "
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
		return err_bad(e, "NVIDIA fatbin entry at offset %llu has header "
			       "size %u, not between 64 and the %llu bytes left",
			       (unsigned long long)at, ent->header_size,
			       (unsigned long long)left);
	if (ent->payload_size > left - ent->header_size)
		return err_cut(e, "NVIDIA fatbin entry at offset %llu declares "
			       "%llu payload bytes, but only %llu are left",
			       (unsigned long long)at,
			       (unsigned long long)ent->payload_size,
			       (unsigned long long)(left - ent->header_size));
	if (nvfatbin_compressed(ent) &&
	    ent->compressed_size > ent->payload_size)
		return err_bad(e, "NVIDIA fatbin entry at offset %llu declares "
			       "%u compressed bytes in a %llu-byte payload",
			       (unsigned long long)at, ent->compressed_size,
			       (unsigned long long)ent->payload_size);
	ent->payload_offset = at + ent->header_size;
	*pos = ent->payload_offset + ent->payload_size;
	header_string(p, ent->header_size, 32, at, &ent->ident_offset,
		      &ent->ident_len);
	if (ent->kind == NVFATBIN_PTX && ent->header_size >= 72)
		header_string(p, ent->header_size, 64, at,
			      &ent->options_offset, &ent->options_len);
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

const char *nvfatbin_arch_suffix(const struct nvfatbin_entry *ent)
{
	uint64_t v = ent->flags & (NVFATBIN_FLAG_ARCH_SPECIFIC |
				   NVFATBIN_FLAG_FAMILY);

	return v == NVFATBIN_FLAG_ARCH_SPECIFIC ? "a"
	     : v == NVFATBIN_FLAG_FAMILY ? "f" : "";
}

const char *nvfatbin_producer(const struct nvfatbin_entry *ent)
{
	uint64_t v = ent->flags & (NVFATBIN_FLAG_CUDA | NVFATBIN_FLAG_OPENCL);

	return v == NVFATBIN_FLAG_CUDA ? "cuda"
	     : v == NVFATBIN_FLAG_OPENCL ? "opencl" : NULL;
}

const char *nvfatbin_host(const struct nvfatbin_entry *ent)
{
	uint64_t v = ent->flags & (NVFATBIN_FLAG_LINUX | NVFATBIN_FLAG_MAC |
				   NVFATBIN_FLAG_WINDOWS);

	return v == NVFATBIN_FLAG_LINUX ? "linux"
	     : v == NVFATBIN_FLAG_MAC ? "mac"
	     : v == NVFATBIN_FLAG_WINDOWS ? "windows" : NULL;
}

bool nvfatbin_compressed(const struct nvfatbin_entry *ent)
{
	return (ent->flags & (NVFATBIN_FLAG_LZ4 | NVFATBIN_FLAG_ZSTD)) != 0;
}

/* The payload of a compressed entry inflated into a buffer of exactly the
 * declared size, which the codec must fill.
 *
 * The 0x2000 method is the LZ4 block format as liblz4 reads it (a token of
 * literal and match lengths, 255-continued lengths, 2-byte offsets, the
 * block ending on literals), with no frame around it: the entry header
 * gives both sizes.  nvcc 13's --compress-mode=speed output decodes with
 * LZ4_decompress_safe, which checks every length against both buffers.
 * One LZ4 byte can stand for at most 255 output bytes, so a declared size
 * beyond that is damage, found before anything is allocated. */
static int inflate(const uint8_t *src, const struct nvfatbin_entry *ent,
		   uint64_t max_size, struct nvfatbin_scratch *s,
		   struct err *e)
{
	bool lz4 = (ent->flags & NVFATBIN_FLAG_LZ4) != 0;
	uint64_t want = ent->uncompressed_size, got;
	uint8_t *dst;

	if (lz4 && (ent->flags & NVFATBIN_FLAG_ZSTD))
		return err_code_set(e, ERR_MALFORMED, "entry is flagged as "
				    "compressed both with LZ4 and with zstd");
	if (want > max_size)
		return err_code_set(e, ERR_DECOMPRESS, "entry declares %llu "
				    "uncompressed bytes, more than the limit "
				    "of %llu", (unsigned long long)want,
				    (unsigned long long)max_size);
	if (lz4 && (want > INT_MAX ||
		    want > (uint64_t)ent->compressed_size * 255 + 15))
		return err_code_set(e, ERR_DECOMPRESS, "entry declares %llu "
				    "uncompressed bytes, more than %u bytes "
				    "of LZ4 can hold",
				    (unsigned long long)want,
				    ent->compressed_size);
	/* The buffer of the last entry is kept when it is large enough:
	 * its pages are already ours. */
	if (!s->buf || s->cap < want) {
		free(s->buf);
		s->cap = 0;
		s->buf = malloc(want ? want : 1);
		if (!s->buf)
			return err_nomem(e);
		s->cap = want;
	}
	dst = s->buf;
	if (lz4) {
		int n = LZ4_decompress_safe((const char *)src, (char *)dst,
					    (int)ent->compressed_size,
					    (int)want);

		/* A negative result is minus the input byte it failed at,
		 * less one.  A stream that fills the declared size and goes
		 * on fails too: decoding up to that size tells them apart. */
		if (n < 0 && LZ4_decompress_safe_partial((const char *)src,
				(char *)dst, (int)ent->compressed_size,
				(int)want, (int)want) == (int)want) {
			return err_code_set(e, ERR_DECOMPRESS, "entry "
					    "decompresses to more than the "
					    "%llu bytes its header declares",
					    (unsigned long long)want);
		}
		if (n < 0)
			return err_code_set(e, ERR_DECOMPRESS, "entry does not "
					    "decompress: LZ4: damaged block at "
					    "byte %lld of %u", -(long long)n - 1,
					    ent->compressed_size);
		got = (uint64_t)n;
	} else {
		size_t n;

		/* One context for every entry: making one is a few hundred
		 * KB of tables to allocate and touch. */
		if (!s->zstd && !(s->zstd = ZSTD_createDCtx()))
			return err_nomem(e);
		n = ZSTD_decompressDCtx(s->zstd, dst, (size_t)want, src,
					ent->compressed_size);

		if (ZSTD_isError(n))
			return err_code_set(e, ERR_DECOMPRESS, "entry does not "
					    "decompress: zstd: %s",
					    ZSTD_getErrorName(n));
		got = n;
	}
	if (got != want)
		return err_code_set(e, ERR_TRUNCATED, "entry decompresses to "
				    "%llu bytes, but its header declares %llu",
				    (unsigned long long)got,
				    (unsigned long long)want);
	return 0;
}

int nvfatbin_code(const uint8_t *buf, const struct nvfatbin_entry *ent,
		  uint64_t max_size, const uint8_t **code, uint64_t *size,
		  uint8_t **owned, struct err *e)
{
	struct nvfatbin_scratch s = { 0 };
	int rc = nvfatbin_code_into(buf, ent, max_size, code, size, &s, e);

	ZSTD_freeDCtx(s.zstd);
	*owned = NULL;
	if (rc == 0)
		*owned = s.buf;
	else
		free(s.buf);
	return rc;
}

void nvfatbin_scratch_free(struct nvfatbin_scratch *s)
{
	free(s->buf);
	ZSTD_freeDCtx(s->zstd);
	memset(s, 0, sizeof(*s));
}

int nvfatbin_code_into(const uint8_t *buf, const struct nvfatbin_entry *ent,
		       uint64_t max_size, const uint8_t **code,
		       uint64_t *size, struct nvfatbin_scratch *s,
		       struct err *e)
{
	const uint8_t *src = buf + ent->payload_offset;
	uint64_t n = ent->payload_size;

	if (nvfatbin_compressed(ent)) {
		if (inflate(src, ent, max_size, s, e) < 0)
			return -1;
		src = s->buf;
		n = ent->uncompressed_size;
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

int nvfatbin_compress_entry(const uint8_t *buf,
			    const struct nvfatbin_entry *ent, uint8_t **out,
			    size_t *out_len, struct err *e)
{
	const uint8_t *raw = buf + ent->payload_offset;
	uint64_t raw_len = ent->payload_size, padded;
	uint8_t *o;
	int bound, n;

	*out = NULL;
	*out_len = 0;
	if (nvfatbin_compressed(ent) ||
	    (ent->kind != NVFATBIN_ELF && ent->kind != NVFATBIN_PTX) ||
	    raw_len > LZ4_MAX_INPUT_SIZE || !raw_len)
		return 0;
	/* PTX: its text and the NUL that ends it (the padding after is
	 * not code). */
	if (ent->kind == NVFATBIN_PTX) {
		const uint8_t *nul = memchr(raw, 0, (size_t)raw_len);

		if (nul)
			raw_len = (uint64_t)(nul - raw) + 1;
	}
	bound = LZ4_compressBound((int)raw_len);
	o = malloc(ent->header_size + (size_t)bound + 8);
	if (!o)
		return err_nomem(e);
	n = LZ4_compress_HC((const char *)raw, (char *)o + ent->header_size,
			    (int)raw_len, bound, NVFATBIN_LZ4HC_LEVEL);
	padded = ((uint64_t)n + 7) / 8 * 8;
	if (n <= 0 || padded >= ent->payload_size) {
		free(o);
		return 0;
	}
	memcpy(o, buf + ent->offset, ent->header_size);
	memset(o + ent->header_size + n, 0, (size_t)(padded - (uint64_t)n));
	put_le(o + 8, padded, 8);
	put_le(o + 16, (uint64_t)n, 4);
	put_le(o + 40, ent->flags | NVFATBIN_FLAG_LZ4, 8);
	put_le(o + 56, raw_len, 8);
	*out = o;
	*out_len = ent->header_size + (size_t)padded;
	return 1;
}
