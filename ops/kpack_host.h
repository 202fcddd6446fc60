/* kpack_host: a fat host binary (a linked 64-bit little-endian ELF
 * executable or shared library with .hip_fatbin and .hipFatBinSegment)
 * rewritten as AMD's kpack splitter rewrites it, byte for byte
 * (ROCm/rocm-kpack, python/rocm_kpack/elf/kpack_transform.py,
 * kpack_offload_binary): a .rocm_kpack_ref map the runtime reads in
 * memory, mapped by a PT_LOAD of its own; each __hip_fatbin_wrapper a HIPK
 * one whose binary pointer points at that map and whose reserved1 is its
 * index (the "#<index>" of the TOC keys); the whole pages of .hip_fatbin
 * cut out of the file.  Where the splitter's own output would not work
 * (see kpack_host.c), ours differs there and only there. */
#ifndef OPS_KPACK_HOST_H
#define OPS_KPACK_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_types.h"

/* What kpack_host_plan learns of the file before anything is written. */
struct kpack_host {
	uint64_t fat_addr, fat_off, fat_size;	/* .hip_fatbin */
	size_t fat_index;
	uint64_t seg_off, seg_addr;		/* .hipFatBinSegment */
	size_t nwrappers;
	uint32_t relative;	/* the machine's R_*_RELATIVE */
	uint64_t *target;	/* each wrapper's binary pointer, as linked */
	uint64_t *rela;		/* the file offset of the RELA relocation of
				 * each wrapper's pointer, UINT64_MAX: none */
};

/* Read buf's .hip_fatbin, wrappers and their pointers: -1 with e saying
 * why the file cannot be rewritten (not a linked 64-bit little-endian ELF
 * file, no .hipFatBinSegment, a wrapper not HIPF, a pointer we cannot
 * follow, headers the splitter's layout cannot take).  Already split
 * files are the caller's to refuse. */
int kpack_host_plan(const uint8_t *buf, size_t len, struct kpack_host *h,
		    struct err *e);
void kpack_host_free(struct kpack_host *h);
/* Write the rewritten file to out, .rocm_kpack_ref holding ref (ref_len
 * bytes). */
int kpack_host_write(const uint8_t *buf, size_t len,
		     const struct kpack_host *h, const uint8_t *ref,
		     size_t ref_len, struct io_out *out, struct err *e);

#endif
