/* kpack: AMD's per-GPU code-object archives (".kpack", ROCm/rocm-kpack,
 * docs/multi_arch_packaging_with_kpack.md, "Kpack Archive Format"):
 *
 *   0   "KPAK"
 *   4   u32 version (1)
 *   8   u64 offset of the TOC        (all little endian)
 *   ... blobs: "none": the code objects as they are, each at the absolute
 *       offset its "blobs" row gives; "zstd-per-kernel": at zstd_offset,
 *       zstd_size bytes: u32 count, then count times (u32 size, zstd frame)
 *   TOC one MessagePack map: compression_scheme, gfx_arches, blobs or
 *       zstd_offset/zstd_size, and toc: {key: {target: {type, ordinal,
 *       original_size}}}, an ordinal being the index of a blob or frame.
 *
 * What a kpack-split host binary carries is read by kpack_ref.h. */
#ifndef FORMATS_KPACK_H
#define FORMATS_KPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "ccob.h"

enum { KPACK_VERSION = 1, KPACK_HEADER_SIZE = 16 };

/* What an archive may hold to be read here (kpack_parse), where
 * rocm-kpack's readers set no bound (its runtime and its Python reader
 * decode the whole TOC; ordinals and frame counts are 32-bit): the TOC's
 * bytes, its entries (and blobs or frames), its gfx_arches.  The splitter
 * writes one blob or frame per entry; its design notes count libraries of
 * "100K+ kernels". */
enum {
	KPACK_TOC_MAX = 256 << 20,
	KPACK_ENTRIES_MAX = 1 << 20,
	KPACK_ARCHES_MAX = 4096,
};
/* The code an archive's entries may declare in all, for their
 * decompression (kpack_entry_code): KPACK_WORK_RATIO times the archive's
 * bytes, and KPACK_WORK_SLACK more (as the zero fill of an ELF rewrite is
 * bounded at 1 GiB). */
enum { KPACK_WORK_RATIO = 256, KPACK_WORK_SLACK = 1 << 30 };

enum kpack_scheme {
	KPACK_NONE,		/* "none": stored as they are */
	KPACK_ZSTD,		/* "zstd-per-kernel": one frame each */
};

/* Every string of an archive is refused when it holds a NUL byte (it would
 * read as cut short there), and every entry has a blob or frame of its
 * own, none of them overlapping another, the header or the TOC (the
 * splitter writes them back to back). */
struct kpack_entry {
	/* the TOC key: the binary's path ("lib/x.so"); the entries of one
	 * key share it */
	char *key;
	char *target;		/* "gfx90a", "gfx90a:xnack+" */
	char *type;		/* "hsaco"; NULL when the TOC says none */
	/* metadata.target, the bundle entry ID the code object had in the
	 * fat binary ("hipv4-amdgcn-amd-amdhsa--gfx90a", what rocm-kpack's
	 * splitter records); NULL when the TOC has none */
	char *bundle_id;
	/* The metadata object as MessagePack, in the smallest form of each
	 * value (as kpack_write writes it): the archive's bytes when they are
	 * that already (the splitter's are), else packed again; NULL when
	 * none */
	const uint8_t *meta;
	size_t meta_len;
	uint32_t ordinal;
	bool has_size;		/* (beside ordinal: 80 bytes an entry, not 96) */
	/* original_size; for "none" the blob's size when the TOC has none */
	uint64_t size;
	/* The stored bytes in the archive: the code ("none") or its zstd
	 * frame; inside the buffer, checked. */
	uint64_t offset, stored;
};

/* Where an archive's strings and metadata are kept: in chunks, not one
 * allocation each (a one-byte target would cost 32). */
struct kpack_mem;

struct kpack {
	uint32_t version;
	uint64_t toc_offset;
	enum kpack_scheme scheme;
	char **arches;		/* gfx_arches */
	size_t narches;
	/* group_name, gfx_arch_family; NULL when the TOC has none (or not
	 * as a string) */
	char *group_name, *arch_family;
	struct kpack_entry *v;	/* in the TOC's order */
	size_t n;
	size_t nblobs;		/* blobs or frames */
	/* The entries' sizes added up (UINT64_MAX past it), the code a
	 * reader of every entry inflates. */
	uint64_t code_total;
	struct kpack_mem *mem;
};

/* A "none" entry's blob is its code object: sizes that differ are
 * damage (ERR_MALFORMED), said in the words of the entry. */
int kpack_entry_stored_whole(const struct kpack_entry *en, struct err *e);

/* 1 when buf starts as an archive does. */
bool kpack_probe(const uint8_t *buf, size_t len);
/* Read the header and TOC of the archive buf, len bytes: every entry's
 * stored bytes found and checked to lie inside buf, each its own, within
 * the bounds above.  The TOC is read where it lies, not decoded whole:
 * memory goes to the entries, what else the TOC holds is skipped (an
 * entry's meta may point into buf, which outlives k).  -1 with e
 * filled. */
int kpack_parse(const uint8_t *buf, size_t len, struct kpack *k,
		struct err *e);
void kpack_free(struct kpack *k);
/* Entry i's code object into *out (malloc'd, exactly *size bytes):
 * "none" copies the blob (its size must be original_size when the TOC
 * gives one); zstd-per-kernel inflates the frame to original_size, which
 * must be within lim (ratio to the frame's size, and absolute) and be
 * filled exactly, the archive's code_total within the work bound above. */
int kpack_entry_code(const uint8_t *buf, size_t len, const struct kpack *k,
		     size_t i, const struct ccob_limits *lim, uint8_t **out,
		     uint64_t *size, struct err *e);
/* "none", "zstd-per-kernel". */
const char *kpack_scheme_name(enum kpack_scheme s);

#endif
