/* prune_bitcode: prune's bitcode modules (clang -flto objects). */
#ifndef OPS_PRUNE_BITCODE_H
#define OPS_PRUNE_BITCODE_H

#include <stddef.h>
#include <stdint.h>

#include "prune_impl.h"

/* The offload packages the module in buf embeds pruned where they are
 * (prune_bitcode.c): no offload code at all is ERR_NOTHING. */
int prune_bitcode(struct pruner *p, const uint8_t *buf, size_t len);

#endif
