/* kpack_join_artifacts: the generic artifact of a split and any set of
 * its per-GPU artifacts (offload kpack split's per-target layout, or
 * rocm-kpack's split_artifacts) made one fat artifact again (offload
 * kpack join GENERIC GPU...):
 *
 *   OUT/artifact_manifest.txt   the generic's prefixes, then the GPUs' it
 *                               lacks
 *   OUT/<prefix>/<path>         every file and link of the generic
 *                               artifact, each kpack-split host binary
 *                               joined (ops/kpack_join.h) from the archives
 *                               its search paths find in the GPU artifacts'
 *                               trees; and every file and link of the GPU
 *                               artifacts but their archives (.kpack/
 *                               *.kpack): their kernel database files. */
#ifndef OPS_KPACK_JOIN_ARTIFACTS_H
#define OPS_KPACK_JOIN_ARTIFACTS_H

#include <stddef.h>

#include "../core/err.h"
#include "../core/select.h"

struct kpack_join_artifacts_opts {
	const char *out;
	const char *generic;
	const char *const *gpus;
	size_t ngpus;
	struct select *sel;	/* -t, or NULL */
};

struct kpack_join_artifacts_stats {
	size_t files, joined, links;
};

/* -1 with e filled (naming the file) on the first failure, nothing left
 * in OUT: its outputs commit together (core/io_out.h). */
int kpack_join_artifacts(const struct kpack_join_artifacts_opts *o,
			 struct kpack_join_artifacts_stats *st, struct err *e);

#endif
