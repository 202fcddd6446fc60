/* ls_json_node: a code object's kernels in ls's JSON output
 * (ls_json_node.c); ls_json.c and ls_json_kpack.c print the records
 * around them. */
#ifndef APPLETS_LS_JSON_NODE_H
#define APPLETS_LS_JSON_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "ls_types.h"

/* "kernels": k's, or null without --kernels. */
void ls_json_kernels(bool *first, const struct rows *rs,
		     const struct code_kernels *k);

#endif
