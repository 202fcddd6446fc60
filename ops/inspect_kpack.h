/* inspect_kpack: the walk's AMD kpack archives (formats/kpack.h). */
#ifndef OPS_INSPECT_KPACK_H
#define OPS_INSPECT_KPACK_H

#include <stdint.h>

#include "inspect_node.h"
#include "inspect_walk.h"

/* The kpack archive c (its kind, number, offset and size filled: a whole
 * file), size bytes at p: visited, then an entry per TOC entry. */
int inspect_walk_kpack(struct walk *w, struct inspect_node *c,
		       const uint8_t *p, uint64_t size);

#endif
