/* image_root: the root directory an image's layers make when unpacked one
 * over the other (as umoci unpack and the container runtimes do), told
 * from their tar members alone: a file a later layer writes again, or
 * removes with a whiteout (".wh.NAME") or an opaque directory
 * (".wh..wh..opq": what lower layers put under it goes), is not in it; a
 * hard link is the file it names.  Each layer's members are noted as its
 * stream is walked (image_root_note, a layer_walk's entry hook), then the
 * root of any order of layers is made (image_root_files): a multi-platform
 * image's manifests share layers. */
#ifndef OPS_IMAGE_ROOT_H
#define OPS_IMAGE_ROOT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "layer.h"

/* The members of one layer, in stream order. */
struct image_root_layer {
	struct image_root_note *v;
	size_t n, cap;
};

/* A layer_walk's entry hook: ctx a struct image_root_layer. */
int image_root_note(void *ctx, const struct layer_member *m, struct err *e);
void image_root_layer_free(struct image_root_layer *l);

/* The regular files of the root layers[0..n) make (bottom first), each
 * once however many names it has, in the order they were written: fn
 * gets the position of its layer in layers, its member's index in that
 * layer's stream and its size.  0, or -1 (out of memory, or fn's -1)
 * with e filled. */
int image_root_files(const struct image_root_layer *const *layers, size_t n,
		     int (*fn)(void *ctx, size_t layer, uint64_t index,
			       uint64_t size),
		     void *ctx, struct err *e);

#endif
