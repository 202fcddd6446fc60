/* conda: a conda package in the .conda format (a zip, its members stored,
 * of metadata.json, info-<name>.tar.zst and pkg-<name>.tar.zst) pruned:
 * pkg's tar written again through ops/layer.c (the pruned files' sizes
 * and bytes alone change) and compressed with zstd at conda's level 19;
 * info/paths.json given each pruned file's sha256 and size_in_bytes (read
 * and written by jansson, its keys in their order, indented by 2 as
 * conda-build writes it) and info's tar written again with it; every
 * other zip member copied byte for byte (ops/zip_rewrite.c).  A pruned
 * file whose bytes do not match its paths.json sha256 is refused.  The
 * older .tar.bz2 format is not read yet. */
#ifndef OPS_CONDA_H
#define OPS_CONDA_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "layer.h"
#include "prune_types.h"

/* Whether the file at path is one: a zip archive named *.conda. */
bool conda_is(const char *path);

struct conda_prune_opts {
	struct prune_opts prune;	/* what to keep: prune's own */
	bool dry_run;			/* decide, write nothing */
};

struct conda_prune_result {
	uint64_t files;			/* files pruned */
	uint64_t code_before, code_after;	/* their bytes */
	uint64_t before, after;		/* the package's */
};

/* Prune the package at path into out: 0, or -1 with e filled (nothing
 * left at out). */
int conda_prune(const char *path, const char *out,
		const struct conda_prune_opts *o,
		struct conda_prune_result *res, struct err *e);

/* Walk the files of its pkg tar (w's read set here): 0, or -1 with e
 * filled; for ls, du and extract. */
int conda_walk(const char *path, struct layer_walk *w, struct err *e);

#endif
