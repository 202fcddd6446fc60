/* prune_kpack: an AMD kpack archive pruned (prune of a kpack install). */
#ifndef OPS_PRUNE_KPACK_H
#define OPS_PRUNE_KPACK_H

#include <stddef.h>
#include <stdint.h>

#include "prune_impl.h"

/* The kpack archive buf (a whole file, len bytes): each entry decided;
 * 1 with the archive written again of the kept ones in *pt (its whole
 * new bytes), 0 when all stay (or when only deciding).  -1 with p->e. */
int prune_kpack(struct pruner *p, const uint8_t *buf, size_t len,
		struct prune_patch *pt);

#endif
