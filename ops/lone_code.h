/* lone_code: a file that is itself one code object (an AMDGPU code
 * object, a cubin, PTX text), with no container: the target it is built
 * for, as du counts it and -t matches it.  Shared by the applets
 * (selection.c) and liboffcode (lib/du.c). */
#ifndef OPS_LONE_CODE_H
#define OPS_LONE_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { LONE_CODE_NAME = 128 };

struct lone_code {
	bool found;
	/* Its target ID or arch ("gfx90a:xnack+" from the metadata,
	 * "sm_80", PTX as "compute_80"), and its triple. */
	char name[LONE_CODE_NAME];
	const char *triple;
};

/* What buf is: 1 with lc filled when it is one code object; 0 (found
 * false) when it is none, or one that cannot be read; -1 when out of
 * memory. */
int lone_code_of(const uint8_t *buf, size_t len, struct lone_code *lc);

#endif
