/* bundle_binary: the binary __CLANG_OFFLOAD_BUNDLE__ layout, planned and
 * read (bundle_binary.c). */
#ifndef FORMATS_BUNDLE_BINARY_H
#define FORMATS_BUNDLE_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "bundle.h"

/* Binary layout: header in ids order, each input at the next multiple of
 * align after the previous one. */
int bundle_plan_binary(const char *const *ids, const uint64_t *sizes, size_t n,
		       uint64_t align, struct bundle_plan *plan, struct err *e);
/* Starts like a binary bundle (the magic and one byte more, as LLVM asks). */
bool bundle_is_binary(const uint8_t *buf, size_t len);
/* Parse a binary bundle's header.  A buffer that is not a bundle, or whose
 * first entry is unreadable, holds no entries (as LLVM reads it); a header
 * that breaks off after a good entry is an error (LLVM 22 crashes there). */
int bundle_open_binary(struct bundle_reader *r, const uint8_t *buf, size_t len,
		       struct err *e);
/* The same from the first got bytes of a bundle of len bytes, as they
 * arrive: 1 and *need (at most len) when they are too few to tell. */
int bundle_open_binary_part(struct bundle_reader *r, const uint8_t *buf,
			    size_t got, size_t len, size_t *need, struct err *e);
/* Where an open binary bundle ends: after its header and every entry's
 * data (what follows may be another bundle). */
size_t bundle_binary_extent(const struct bundle_reader *r);
/* This layout's half of bundle_next and bundle_content (bundle_reader.h). */
int bundle_next_binary(struct bundle_reader *r, struct bundle_entry *ent);
int bundle_content_binary(const struct bundle_reader *r, uint64_t *off,
			  uint64_t *size, struct err *e);

#endif
