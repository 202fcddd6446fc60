/* ls_json_node: a code object's kernels and a row's entry in ls's JSON
 * output (ls_json_node.c); ls_json.c prints the walk's records around
 * them. */
#ifndef APPLETS_LS_JSON_NODE_H
#define APPLETS_LS_JSON_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "ls_types.h"
#include "../ops/inspect_node.h"

/* An entry of a container of path; a kpack-split binary's code object
 * (in the archive path) also names its wrapper's index (else -1). */
void ls_json_entry(const struct rows *rs, const struct row *r,
		   const struct inspect_node *c, const char *path,
		   int64_t wrapper);
/* "kernels": k's, or null without --kernels. */
void ls_json_kernels(bool *first, const struct rows *rs,
		     const struct code_kernels *k);

#endif
