/* conda: a conda package pruned, of either format.  A .conda (a zip, its
 * members stored, of metadata.json, info-<name>.tar.zst and
 * pkg-<name>.tar.zst): pkg's tar written again through ops/layer.c (the
 * pruned files' sizes and bytes alone change) and compressed with zstd at
 * conda's level 19; info/paths.json given each pruned file's sha256 and
 * size_in_bytes (read and written by jansson, its keys in their order,
 * indented by 2 as conda-build writes it) and info's tar written again
 * with it; every other zip member copied byte for byte
 * (ops/zip_rewrite.c).  The older .tar.bz2 (one tar of info/ and the
 * files, bzip2): the tar written again the same way, into a scratch file
 * first (info/ comes first, paths.json before the files it describes),
 * then with the new paths.json and compressed with bzip2 at the input's
 * block size.  A pruned file whose bytes do not match its paths.json
 * sha256 is refused. */
#ifndef OPS_CONDA_H
#define OPS_CONDA_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"
#include "layer.h"
#include "prune_types.h"

/* Whether the file at path is one: a zip archive named *.conda, or a
 * bzip2 tar named *.tar.bz2 whose first file is under info/ (as
 * conda-build and cph write them). */
bool conda_is(const char *path);
/* The same of a file's name and bytes. */
bool conda_probe(const char *name, const uint8_t *buf, size_t len);
/* Whether a package conda_is took is a .tar.bz2 (by its name). */
bool conda_is_tarbz2(const char *path);

struct conda_prune_opts {
	struct prune_opts prune;	/* what to keep: prune's own */
	bool dry_run;			/* decide, write nothing */
};

struct conda_prune_result {
	uint64_t files;			/* files pruned */
	uint64_t code_before, code_after;	/* their bytes */
	uint64_t before, after;		/* the package's */
};

/* Prune the package in (taken, closed here) into out, opened by the
 * caller (NULL for a dry run), which commits or discards it: 0, or -1
 * with e filled.  With no file pruned, out gets the package as it was. */
int conda_prune(struct io_in *in, struct io_out *out,
		const struct conda_prune_opts *o,
		struct conda_prune_result *res, struct err *e);

/* Walk the files of its pkg tar (a .tar.bz2: of its one tar, info/
 * among them; w's read set here): 0, or -1 with e filled; for ls, du and
 * extract. */
int conda_walk(const char *path, struct layer_walk *w, struct err *e);
/* The same of a package the caller opened as in (taken). */
int conda_walk_in(struct io_in *in, struct layer_walk *w, struct err *e);

#endif
