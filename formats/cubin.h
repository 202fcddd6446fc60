/* cubin: the kernels of an NVIDIA cubin (cubin.c). */
#ifndef FORMATS_CUBIN_H
#define FORMATS_CUBIN_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "kernels.h"

/* The kernels of an NVIDIA cubin: 0 with l filled, or -1 with e filled
 * when it is damaged (kernels_parse.h without the 0). */
int cubin_kernels(const uint8_t *buf, size_t len, struct kernel_list *l,
		  struct err *e);
/* The SM a cubin is for, from its ELF header alone (no section read), as
 * cuobjdump names a lone cubin: e_flags' bits 0-7, or 8-15 from ABI
 * version 8 (CUDA 12.8 and later); 0 when buf starts with no little
 * endian ELF header of machine CUDA. */
unsigned cubin_header_arch(const uint8_t *buf, size_t len);

#endif
