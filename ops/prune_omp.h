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

/* The same for the packages of a PE image's section i (of the n of
 * its layout, formats/coff.h), the first size bytes of it: they stay
 * where they are, the dropped ones zeros. */
struct coff_image_section;
int prune_pe_linked_packages(struct pruner *p, uint16_t machine,
			     const struct coff_image_section *v, size_t n,
			     const uint8_t *buf, size_t i, uint64_t size);

#endif
