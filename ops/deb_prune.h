/* deb_prune: a Debian package written again with the device code prune
 * drops taken out of its files.  The ar members stay in order, their
 * headers as they were but for the sizes; data.tar is written again
 * (ops/layer.c: only the pruned files' sizes and bytes differ) and
 * compressed as it was, at dpkg-deb's level for its codec (gzip 9, xz 6,
 * zstd 3), an xz data tar's blocks that hold no changed file copied as
 * they are (ops/xz_splice.h); control.tar's md5sums gets the pruned files' new sums and
 * control its Installed-Size recomputed as dpkg-gencontrol computes it
 * (KiB, each file rounded up), by the change in each pruned file's size.
 * A pruned file whose bytes do not match its md5sums line is refused: its
 * new sum would hide the damage.  The data tar is written to a scratch
 * file first (the ar header before it holds its size); the output
 * appears whole, by a rename, or not at all. */
#ifndef OPS_DEB_PRUNE_H
#define OPS_DEB_PRUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_types.h"
#include "deb.h"
#include "prune_types.h"

struct deb_prune_opts {
	struct prune_opts prune;	/* what to keep: prune's own */
	uint64_t spill;			/* 0: LAYER_SPILL_DEFAULT */
	bool dry_run;			/* decide, write nothing */
};

struct deb_prune_result {
	uint64_t files;			/* files pruned */
	uint64_t code_before, code_after;	/* their bytes */
	uint64_t data_before, data_after;	/* data.tar.*'s */
	uint64_t deb_before, deb_after;
	/* A data.tar.xz's blocks copied as they were and compressed anew,
	 * and the tar's bytes in them (ops/xz_splice.h). */
	uint64_t blocks_copied, bytes_copied, blocks_made, bytes_made;
	long long installed_before, installed_after;	/* KiB; -1: none */
};

/* Prune d into out, opened by the caller (NULL for a dry run), who
 * commits or discards it: 0, or -1 with e filled. */
int deb_prune(struct deb *d, struct io_out *out, const struct deb_prune_opts *o,
	      struct deb_prune_result *res, struct err *e);

#endif
