/* kpack_split: an install tree split as AMD's kpack splitter splits it
 * (ROCm/rocm-kpack python/rocm_kpack/artifact_splitter.py, run with the
 * tree as one artifact prefix), its per-GPU artefacts installed together:
 *
 *   OUT/<path in TREE>        every file and symbolic link of TREE; each
 *                             fat host binary rewritten (ops/kpack_host.h)
 *   OUT/.kpack/NAME_<gfx>.kpack  the code objects of one target, TOC keys
 *                             NAME/<path in TREE>#<index>
 *
 * Input order (the archives' bytes depend on it): the files of TREE in
 * core/tree's walk, depth first, each directory's entries in strcmp order
 * of their names (rocm-kpack walks os.scandir's order, which the file
 * system chooses: sorted by name, the two agree); in each file, the
 * bundles of .hip_fatbin in file order and each bundle's entries in
 * order; <index> counts a file's code objects of one target from 0; the
 * archives' targets in the order their first code object came. */
#ifndef OPS_KPACK_SPLIT_H
#define OPS_KPACK_SPLIT_H

#include <stddef.h>

#include "../core/err.h"
#include "../formats/ccob.h"
#include "../formats/kpack.h"
#include "../formats/package.h"

struct kpack_split_opts {
	const char *tree;	/* without a trailing '/' */
	const char *out;
	const char *name;	/* the artifact prefix: archive names, keys */
	enum kpack_scheme scheme;
	struct ccob_limits ccob;
	struct package_limits package;
};

struct kpack_split_stats {
	size_t files, hosts, archives, kernels, symlinks;
};

/* Split o->tree into o->out: o->out opened once, every output (symbolic
 * links too) made under it (core/io_out.h io_out_open_under) and renamed
 * in only when all are (io_out_together).  -1 with e filled (naming the
 * file) on the first failure, nothing left in o->out. */
int kpack_split(const struct kpack_split_opts *o, struct kpack_split_stats *st,
		struct err *e);

#endif
