/* image_pack: an OCI layout that image_prune built, written as one
 * archive file: an OCI archive (the layout in a tar, as skopeo's
 * oci-archive: reads it) or a docker save archive in the legacy layout
 * (manifest.json, each config as HEX.json, each layer's plain tar as
 * HEX/layer.tar, named by its diff_id), which docker load, podman load
 * and skopeo's docker-archive: read.  Members are written in a fixed
 * order, owned by 0:0, of time 0: the same image gives the same bytes. */
#ifndef OPS_IMAGE_PACK_H
#define OPS_IMAGE_PACK_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "../core/io_types.h"

/* One image of a docker archive: its config's and its layers' digests
 * ("sha256:HEX", the layers' blobs in the layout their plain tars) and
 * the references it is tagged by (its RepoTags, each image_pack_ref_ok),
 * none or more. */
struct image_pack_image {
	const char *config;
	const char **layers;
	size_t nlayers;
	const char *const *refs;
	size_t nrefs;
};

/* The layout dir written to out as an OCI archive: 0, or -1 with e. */
int image_pack_oci(const char *dir, struct io_out *out, struct err *e);
/* The images of the layout dir written to out as a docker archive: its
 * manifest.json, and, when an image is tagged, the older `repositories`
 * (each repository's tags, naming the image's top layer) docker save
 * writes beside it. */
int image_pack_docker(const char *dir, const struct image_pack_image *img,
		      size_t n, struct io_out *out, struct err *e);
/* Whether ref may name an image in a docker archive: the characters of
 * a reference ([A-Za-z0-9_.:/@-], led by a letter or digit), at most 255
 * of them; none needs escaping in JSON. */
bool image_pack_ref_ok(const char *ref);

#endif
