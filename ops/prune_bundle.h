/* prune_bundle: binary bundles and CCOBs pruned one container at a time
 * (the bundle and ccob rows of ops/kinds.c), and bundles made CCOBs
 * (--compress).  A CCOB is decided by the entry IDs of the bundle header
 * at the start of its stream, inflated that far and no further; it is
 * inflated whole only when some of its entries stay and others with code
 * go. */
#ifndef OPS_PRUNE_BUNDLE_H
#define OPS_PRUNE_BUNDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "prune_impl.h"

/* A bundle or CCOB of a region, size bytes at buf (at file_off): 1 with
 * its rewrite in *pt, 0 when all stay. */
int prune_kind_bundle(struct pruner *p, const uint8_t *buf, uint64_t size,
		      uint64_t file_off, struct prune_patch *pt);
int prune_kind_ccob(struct pruner *p, const uint8_t *buf, uint64_t size,
		    uint64_t file_off, struct prune_patch *pt);
/* --compress: the bundle made a CCOB of `version` (the bundle kind's row
 * of ops/kinds.c; see kinds.h). */
int prune_compress_bundle(const struct prune_opts *o, unsigned version,
			  const uint8_t *buf, uint64_t size,
			  struct prune_patch *pt, struct prune_spool *sp,
			  struct err *e);
/* Whether prune_compress_bundle will hash a bundle of size bytes. */
bool prune_compress_bundle_hash(const struct prune_opts *o, unsigned version,
				uint64_t size);

#endif
