/* kpack_ref: what a kpack-split host binary carries (ROCm/rocm-kpack,
 * docs/multi_arch_packaging_with_kpack.md, "Binary Conversion"): its
 * .rocm_kpack_ref section, a MessagePack map {kernel_name,
 * kpack_search_paths}, its HIPK wrappers, and the search paths' pattern
 * of archive names.  The archives themselves are kpack.h's. */
#ifndef FORMATS_KPACK_REF_H
#define FORMATS_KPACK_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* The search paths a .rocm_kpack_ref may list to be read here (the
 * runtime sets no bound; the splitter writes one). */
enum { KPACK_PATHS_MAX = 4096 };

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
