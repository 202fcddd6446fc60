/* prune_coff: prune's COFF objects and PE images. */
#ifndef OPS_PRUNE_COFF_H
#define OPS_PRUNE_COFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "prune_impl.h"

/* A COFF object or PE image (prune_coff.c). */
int prune_coff(struct pruner *p, const uint8_t *buf, size_t len);

#endif
