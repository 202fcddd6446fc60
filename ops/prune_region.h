/* prune_region: the containers of a region, one after another, each pruned
 * as its kind's row says (kinds.c). */
#ifndef OPS_PRUNE_REGION_H
#define OPS_PRUNE_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "prune_impl.h"

/* Every container in buf[0, len), at file offset base: each one pruned
 * becomes a patch of the plan (in_place: the range keeps its size)
 * (prune_region.c). */
int prune_region(struct pruner *p, const uint8_t *buf, size_t len,
		 uint64_t base, bool in_place);

/* The spool of a plan's compressed containers (prune_types.h), closed
 * and gone; NULL: nothing. */
void prune_spool_free(struct prune_spool_file *sf);

#endif
