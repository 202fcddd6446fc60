/* nv: an NVIDIA entry's header as cuobjdump names it (nv.c), which the
 * walk keeps with the entry (artifact.c) for offcode_entry_nv. */
#ifndef LIB_NV_H
#define LIB_NV_H

#include <stdbool.h>

#include "artifact_impl.h"

/* Entry node n's header into *nv as offcode_entry_nv gives it, its texts
 * pointing into n's bytes (to be copied to be kept): false for an entry
 * of another kind. */
bool nv_header(const struct inspect_node *n, struct offcode_nv_entry *nv);

#endif
