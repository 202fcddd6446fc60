/* inspect_ccob: a CCOB looked into without holding it (the walk of
 * inspect_containers.c with stream_ccob): decompressed once, to check it
 * and its hash, keeping only the bundle header inside and each entry's
 * first bytes. */
#ifndef FORMATS_INSPECT_CCOB_H
#define FORMATS_INSPECT_CCOB_H

#include "../formats/ccob.h"

enum { INSPECT_HEAD = 20 };	/* bytes kept of each entry: enough to tell
				 * ELF (and its machine), bitcode, fatbins */

struct ccob_look {
	uint8_t *head;		/* the bundle's first bytes, its header whole */
	size_t have;		/* of them */
	size_t n;		/* entries, when the header was good */
	uint8_t *firsts;	/* entry i's first bytes at i * INSPECT_HEAD */
	uint64_t hash;		/* of all the bundle's bytes */
	/* fatbin_bundle_entries's verdict on the header: 1 good, -1 with
	 * header_err (said only once the CCOB itself proved good). */
	int header_rc;
	struct err header_err;
};

/* -1 with e filled when the CCOB itself does not decompress (the errors
 * of ccob_decompress); else 0, header_rc saying whether the bundle header
 * inside is good. */
int inspect_ccob_look(const uint8_t *p, size_t size,
		      const struct ccob_header *h,
		      const struct ccob_limits *lim, struct ccob_look *lk,
		      struct err *e);
void inspect_ccob_look_free(struct ccob_look *lk);

#endif
