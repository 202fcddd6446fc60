/* inspect_kpack: the walk's AMD kpack archives (formats/kpack.h). */
#ifndef OPS_INSPECT_KPACK_H
#define OPS_INSPECT_KPACK_H

#include <stdint.h>

#include "inspect_node.h"
#include "../formats/kpack.h"
#include "inspect_walk.h"

/* The kpack archive c (its kind, number, offset and size filled: a whole
 * file), size bytes at p: visited, then an entry per TOC entry. */
int inspect_walk_kpack(struct walk *w, struct inspect_node *c,
		       const uint8_t *p, uint64_t size);

/* Entry i of the archive k (size bytes at p; c its container node) as
 * the walk visits it: n filled, named by its TOC key, its data the code
 * when stored as it is; a zstd-per-kernel one, with inflate, inflated
 * into *code (malloc'd, the caller frees it; NULL otherwise).  -1 with
 * e filled ("none" whose blob is not the size the TOC declares, or a
 * frame that does not inflate). */
int inspect_kpack_entry(const struct kpack *k, const uint8_t *p,
			uint64_t size, size_t i, const struct inspect_node *c,
			bool inflate, const struct ccob_limits *lim,
			struct inspect_node *n, uint8_t **code, struct err *e);

#endif
