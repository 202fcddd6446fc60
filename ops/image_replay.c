/* image_replay: a layer's tar read again up to a mark (image_replay.h). */
#include <stdlib.h>
#include <string.h>

#include "image_replay.h"
#include "layer_codec.h"

/* image_layer_walk's read context is the layer's reader. */
int image_replay_mark(const struct layer_walk *w, struct err *e)
{
	return layer_reader_mark(w->read_ctx, e);
}

int image_replay(struct image *im, size_t layer, const struct layer_walk *w,
		 uint64_t n,
		 int (*write)(void *ctx, const uint8_t *buf, size_t n,
			      struct err *e),
		 void *ctx, struct err *e)
{
	const struct image_layer *l = &im->layer[layer];
	const char *name = l->digest[0] ? l->digest : l->path;
	struct layer_reader *r = NULL;
	char want[SHA256_HEX + 1], hex[SHA256_HEX + 1], *path = NULL;
	uint8_t *buf = NULL;
	uint64_t upto, done = 0;
	struct io_in in;
	int rc = -1;

	if (!layer_reader_marked(w->read_ctx, want, &upto) || n > upto)
		return err_code_set(e, ERR_MALFORMED, "layer %s read again "
				    "past its mark", name);
	if (image_layer_blob(im, layer, false, &in, &path, e) < 0)
		return -1;
	if (!(buf = malloc(LAYER_PEEK))) {
		err_nomem(e);
		goto out;
	}
	/* Its digest on a thread too: the part read again may be most of
	 * a layer (a big file before the one that changes). */
	if (layer_reader_open(&r, l->codec, in.data, in.len, e) < 0 ||
	    layer_reader_thread(r, e) < 0)
		goto out;
	if (in.map)
		layer_reader_mapped(r, &in);
	while (done < upto) {
		size_t ask = upto - done < LAYER_PEEK ? (size_t)(upto - done)
						      : LAYER_PEEK, got;

		if (layer_reader_read(r, buf, ask, &got, e) < 0) {
			err_wrap(e, e->code, "layer %s", name);
			goto out;
		}
		if (done < n && write(ctx, buf, n - done < got ?
					       (size_t)(n - done) : got, e) < 0)
			goto out;
		done += got;
		if (got < ask)
			break;
	}
	layer_reader_digest(r, hex);
	if (done < upto || strcmp(hex, want)) {
		err_code_file(e, ERR_CHANGED, 0, im->where, "layer %s changed "
			      "while it was read", name);
		goto out;
	}
	rc = 0;
out:
	layer_reader_close(r);
	free(buf);
	image_blob_close(&in, &path);
	return rc;
}
