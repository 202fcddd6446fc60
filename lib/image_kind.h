/* image_kind: an entry's image kind read when it is first asked for
 * (image_kind.c), not at open: for a bundle entry whose code lies in the
 * file it is the code's first bytes, a page of the file each, which a
 * listing of headers does without (`offload ls` reads none). */
#ifndef LIB_IMAGE_KIND_H
#define LIB_IMAGE_KIND_H

#include <stdbool.h>

#include "artifact_impl.h"

/* Whether entry node n (its target t), walked without image kinds, is
 * one whose image kind ls --json would give from its code's first bytes
 * in the file: those are read when asked (image_kind_read). */
bool image_kind_later(const struct inspect_node *n,
		      const struct inspect_target *t);
/* Entry e's image kind ("elf", ...) from its code's first bytes, kept in
 * e: NULL when they say none, or cannot be read (a file cut short since
 * it was opened). */
const char *image_kind_read(offcode_artifact *a, offcode_entry *e);

#endif
