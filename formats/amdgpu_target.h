/* amdgpu_target: the target ID an AMDGPU code object's ELF header names,
 * from e_flags alone (no section read): the processor by its
 * EF_AMDGPU_MACH number, the xnack and sramecc settings by their bits
 * (code object v4 and later).  What offload du and prune -r read of a
 * lone code object in a tree of them, where reading its metadata note
 * (kernels.h) would touch most of a large file. */
#ifndef FORMATS_AMDGPU_TARGET_H
#define FORMATS_AMDGPU_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* 1 with out[0, cap) the target ID ("gfx90a:xnack+", "gfx90a:sramecc-:
 * xnack+", "gfx9-generic"); 0 when buf is no 64-bit little-endian AMDGPU
 * ELF of code object v4 or later, or names a processor not in the table
 * (the metadata then says what it is). */
int amdgpu_target_of(const uint8_t *buf, size_t len, char *out, size_t cap);
/* The processor EF_AMDGPU_MACH (e_flags bits 0-7) names, as llvm-readelf
 * names it, or NULL (the one table: amdgpu_co reads it too). */
const char *amdgpu_mach_name(uint32_t flags);

#endif
