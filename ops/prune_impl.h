/* prune_impl: the types the parts of prune share: prune.c (files: ELF,
 * archives, the plan, the writing) calls prune_region.c (a region's
 * containers), prune_bundle.c (binary bundles, CCOBs),
 * prune_containers.c (NVIDIA fatbins, packages, text bundles, the entries
 * decided), prune_coff.c, prune_omp.c (linked OpenMP files) and
 * prune_shrink.c (linked files made smaller); each declares its
 * functions in its own header.  Not for other modules. */
#ifndef OPS_PRUNE_IMPL_H
#define OPS_PRUNE_IMPL_H

#include "../core/err.h"
#include "prune_types.h"

struct pruner {
	const struct prune_opts *o;
	struct prune_plan *plan;
	const char *section;	/* where the walk is, for keep() */
	uint64_t container;
	uint64_t base;		/* the archive member's offset in the file */
	unsigned ccob_version;	/* bundles become CCOBs of it (0: stay) */
	struct err *e;
};

struct membuf {
	uint8_t *p;
	size_t len, cap;
};

#endif
