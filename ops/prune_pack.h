/* prune_pack: the containers of a linked file's .hip_fatbin or .nv_fatbin
 * packed at the section's start once pruned. */
#ifndef OPS_PRUNE_PACK_H
#define OPS_PRUNE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "prune_impl.h"

struct elfscan;

/* The containers of section i pruned, then the kept ones packed at its
 * start where every pointer into it is known (else plan->unpacked_fatbin
 * says why they stay). */
int prune_fatbin_section(struct pruner *p, const struct elfscan *s,
			 const uint8_t *buf, size_t i);

#endif
