/* kernels: the kernels a code object holds and what each costs, read from
 * the code object alone: an AMDGPU code object's metadata note and kernel
 * descriptors (amdgpu_co.c), an NVIDIA cubin's .nv.info attributes and
 * sections (cubin.c), a PTX module's .entry directives (ptx.c).
 *
 * Each parser takes the bytes of one code object, trusts nothing in them,
 * and fills a kernel_list that owns copies of every string: the list lives
 * on after buf is gone.  A damaged code object fails with the error record
 * saying what is wrong and where; nothing is listed for it then.
 *
 * Here the list and kernels.c's helpers; the parsers in amdgpu_co.h,
 * cubin.h and ptx.h, and the one that picks among them in kernels_parse.h. */
#ifndef FORMATS_KERNELS_H
#define FORMATS_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

enum kernel_source {
	KERNELS_AMDGPU,		/* an AMDGPU code object (ELF, EM_AMDGPU) */
	KERNELS_CUBIN,		/* an NVIDIA cubin (ELF, EM_CUDA) */
	KERNELS_PTX,		/* PTX text */
};

/* A figure the code object does not give is KERNEL_NONE. */
enum { KERNEL_NONE = UINT32_MAX };

/* The kernel descriptor of an AMDGPU kernel, as stored (64 bytes at
 * descriptor_offset in the code object). */
struct amdgpu_kd {
	uint64_t offset;
	uint32_t group_segment_fixed_size, private_segment_fixed_size;
	uint32_t kernarg_size;
	uint32_t rsrc1, rsrc2, rsrc3;
	uint16_t properties;
};

enum {
	AMDGPU_KD_WAVE32 = 1 << 10,		/* kernel_code_properties */
	AMDGPU_KD_DYNAMIC_STACK = 1 << 11,
};

struct kernel {
	char *name;		/* the symbol, mangled; NUL-terminated */
	/* AMDGPU, from the metadata note */
	uint32_t sgprs, vgprs, agprs, sgpr_spills, vgpr_spills;
	uint32_t lds;		/* group segment, bytes per workgroup */
	uint32_t scratch;	/* private segment, bytes per work-item */
	uint32_t wavefront, max_flat_wg, kernarg_size;
	uint32_t reqd_wg;	/* reqd_workgroup_size's product, or NONE */
	int dynamic_stack;	/* 0, 1, or -1 when the note does not say */
	bool has_kd;
	struct amdgpu_kd kd;
	unsigned occupancy;	/* waves per SIMD (ops/amdgpu_occupancy.h); 0
				 * when not computed */
	/* NVIDIA cubins (cuobjdump -res-usage's REG, STACK, SHARED, LOCAL,
	 * and the sizes of the constant banks it uses) */
	uint32_t regs, stack, shared, local;
	uint32_t constant[18];	/* bank n's bytes, KERNEL_NONE if unused */
	uint32_t max_threads;	/* .maxntid / __launch_bounds__, or NONE */
};

struct kernel_list {
	enum kernel_source source;
	/* AMDGPU: code object version (from EI_ABIVERSION), the target of
	 * its metadata as written, the target ID after that target's four
	 * triple parts ("gfx90a:xnack+" of LLVM 22's
	 * "amdgcn-amd-amdhsa--gfx90a:xnack+", LLVM 23's
	 * "amdgcn-amd-amdhsa-unknown-gfx90a:xnack+" and LLVM 24's
	 * "amdgpu9.0a-amd-amdhsa-unknown-gfx90a:xnack+") and its processor
	 * ("gfx90a"); cubins: "sm_80"; PTX: ".target" as written. */
	unsigned co_version;
	char target[96], target_id[64], processor[32];
	/* PTX: .version */
	char ptx_version[16];
	struct kernel *v;
	size_t n;
};

void kernels_free(struct kernel_list *l);
/* "amdgpu", "cubin" or "ptx" (kernels.c). */
const char *kernels_source_name(enum kernel_source s);

#endif
