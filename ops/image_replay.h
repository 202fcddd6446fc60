/* image_replay: a layer's tar read again up to where a walk of it is,
 * for a walk that starts writing mid-way: image_prune writes a layer only
 * once a file in it changes, and then needs the tar before that file,
 * which it passed without writing.  Decompressing that part again costs
 * less than a second walk of the layer, or a compression of every
 * layer in case one of its files changes; and only that: its digest is
 * the walk's, carried over to the writer, and the blob is checked by its
 * compressed bytes, hashed beside the decoder. */
#ifndef OPS_IMAGE_REPLAY_H
#define OPS_IMAGE_REPLAY_H

#include <stdint.h>

#include "../core/err.h"
#include "image.h"
#include "layer.h"
#include "layer_codec.h"

/* The tar the walk w (in progress: inside image_layer_walk's hooks) has
 * read so far, marked: its length and digest kept, and the digest of
 * the blob read for it.  0, or -1 with e filled. */
int image_replay_mark(const struct layer_walk *w, struct err *e);
/* Later in the same walk: the layer's tar up to the mark, which must be
 * n bytes, decompressed again from the blob the walk reads (its map)
 * and written to out, whose digest of it is the walk's; the blob's bytes
 * read for it compared by their digest with what the walk read: a blob
 * changed between the two reads is refused.  0, or -1 with e filled. */
int image_replay(struct image *im, size_t layer, const struct layer_walk *w,
		 uint64_t n, struct layer_writer *out, struct err *e);

#endif
