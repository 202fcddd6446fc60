/* nvfatbin: NVIDIA's fat binary container, as nvcc -fatbin writes it and
 * .nv_fatbin and __nv_relfatbin sections hold it.
 *
 * NVIDIA documents none of this.  What is decoded here is only what public
 * readers of the format agree on (ZLUDA, Niklas Eiling's
 * cuda-fatbin-decompression, and others), checked against nvcc 13 output;
 * every other field is left alone and shown as unknown.  All little endian.
 *
 *   container  0  u32 magic 0xBA55ED50, u16 version (1), u16 header size
 *                 (16), u64 bytes of entries after the header
 *   entry      0  u16 kind (1 PTX, 2 ELF, 4 old cubin), u16 version (0x101),
 *                 u32 header size, u64 payload size (as stored, padded)
 *             16  u32 compressed size (0 when not compressed)
 *             24  u16 minor, u16 major (of what is not established; for
 *                 PTX the PTX ISA version), u32 arch (80 for sm_80)
 *             32  u32 offset (from the entry header) and u32 length of
 *                 the identifier: the source file's path, which nvcc -G
 *                 writes (0, 0 without one)
 *             40  u64 flags: 0x1 64-bit, 0x2 debug, 0x4 made for CUDA,
 *                 0x8 for OpenCL (fatbinary --cuda, --opencl: cuobjdump's
 *                 "producer"), 0x10 Linux, 0x20 Mac, 0x40 Windows,
 *                 0x2000 compressed (an LZ4 block), 0x8000
 *                 compressed (zstd), 0x100000 arch-specific code
 *                 (sm_90a: nvcc 13 sets it for -arch sm_90a and
 *                 compute_90a), 0x200000 family code (sm_103f)
 *             56  u64 uncompressed size (0 when not compressed)
 *             64  (headers of 72 bytes or more) u32 offset and u32
 *                 length of more: for PTX, the ptxas options as a string
 *                 (nvcc -G, -Xptxas; cuobjdump's "ptxasOptions")
 *   then the payload; the next entry follows it.  Several containers may
 *   follow one another in a section, zero padding between them. */
#ifndef FORMATS_NVFATBIN_H
#define FORMATS_NVFATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

enum {
	NVFATBIN_HEADER = 16,
	NVFATBIN_ENTRY_MIN = 64,	/* the fields above end at 64 */
};

enum nvfatbin_kind {
	NVFATBIN_PTX = 1,
	NVFATBIN_ELF = 2,
	NVFATBIN_OLD_CUBIN = 4,
};

enum nvfatbin_flag {
	NVFATBIN_FLAG_64BIT = 0x1,
	NVFATBIN_FLAG_DEBUG = 0x2,
	NVFATBIN_FLAG_CUDA = 0x4,
	NVFATBIN_FLAG_OPENCL = 0x8,
	NVFATBIN_FLAG_LINUX = 0x10,
	NVFATBIN_FLAG_MAC = 0x20,
	NVFATBIN_FLAG_WINDOWS = 0x40,
	NVFATBIN_FLAG_LZ4 = 0x2000,
	NVFATBIN_FLAG_ZSTD = 0x8000,
	NVFATBIN_FLAG_ARCH_SPECIFIC = 0x100000,
	NVFATBIN_FLAG_FAMILY = 0x200000,
};
#define NVFATBIN_FLAGS_KNOWN 0x30a07fULL

struct nvfatbin_header {
	uint16_t version, header_size;
	uint64_t fat_size;	/* bytes of entries after the header */
	uint64_t total;		/* header_size + fat_size: the container */
};

struct nvfatbin_entry {
	uint64_t offset;		/* of its header, in the container */
	uint16_t kind, version;
	uint32_t header_size;
	uint64_t payload_offset;	/* in the container */
	uint64_t payload_size;		/* as stored */
	uint32_t compressed_size;
	uint16_t major, minor;
	uint32_t arch;
	uint64_t flags;
	uint64_t uncompressed_size;
	/* Where in the container the identifier and, for PTX, the ptxas
	 * options are: offset 0 when there are none, or when the header
	 * points outside itself. */
	uint64_t ident_offset, options_offset;
	uint32_t ident_len, options_len;
};

bool nvfatbin_is(const uint8_t *buf, size_t len);	/* starts with the magic */
/* Check the container header at buf: its size fields, and that the whole
 * container lies inside buf[0, len). */
int nvfatbin_open(const uint8_t *buf, size_t len, struct nvfatbin_header *h,
		  struct err *e);
/* The entry at *pos (start at h->header_size), moving *pos past it: 1 found, 0 at the end, -1 on an entry that does not
 * fit the container. */
int nvfatbin_next(const uint8_t *buf, const struct nvfatbin_header *h,
		  uint64_t *pos, struct nvfatbin_entry *ent, struct err *e);
/* "ptx", "elf", "cubin" (old), or NULL for a kind not established. */
const char *nvfatbin_kind_name(uint16_t kind);
bool nvfatbin_compressed(const struct nvfatbin_entry *ent);
/* "cuda", "opencl" (flags 0x4, 0x8), or NULL when neither or both. */
const char *nvfatbin_producer(const struct nvfatbin_entry *ent);
/* "linux", "mac", "windows", or NULL when no one of them. */
const char *nvfatbin_host(const struct nvfatbin_entry *ent);
/* The arch's variant as nvcc spells it after the number: "a" (sm_90a),
 * "f" (sm_103f), or "" for plain code (and for both flags at once, which
 * nvcc does not write). */
const char *nvfatbin_arch_suffix(const struct nvfatbin_entry *ent);

/* The uncompressed entry ent of the container at buf, compressed as CUDA
 * 12.4's fatbinary -compress-all does: an LZ4 block made by LZ4 HC at
 * level 2 (the same bytes with liblz4 1.9; 1.10 changed its level 2, and
 * the block then differs but decodes the same), of an ELF's payload or a
 * PTX's text and its NUL; the header as it was with flag 0x2000, the
 * compressed and uncompressed sizes, and the payload padded to 8.  1 with
 * the entry (header and payload) in *out (malloc'd, *out_len bytes), 0
 * when it would be no smaller or is not for this (compressed already, an
 * old cubin, a payload past what LZ4 takes), -1 out of memory. */
int nvfatbin_compress_entry(const uint8_t *buf,
			    const struct nvfatbin_entry *ent, uint8_t **out,
			    size_t *out_len, struct err *e);
/* The level of LZ4 HC fatbinary 12.4 compresses with. */
enum { NVFATBIN_LZ4HC_LEVEL = 2 };

/* The entry's code: for an uncompressed entry its payload (a PTX payload
 * up to its first NUL: the rest is padding), pointed to in buf; for a
 * compressed one (an LZ4 block or a zstd frame) the payload's first
 * compressed_size bytes inflated into *owned (malloc'd), which must come
 * out at exactly the size the header declares (at most max_size).  e's
 * code: ERR_DECOMPRESS for a size over the limit or data the codec
 * refuses, ERR_TRUNCATED for data that ends short of the declared size. */
int nvfatbin_code(const uint8_t *buf, const struct nvfatbin_entry *ent,
		  uint64_t max_size, const uint8_t **code, uint64_t *size,
		  uint8_t **owned, struct err *e);
/* The same, a compressed entry inflated into s's buffer, which is grown
 * when too small and kept for the next entry (with s's zstd context), so
 * that a walk over thousands of entries does not allocate and fault in
 * fresh pages for each.  Zeroed before the first entry; the code is valid
 * until the next call; nvfatbin_scratch_free after the last. */
struct nvfatbin_scratch {
	uint8_t *buf;
	size_t cap;
	void *zstd;		/* ZSTD_DCtx */
};
int nvfatbin_code_into(const uint8_t *buf, const struct nvfatbin_entry *ent,
		       uint64_t max_size, const uint8_t **code,
		       uint64_t *size, struct nvfatbin_scratch *s,
		       struct err *e);
void nvfatbin_scratch_free(struct nvfatbin_scratch *s);

#endif
