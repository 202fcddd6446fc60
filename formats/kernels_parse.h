/* kernels_parse: the kernels of any code object, each kind read by its
 * own parser (amdgpu_co.h, cubin.h, ptx.h; kernels_parse.c). */
#ifndef FORMATS_KERNELS_PARSE_H
#define FORMATS_KERNELS_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "kernels.h"

/* Any code object: 1 with l filled when buf is one the parsers know (an
 * AMDGPU or CUDA ELF, PTX text), 0 when it is none of them, -1 with e
 * filled when it is one but damaged. */
int kernels_parse(const uint8_t *buf, size_t len, struct kernel_list *l,
		  struct err *e);

#endif
