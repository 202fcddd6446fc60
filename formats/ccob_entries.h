/* ccob_entries: the bundle inside a CCOB read without holding it: its
 * header alone (what decides a prune, or lists it), or its code objects
 * one at a time as the stream is inflated. */
#ifndef FORMATS_CCOB_ENTRIES_H
#define FORMATS_CCOB_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ccob.h"

/* The bundle header inside the CCOB at buf (its own header parsed into
 * h), inflated up to its end and no further: the entries' code after it
 * is never decoded, and memory stays that of the header (a first look of
 * 64 KiB, more only when the header is longer).  *head (malloc'd, the
 * caller frees it; NULL on failure) holds the bundle's first *have bytes,
 * its *n entries checked by fatbin_bundle_entries against h->raw_size
 * (their IDs, offsets and sizes read from there).  -1 with e filled when
 * the stream ends or fails first, or the header is damaged ("the bundle
 * inside: ..."). */
int ccob_bundle_head(const uint8_t *buf, size_t len,
		     const struct ccob_header *h, uint8_t **head, size_t *have,
		     size_t *n, struct err *e);

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
