/* wheel_prune: a Python wheel written again with the device code prune
 * drops taken out of its members.  Every member prune does not change
 * keeps its local header, data and descriptor byte for byte, in its
 * place; a pruned member gets its new bytes, compressed as it was
 * (deflate at zipfile's level 6, or stored), with its CRC and sizes in
 * both headers; RECORD gets each pruned file's sha256 (urlsafe base64, no
 * padding) and size.  The central directory keeps its order, names,
 * times and attributes, its offsets moved.  A pruned member whose bytes
 * do not match its RECORD line is refused: its new hash would hide the
 * damage.  The output appears whole, by a rename, or not at all. */
#ifndef OPS_WHEEL_PRUNE_H
#define OPS_WHEEL_PRUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_types.h"
#include "prune_types.h"
#include "wheel.h"

struct wheel_prune_opts {
	struct prune_opts prune;	/* what to keep: prune's own */
	bool dry_run;			/* decide, write nothing */
};

struct wheel_prune_result {
	uint64_t files;			/* members pruned */
	uint64_t code_before, code_after;	/* their bytes */
	uint64_t before, after;		/* the wheel's */
};

/* Prune w into out, opened by the caller (NULL for a dry run), who
 * commits or discards it: 0, or -1 with e filled.  With no member
 * pruned, out gets the wheel as it was. */
int wheel_prune(struct wheel *w, struct io_out *out,
		const struct wheel_prune_opts *o,
		struct wheel_prune_result *res, struct err *e);

#endif
