/* ptx: the kernels of a PTX module (ptx.c). */
#ifndef FORMATS_PTX_H
#define FORMATS_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "kernels.h"

/* Whether buf starts as PTX does (comments, then .version). */
bool ptx_looks(const uint8_t *buf, size_t len);
/* The kernels of a PTX module: 0 with l filled, or -1 with e filled when
 * it is damaged (kernels_parse.h without the 0). */
int ptx_kernels(const uint8_t *buf, size_t len, struct kernel_list *l,
		struct err *e);

#endif
