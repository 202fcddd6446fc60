/* ls_rows: the rows of ls: what they hold and show. */
#ifndef APPLETS_LS_ROWS_H
#define APPLETS_LS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../ops/inspect_node.h"

/* Fill r with the node n, its strings copied (-1: out of
 * memory); free what r holds.  Why r's kernels cannot be read, as ls
 * says it after "cannot read kernels in 'FILE': " (malloc'd). */
int ls_row_fill(struct row *r, const struct inspect_node *n);
void ls_row_free(struct row *r);
char *ls_kernels_unread(const struct row *r);

#endif
