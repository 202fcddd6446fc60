/* inspect_nv: the walk's NVIDIA fatbins, their entries decoded ahead on a
 * thread of their own. */
#ifndef OPS_INSPECT_NV_H
#define OPS_INSPECT_NV_H

#include <stddef.h>
#include <stdint.h>

#include "inspect_node.h"
#include "inspect_walk.h"

/* NVIDIA fatbin c (its kind, number, offset and size filled), size bytes
 * at p: visited, then its entries. */
int inspect_walk_nv(struct walk *w, struct inspect_node *c, const uint8_t *p,
		    uint64_t size);
/* For a walk that inflates: decode the NVIDIA entries of buf[pos, len)
 * (at file offset base; an NVIDIA fatbin at pos) ahead of inspect_walk_nv,
 * which takes them from w->nv.  NULL when out of memory. */
struct nv_ahead *inspect_nv_ahead_start(struct walk *w, const uint8_t *buf,
					size_t len, uint64_t base,
					uint64_t pos);
void inspect_nv_ahead_end(struct nv_ahead *a);

#endif
