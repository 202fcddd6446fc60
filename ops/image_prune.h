/* image_prune: a container image written again as an OCI image layout
 * with the device code prune drops taken out of its layers.  A layer
 * holding a file prune changes is written again (ops/layer.c: only those
 * files' sizes and bytes differ), compressed as it was or as asked; every
 * other layer is its blob, byte for byte.  The configs' rootfs.diff_ids,
 * the manifests' layer and config descriptors, and the indexes are edited
 * in place (formats/json_edit.c): what did not change keeps its bytes.
 * Layers are done in parallel.  The output appears whole, by a rename of
 * the directory it is built in, or not at all. */
#ifndef OPS_IMAGE_PRUNE_H
#define OPS_IMAGE_PRUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "image.h"
#include "prune_types.h"

/* What the pruned image is written as. */
enum image_output {
	IMAGE_OUT_LAYOUT,		/* an OCI layout directory */
	IMAGE_OUT_OCI_ARCHIVE,		/* that layout in a tar file */
	IMAGE_OUT_DOCKER_ARCHIVE,	/* docker save's legacy tar file */
};

struct image_prune_opts {
	struct prune_opts prune;	/* what to keep: prune's own */
	bool recompress;		/* codec, not each layer's own */
	enum layer_codec codec;
	int level;			/* 0: the codec's default */
	unsigned jobs;
	uint64_t spill;			/* 0: LAYER_SPILL_DEFAULT */
	bool dry_run;			/* decide, write nothing */
	enum image_output output;
	const char *ref;		/* a docker archive's tag, or NULL */
};

/* What became of a layer. */
struct image_layer_result {
	bool changed;
	uint64_t files;			/* files pruned in it */
	uint64_t code_before, code_after;	/* their bytes */
	uint64_t blob_before, blob_after;
	char digest[IMAGE_DIGEST_MAX];	/* its new blob's */
	char diff_id[IMAGE_DIGEST_MAX];
	enum layer_codec codec;
};

/* Prune im into out: an OCI layout directory, which must not exist, or
 * an archive file, replaced whole (the layout is built beside it first);
 * a docker archive's layers are all plain tars, as docker save writes
 * them.  res has a slot per layer of im.  0, or -1 with e filled
 * (nothing left at out). */
int image_prune(struct image *im, const char *out,
		const struct image_prune_opts *o,
		struct image_layer_result *res, struct err *e);

#endif
