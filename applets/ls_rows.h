/* ls_rows: the rows of ls, nodes of the internal walk with their strings
 * copied: what kpack's lines (ls_kpack.c, ls_json_kpack.c) and
 * cuobjdump's -t still read below the library. */
#ifndef APPLETS_LS_ROWS_H
#define APPLETS_LS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../ops/inspect.h"
#include "../ops/inspect_node.h"
#include "../ops/kinds.h"

/* A node as the walk reported it, with its strings copied. */
struct row {
	struct inspect_node n;
	char *strings;
	char *why;		/* n.decode_err's message, or NULL */
	/* What the kind keeps of an entry beyond the walk (kind.h's
	 * details: an NVIDIA entry's identifier and ptxas options, which
	 * n.nv's offsets point to in the fatbin, gone after the walk), in
	 * strings, NUL-terminated; s NULL: none.  For --json. */
	struct kind_text detail[KIND_DETAILS];
	/* --kernels: what its code holds, and why it cannot be read
	 * (kernels_why: kernels.error's reason, or NULL). */
	struct code_kernels kernels;
	const char *kernels_why;
};

/* Fill r with the node n, its strings copied (-1: out of
 * memory); free what r holds.  Why r's kernels cannot be read, as ls
 * says it after "cannot read kernels in 'FILE': " (malloc'd). */
int ls_row_fill(struct row *r, const struct inspect_node *n);
void ls_row_free(struct row *r);
char *ls_kernels_unread(const struct row *r);
/* Whether -t takes an entry of the internal walk. */
bool ls_wanted(const struct rows *rs, const struct inspect_node *n);
/* Read the kernels of an entry's code, or of a whole file that is itself
 * a code object, into r (ls_kernels.h's ls_code_kernels): -1 only when
 * out of memory.  Print r's kernels in text, indented. */
int ls_entry_kernels(struct row *r, const struct inspect_node *n);
int ls_file_kernels(struct row *r, const uint8_t *data, size_t len);
void ls_print_kernels(FILE *out, const struct rows *rs, const struct row *r,
		      int indent);

#endif
