/* ls_cuobjdump: the lines cuobjdump -lelf -lptx prints. */
#ifndef APPLETS_LS_CUOBJDUMP_H
#define APPLETS_LS_CUOBJDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../core/err.h"
#include "../ops/inspect_node.h"

/* Print the lines cuobjdump -lelf -lptx prints for the
 * file buf (rs: its path and -t): 0, or 1 when it holds no NVIDIA device
 * code (cuobjdump fails then), -1 with e filled when the walk fails. */
int ls_cuobjdump(const struct rows *rs, const uint8_t *buf, size_t len,
		 const struct inspect_opts *walk, struct err *e);

#endif
