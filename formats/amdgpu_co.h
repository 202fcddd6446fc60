/* amdgpu_co: the kernels of an AMDGPU code object (amdgpu_co.c). */
#ifndef FORMATS_AMDGPU_CO_H
#define FORMATS_AMDGPU_CO_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "kernels.h"

/* The kernels of an AMDGPU code object: 0 with l filled, or -1 with e
 * filled when it is damaged (kernels_parse.h without the 0). */
int amdgpu_co_kernels(const uint8_t *buf, size_t len, struct kernel_list *l,
		      struct err *e);

#endif
