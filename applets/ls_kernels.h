/* ls_kernels: the kernels ls lists, and its -t. */
#ifndef APPLETS_LS_KERNELS_H
#define APPLETS_LS_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../core/err.h"
#include "../ops/inspect_node.h"
#include "../include/offcode.h"

/* Whether -t takes an entry; read the kernels of an
 * entry's code, or of a whole file that is itself a code object, into r
 * (nothing when it is none; r->kernels_why when damaged): -1 only when out
 * of memory; print r's kernels in text, indented. */
bool ls_wanted(const struct rows *rs, const struct inspect_node *n);
/* The same of an entry of the public walk (include/offcode.h). */
bool ls_wanted_entry(const struct rows *rs, const offcode_entry *e);
int ls_entry_kernels(struct row *r, const struct inspect_node *n);
int ls_file_kernels(struct row *r, const uint8_t *data, size_t len);
void ls_print_kernels(FILE *out, const struct rows *rs, const struct row *r,
		      int indent);
/* What a file that is itself a code object is, after its file type:
 * ": a code object for gfx90a:xnack+ (code object v5)", "... for sm_80
 * (cubin)", ": PTX 8.7 for sm_90"; one that cannot be read says why. */
void ls_describe_code(const struct row *r);
/* A kernel's name as ls prints it: demangled unless --no-demangle
 * (malloc'd; NULL when out of memory). */
char *ls_kernel_name(const struct rows *rs, const char *name);

#endif
