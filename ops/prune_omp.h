/* prune_omp: prune's linked OpenMP programs. */
#ifndef OPS_PRUNE_OMP_H
#define OPS_PRUNE_OMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "prune_impl.h"

/* The packages of a linked program's .llvm.offloading (section i): the
 * OpenMP runtime's image table made to list the kept images alone, the
 * dropped packages zeroed in place (prune_omp.c). */
struct elfscan;
int prune_linked_packages(struct pruner *p, const struct elfscan *s,
			  const uint8_t *buf, size_t i);

#endif
