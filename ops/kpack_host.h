/* kpack_host: a fat host binary (a linked 64-bit little-endian ELF
 * executable or shared library with .hip_fatbin and .hipFatBinSegment)
 * rewritten as AMD's kpack splitter leaves it (ROCm/rocm-kpack,
 * docs/multi_arch_packaging_with_kpack.md, "Binary Conversion"): its device
 * code gone, a .rocm_kpack_ref map the runtime reads in memory, and each
 * __hip_fatbin_wrapper a HIPK one whose binary pointer points at that map
 * and whose reserved1 is its index (the "#<index>" of the TOC keys). */
#ifndef OPS_KPACK_HOST_H
#define OPS_KPACK_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_types.h"

/* What kpack_host_plan learns of the file before anything is written. */
struct kpack_host {
	uint64_t fat_addr, fat_off, fat_size;	/* .hip_fatbin */
	uint64_t seg_off, seg_addr;		/* .hipFatBinSegment */
	size_t nwrappers;
	uint64_t *target;	/* each wrapper's binary pointer, as linked */
};

/* Read buf's .hip_fatbin, wrappers and their pointers: -1 with e saying
 * why the file cannot be rewritten (not a linked 64-bit little-endian ELF
 * file, no .hipFatBinSegment, a wrapper not HIPF, a pointer we cannot
 * follow).  Already split files are the caller's to refuse. */
int kpack_host_plan(const uint8_t *buf, size_t len, struct kpack_host *h,
		    struct err *e);
void kpack_host_free(struct kpack_host *h);
/* Write the rewritten file to out: .rocm_kpack_ref (ref, ref_len bytes,
 * which fit in .hip_fatbin) where .hip_fatbin's bytes began, allocated;
 * .hip_fatbin NOBITS and unallocated, the whole pages of its code cut out
 * of the file where ops/elf_shrink finds it safe, else a hole; every
 * wrapper HIPK, pointing at the map, reserved1 its index.  Addresses and
 * every other byte stay. */
int kpack_host_write(const uint8_t *buf, size_t len,
		     const struct kpack_host *h, const uint8_t *ref,
		     size_t ref_len, struct io_out *out, struct err *e);

#endif
