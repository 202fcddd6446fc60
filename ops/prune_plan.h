/* prune_plan: the plan of a prune (prune.h says what each container
 * becomes, prune_types.h what a plan holds), made through the table of
 * host formats (hosts.h), so that prune reads a file as ls does. */
#ifndef OPS_PRUNE_PLAN_H
#define OPS_PRUNE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "prune_types.h"

/* Plan the prune of the file in buf.  Files this cannot prune are errors
 * that say why (thin archives are never pruned; a file with no offload
 * code at all, ERR_NOTHING).  An archive's members are pruned each as a
 * file; members with no offload code stay.  prune_write (prune.h) writes
 * the plan, prune_plan_free frees it. */
int prune_plan(const uint8_t *buf, size_t len, const struct prune_opts *o,
	       struct prune_plan *plan, struct err *e);

#endif
