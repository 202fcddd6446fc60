/* coff: the sections of a COFF object (plain or bigobj) that LLVM finds
 * offload binaries in by name, read with LLVM 22's rules. */
#ifndef FORMATS_COFF_H
#define FORMATS_COFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* The bigobj signature ("\0\0\xff\xff" and its UUID). */
bool coff_is_bigobj(const uint8_t *buf, size_t len);

typedef int coff_section_fn(void *ctx, const char *name, size_t name_len,
			    const uint8_t *data, uint64_t size, struct err *e);

/* Call each, in table order, for every section whose name (long names
 * resolved through the string table) starts with prefix, with its bytes.
 * Every section's name must resolve, as in LLVM; only the bytes of the
 * sections asked for must lie inside the file. */
int coff_sections(const uint8_t *buf, size_t len, const char *prefix,
		  coff_section_fn *each, void *ctx, struct err *e);

#endif
