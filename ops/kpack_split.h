/* kpack_split: an install tree, an artifact directory of ROCm's build or
 * a batch of them split as AMD's kpack splitter splits them
 * (ROCm/rocm-kpack python/rocm_kpack/artifact_splitter.py and
 * tools/split_artifacts.py; a plain tree is an artifact of the one prefix
 * NAME).  Per target, the splitter's layout:
 *
 *   OUT/NAME_generic/<prefix>/<path>   every file and symbolic link; each
 *                             fat host binary rewritten (ops/kpack_host.h)
 *   OUT/NAME_<gfx>/<prefix>/.kpack/NAME_<gfx>.kpack  the code objects of
 *                             one target, TOC keys <prefix>/<path>#<index>
 *   OUT/NAME_<gfx>/<prefix>/<path>     the kernel database files of <gfx>
 *   OUT/NAME_.../artifact_manifest.txt  the prefixes of each
 *
 * Installed, the per-GPU artefacts and the generic one put together:
 * OUT/<prefix>/<path> (a plain tree's files at OUT/<path>) and
 * OUT/<prefix>/.kpack/NAME_<gfx>.kpack.
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

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "../formats/ccob.h"
#include "../formats/kpack.h"
#include "../formats/package.h"

enum kpack_input {
	KPACK_INPUT_TREE,	/* an install tree, its one prefix name */
	KPACK_INPUT_ARTIFACT,	/* a directory with an artifact_manifest.txt */
	KPACK_INPUT_BATCH,	/* a directory of artifact directories */
};

struct kpack_database;

struct kpack_split_opts {
	const char *tree;	/* without a trailing '/' */
	const char *out;
	const char *name;	/* the artifact prefix: archive names (each
				 * artifact's own in a batch) */
	enum kpack_input input;
	bool per_target;	/* the splitter's layout, else installed */
	/* The databases moved (per target), first match first. */
	const struct kpack_database *const *databases;
	size_t ndatabases;
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
