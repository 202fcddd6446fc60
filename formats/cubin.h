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

#endif
