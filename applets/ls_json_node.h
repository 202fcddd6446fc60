/* ls_json_node: one node's fields in ls's JSON output (ls_json_node.c);
 * ls_json.c opens and closes the objects and arrays around them. */
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
/* A file or archive member: what it is (what is in it follows). */
void ls_json_input(const struct rows *rs, const struct row *r, bool *f,
		   const char *path);
/* A container's fields after its entries (a CCOB's header and hash). */
void ls_json_container_end(const struct inspect_node *n, bool *f);
/* A container's header (its entries follow, then a CCOB's hash). */
void ls_json_container(const struct inspect_node *n, bool *f);
void ls_json_section(const struct inspect_node *n, bool *f);

#endif
