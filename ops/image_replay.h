/* image_replay: a layer's tar read again up to where a walk of it is,
 * for a walk that starts writing mid-way: image_prune writes a layer only
 * once a file in it changes, and then needs the tar before that file,
 * which it passed without writing.  Decompressing that part again costs
 * less than a second walk of the layer, or a compression of every
 * layer in case one of its files changes. */
#ifndef OPS_IMAGE_REPLAY_H
#define OPS_IMAGE_REPLAY_H

#include <stdint.h>

#include "../core/err.h"
#include "image.h"
#include "layer.h"

/* The tar the walk w (in progress: inside image_layer_walk's hooks) has
 * read so far, marked: its length and digest kept.  0, or -1 with e
 * filled. */
int image_replay_mark(const struct layer_walk *w, struct err *e);
/* Later in the same walk: the first n bytes of the layer's tar (n at
 * most the mark's) decompressed again from its blob and handed to
 * write(ctx, ...), and the tar up to the mark compared by its digest with
 * what the walk read: a blob changed between the two reads is refused.
 * 0, or -1 with e filled. */
int image_replay(struct image *im, size_t layer, const struct layer_walk *w,
		 uint64_t n,
		 int (*write)(void *ctx, const uint8_t *buf, size_t n,
			      struct err *e),
		 void *ctx, struct err *e);

#endif
