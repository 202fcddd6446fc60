/* prune_shrink: prune's linked files made smaller. */
#ifndef OPS_PRUNE_SHRINK_H
#define OPS_PRUNE_SHRINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "prune_impl.h"

/* A linked file's freed pages cut out, where elf_shrink finds it safe;
 * else plan->shrink.why says why not (prune_shrink.c). */
int prune_plan_shrink(const uint8_t *buf, size_t len, struct prune_plan *plan,
		      const struct prune_opts *o, struct err *e);

#endif
