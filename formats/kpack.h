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
 * Also the two things a kpack-split host binary carries (same document,
 * "Binary Conversion"): its .rocm_kpack_ref section, a MessagePack map
 * {kernel_name, kpack_search_paths}, and its HIPK wrappers. */
#ifndef FORMATS_KPACK_H
#define FORMATS_KPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "ccob.h"

enum { KPACK_VERSION = 1, KPACK_HEADER_SIZE = 16 };

enum kpack_scheme {
	KPACK_NONE,		/* "none": stored as they are */
	KPACK_ZSTD,		/* "zstd-per-kernel": one frame each */
};

struct kpack_entry {
	char *key;		/* the TOC key: the binary's path ("lib/x.so") */
	char *target;		/* "gfx90a", "gfx90a:xnack+" */
	char *type;		/* "hsaco"; NULL when the TOC says none */
	/* metadata.target, the bundle entry ID the code object had in the
	 * fat binary ("hipv4-amdgcn-amd-amdhsa--gfx90a", what rocm-kpack's
	 * splitter records); NULL when the TOC has none */
	char *bundle_id;
	/* The metadata object as MessagePack (packed again from the TOC in
	 * the smallest forms, as kpack_write writes it); NULL when none */
	uint8_t *meta;
	size_t meta_len;
	uint32_t ordinal;
	/* original_size; for "none" the blob's size when the TOC has none */
	uint64_t size;
	bool has_size;
	/* The stored bytes in the archive: the code ("none") or its zstd
	 * frame; inside the buffer, checked. */
	uint64_t offset, stored;
};

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
};

/* A "none" entry's blob is its code object: sizes that differ are
 * damage (ERR_MALFORMED), said in the words of the entry. */
int kpack_entry_stored_whole(const struct kpack_entry *en, struct err *e);

/* 1 when buf starts as an archive does. */
bool kpack_probe(const uint8_t *buf, size_t len);
/* Read the header and TOC of the archive buf, len bytes: every entry's
 * stored bytes found and checked to lie inside buf.  -1 with e filled. */
int kpack_parse(const uint8_t *buf, size_t len, struct kpack *k,
		struct err *e);
void kpack_free(struct kpack *k);
/* Entry i's code object into *out (malloc'd, exactly *size bytes):
 * "none" copies the blob (its size must be original_size when the TOC
 * gives one); zstd-per-kernel inflates the frame to original_size, which
 * must be within lim (ratio to the frame's size, and absolute) and be
 * filled exactly. */
int kpack_entry_code(const uint8_t *buf, size_t len, const struct kpack *k,
		     size_t i, const struct ccob_limits *lim, uint8_t **out,
		     uint64_t *size, struct err *e);
/* "none", "zstd-per-kernel". */
const char *kpack_scheme_name(enum kpack_scheme s);

/* The .rocm_kpack_ref section's map. */
struct kpack_ref {
	char *kernel_name;	/* the TOC key of this binary's code */
	char **paths;		/* kpack_search_paths, "@GFXARCH@" unexpanded */
	size_t npaths;
};
int kpack_ref_parse(const uint8_t *buf, size_t len, struct kpack_ref *r,
		    struct err *e);
void kpack_ref_free(struct kpack_ref *r);

/* The HIP fat binary wrapper (24 bytes on a 64-bit target: u32 magic,
 * u32 version, binary pointer, reserved1 pointer): HIPF before splitting,
 * HIPK after, with reserved1 the code object's index (the "#<index>" of
 * its TOC key). */
enum { KPACK_HIPF = 0x48495046, KPACK_HIPK = 0x4B504948 };

/* The wrappers of a .hipFatBinSegment section, n bytes at p, of an ELF
 * file of the given class and byte order: *index (malloc'd, *nhipk of
 * them) the reserved1 of each HIPK wrapper in order; *nhipf counts the
 * HIPF ones (fat binaries not split).  A section whose size is not a whole
 * number of wrappers, or a wrapper of neither magic, is an error. */
int kpack_wrappers(const uint8_t *p, uint64_t n, bool is64, bool big_endian,
		   uint64_t **index, size_t *nhipk, size_t *nhipf,
		   struct err *e);
/* pattern with its first "@GFXARCH@" replaced by target (malloc'd; NULL
 * when out of memory).  The runtime puts each form of the device's
 * target ID there, the most specific first (gfx90a:sramecc+:xnack-, then
 * without xnack-, ...). */
char *kpack_expand(const char *pattern, const char *target);
/* Whether name is pattern (a file name, no '/') with a target ID in place
 * of "@GFXARCH@": the target (malloc'd) in *target when so. */
bool kpack_name_matches(const char *pattern, const char *name,
			char **target);

#endif
