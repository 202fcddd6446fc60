/* ccob_entries: the code objects of the bundle inside a CCOB, one at a
 * time as the stream is inflated, without holding the whole bundle. */
#ifndef FORMATS_CCOB_ENTRIES_H
#define FORMATS_CCOB_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ccob.h"

/* Entry index of the bundle, data its size bytes; return 0 to go on,
 * anything else stops the stream and is returned. */
typedef int (*ccob_entry_fn)(void *ctx, size_t index, const uint8_t *data,
			     uint64_t size);

/* Whether the n entries that the bundle header hdr (its first bytes,
 * checked by fatbin_bundle_entries) lists lie one after another in the
 * stream, in header order and without overlapping: then each can be
 * handed over as soon as its last byte is inflated. */
bool ccob_entries_in_order(const uint8_t *hdr, size_t n);

/* Inflate the CCOB at buf (header parsed into h), handing each of the n
 * entries of hdr (in order, see ccob_entries_in_order) to fn once whole:
 * only the entry being gathered is held (a buffer as large as the largest
 * entry), and the stream in 1 MiB pieces.  *hash is the inflated bundle's
 * hash (ccob_hash); fn has seen every entry before it is known.  -1 with e
 * filled on a damaged stream (some entries may have gone to fn), or what
 * fn returned. */
int ccob_stream_entries(const uint8_t *buf, size_t len,
			const struct ccob_header *h,
			const struct ccob_limits *lim, const uint8_t *hdr,
			size_t n, ccob_entry_fn fn, void *ctx, uint64_t *hash,
			struct err *e);

#endif
