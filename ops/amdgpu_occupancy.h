/* amdgpu_occupancy: how many waves of an AMDGPU kernel fit on one SIMD,
 * computed from what formats/kernels.h read of it. */
#ifndef OPS_AMDGPU_OCCUPANCY_H
#define OPS_AMDGPU_OCCUPANCY_H

#include "../formats/kernels.h"

/* Waves per SIMD that an AMDGPU kernel can have on processor (a name
 * such as "gfx90a"), by the limits LLVM's AMDGPU backend uses: its
 * wavefront size, LDS per workgroup, largest workgroup, SGPRs, and VGPRs
 * with AGPRs.  0 for a processor not in the table. */
unsigned amdgpu_occupancy(const char *processor, const struct kernel *k);
/* Each kernel's occupancy, for a list read from an AMDGPU code object
 * (nothing for others). */
void amdgpu_occupancy_fill(struct kernel_list *l);

#endif
