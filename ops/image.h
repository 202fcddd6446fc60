/* image: a container image read: an OCI image layout (a directory,
 * "oci:DIR[:TAG]", or a plain directory holding an oci-layout file), an
 * OCI archive (that layout in a tar, "oci-archive:FILE") or what docker
 * save writes ("docker-archive:FILE": the legacy manifest.json layout, or
 * the OCI layout newer Docker writes, read as an OCI archive).  Every
 * manifest of a multi-platform index is read; every blob is checked
 * against its digest and size as it is read, and a layer against its
 * diff_id as it is decompressed (image_layer_walk). */
#ifndef OPS_IMAGE_H
#define OPS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/sha256.h"
#include "layer.h"
#include "layer_codec.h"

enum image_transport {
	IMAGE_OCI_DIR,
	IMAGE_OCI_ARCHIVE,
	IMAGE_DOCKER_ARCHIVE,	/* the legacy layout of docker save */
};

/* "sha256:" and 64 hex digits. */
enum { IMAGE_DIGEST_MAX = 7 + SHA256_HEX + 1, IMAGE_REPO_TAGS_MAX = 256 };

struct image_layer {
	char digest[IMAGE_DIGEST_MAX];	/* of the blob ("" legacy docker) */
	char diff_id[IMAGE_DIGEST_MAX];	/* of its tar, from the config */
	uint64_t size;
	char *path;		/* legacy docker: its member's name */
	enum layer_codec codec;
	char *media_type;
};

struct image_manifest {
	char digest[IMAGE_DIGEST_MAX];	/* "" for a legacy docker image */
	uint64_t size;
	char *media_type;
	char platform[64];	/* "linux/amd64", "" when the index says none */
	char ref[128];		/* legacy docker: the tag of its first RepoTag */
	char **repo_tags;	/* legacy docker: its RepoTags, whole */
	size_t nrepo_tags;
	char *text;		/* the manifest's bytes (legacy: NULL) */
	size_t len;
	char config_digest[IMAGE_DIGEST_MAX];
	char *config;		/* the config's bytes */
	size_t config_len;
	size_t *layer;		/* indices into image.layer, bottom first */
	size_t nlayers;
};

/* An index an index names (a multi-platform image's, under index.json). */
struct image_index {
	char digest[IMAGE_DIGEST_MAX];
	uint64_t size;
	char *text;
	size_t len;
};

struct image {
	enum image_transport transport;
	char *where;		/* the directory or archive */
	const char *tag;	/* oci:DIR:TAG's, or NULL */
	struct io_in archive;	/* an archive's bytes, mapped */
	struct image_member *member;	/* an archive's files */
	size_t nmember;
	char *index;		/* index.json's bytes (legacy: NULL) */
	size_t index_len;
	struct image_index *sub;	/* parents before children */
	size_t nsub;
	struct image_manifest *manifest;
	size_t nmanifest;
	struct image_layer *layer;	/* each blob once */
	size_t nlayer;
};

/* Whether spec names an image: a transport prefix, a directory with an
 * oci-layout file, or a tar file holding oci-layout or manifest.json. */
bool image_is(const char *spec);
/* Read the image spec names (its index, manifests and configs, each
 * checked): 0, or -1 with e filled (e's path names the blob). */
int image_open(struct image *im, const char *spec, struct err *e);
void image_close(struct image *im);

/* The layer's blob, checked against its size and, with check, its
 * digest (a legacy docker layer's by its diff_id, when walked): closed by
 * image_blob_close(in, path).  -1 with e filled. */
int image_layer_blob(struct image *im, size_t layer, bool check,
		     struct io_in *in, char **path, struct err *e);
void image_blob_close(struct io_in *in, char **path);
/* Walk the layer's tar (w's read is set here), checking the blob's digest
 * and the tar's diff_id as they are read: 0, or -1 with e filled (a
 * damaged blob may have been walked in part). */
int image_layer_walk(struct image *im, size_t layer, struct layer_walk *w,
		     struct err *e);
/* The codec of the layer's blob, by its first bytes, as the walk takes
 * it: 0, or -1 with e filled. */
int image_layer_codec(struct image *im, size_t layer, enum layer_codec *c,
		      struct err *e);

#endif
