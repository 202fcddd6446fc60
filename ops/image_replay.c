/* image_replay: a layer's tar read again up to a mark (image_replay.h). */
#include <stdlib.h>
#include <string.h>

#include "image_replay.h"
#include "../core/bytepipe.h"

/* The blob's bytes are hashed a piece at a time as the decoder passes
 * them, on a thread (core/bytepipe), from the map, which stays put. */
enum { BLOB_PIECE = 1 << 20 };

struct blob_check {
	struct bytepipe pipe;
	struct sha256 *sha;
	const uint8_t *blob;
	size_t pushed, upto;
};

static void hash_piece(void *ctx, const uint8_t *p, size_t n)
{
	sha256_update(ctx, p, n);
}

/* The blob hashed as far as to (at most its mark's length). */
static void check_to(struct blob_check *bc, size_t to)
{
	if (to > bc->upto)
		to = bc->upto;
	while (bc->pushed < to) {
		size_t n = to - bc->pushed < BLOB_PIECE ? to - bc->pushed
							: BLOB_PIECE;

		bytepipe_push(&bc->pipe, bc->blob + bc->pushed, n);
		bc->pushed += n;
	}
}

/* image_layer_walk's read context is the layer's reader. */
int image_replay_mark(const struct layer_walk *w, struct err *e)
{
	return layer_reader_mark(w->read_ctx, e);
}

int image_replay(struct image *im, size_t layer, const struct layer_walk *w,
		 uint64_t n, struct layer_writer *out, struct err *e)
{
	const struct image_layer *l = &im->layer[layer];
	const char *name = l->digest[0] ? l->digest : l->path;
	struct blob_check bc = { .sha = NULL };
	struct layer_reader *r = NULL;
	struct layer_mark mark;
	char hex[SHA256_HEX + 1];
	uint8_t *buf = NULL;
	uint64_t done = 0;
	bool started = false;
	int rc = -1;

	if (!layer_reader_marked(w->read_ctx, &mark) || n != mark.len)
		return err_code_set(e, ERR_MALFORMED, "layer %s read again "
				    "to where it was not marked", name);
	if (!(bc.sha = sha256_new(e)))
		goto out;
	if (!(buf = malloc(LAYER_PEEK))) {
		err_nomem(e);
		goto out;
	}
	if (layer_writer_known(out, mark.tar, n, e) < 0 ||
	    layer_reader_again(w->read_ctx, &r, e) < 0)
		goto out;
	(void)layer_reader_blob_read(r, &bc.blob);
	bc.upto = mark.blob_len;
	bytepipe_start(&bc.pipe, hash_piece, bc.sha, true);
	started = true;
	while (done < n) {
		size_t ask = n - done < LAYER_PEEK ? (size_t)(n - done)
						   : LAYER_PEEK, got;
		const uint8_t *blob;

		if (layer_reader_read(r, buf, ask, &got, e) < 0) {
			err_wrap(e, e->code, "layer %s", name);
			goto out;
		}
		check_to(&bc, layer_reader_blob_read(r, &blob));
		if (layer_writer_write(out, buf, got, e) < 0)
			goto out;
		done += got;
		if (got < ask)
			break;
	}
	check_to(&bc, bc.upto);
	bytepipe_end(&bc.pipe);
	started = false;
	sha256_hex(bc.sha, hex);
	if (done < n || strcmp(hex, mark.blob_hex)) {
		err_code_file(e, ERR_CHANGED, 0, im->where, "layer %s changed "
			      "while it was read", name);
		goto out;
	}
	rc = 0;
out:
	if (started)
		bytepipe_end(&bc.pipe);
	layer_reader_close(r);
	sha256_free(bc.sha);
	free(buf);
	return rc;
}
