/* ls_kernels: the kernels ls lists, read and told through the public
 * library (include/offcode.h), and its -t. */
#ifndef APPLETS_LS_KERNELS_H
#define APPLETS_LS_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ls_types.h"
#include "../include/offcode.h"

/* Whether -t takes an entry of the public walk. */
bool ls_wanted_entry(const struct rows *rs, const offcode_entry *e);
/* Read the kernels of code (len bytes: an entry's, or a whole file that
 * is itself a code object) into k, which holds none: nothing when it is
 * no code object, k->error when it is damaged; -1 only when out of
 * memory.  Free what k holds. */
int ls_code_kernels(struct code_kernels *k, const void *code, size_t len);
void ls_code_kernels_free(struct code_kernels *k);
/* Why k's kernels cannot be read, as ls says it after "cannot read
 * kernels in 'FILE': [ENTRY: ]", or NULL when they can (or none were). */
const char *ls_kernels_why(const struct code_kernels *k);
/* k's kernels in text, indented: a table for a code object, the entry
 * names for PTX; nothing when there are none. */
void ls_print_code_kernels(FILE *out, const struct rows *rs,
			   const struct code_kernels *k, int indent);
/* What a file that is itself a code object is, after its file type:
 * ": a code object for gfx90a:xnack+ (code object v5)", "... for sm_80
 * (cubin)", ": PTX 8.7 for sm_90"; one that cannot be read says why. */
void ls_describe_code(const struct code_kernels *k);
/* A kernel's name as ls prints it: demangled unless --no-demangle. */
const char *ls_kernel_name(const struct rows *rs, const offcode_kernel *k);

#endif
