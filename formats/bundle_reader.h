/* bundle_reader: the entries of an open bundle, whatever its layout
 * (bundle_reader.c calls the layout's half). */
#ifndef FORMATS_BUNDLE_READER_H
#define FORMATS_BUNDLE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "bundle.h"

/* Next entry's ID: 1 found, 0 no more. */
int bundle_next(struct bundle_reader *r, struct bundle_entry *ent);
/* The current entry's content, consuming it.  A text entry with no END
 * marker is an error. */
int bundle_content(struct bundle_reader *r, uint64_t *off, uint64_t *size,
		   struct err *e);
/* Step over the current entry's end without reading its content, as LLVM's
 * --list does (for text: past the next END line). */
void bundle_skip(struct bundle_reader *r);

#endif
