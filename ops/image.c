/* image: OCI layouts, OCI archives and docker save archives read and
 * checked (image.h).  JSON is read with jansson. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"
#include "image_archive.h"
#include "image_pack.h"

enum { INDEX_DEPTH_MAX = 4, MANIFESTS_MAX = 4096, LAYERS_MAX = 4096 };

static bool digest_valid(const char *d)
{
	if (strncmp(d, "sha256:", 7) || strlen(d) != 7 + SHA256_HEX)
		return false;
	for (const char *p = d + 7; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

static const char *prefix_after(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) ? NULL : s + n;
}

/* A file of the image by its name in the layout: mapped from the
 * directory (*path the name it was opened by, the caller's to free after
 * in's close), or its bytes in the archive (*path NULL). */
static int image_file(struct image *im, const char *name, struct io_in *in,
		      char **path, struct err *e)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	*path = NULL;
	if (im->transport == IMAGE_OCI_DIR) {
		if (asprintf(path, "%s/%s", im->where, name) < 0) {
			*path = NULL;
			return err_nomem(e);
		}
		if (io_in_open(in, *path, e) < 0) {
			free(*path);
			*path = NULL;
			return -1;
		}
		return 0;
	}
	for (size_t i = 0; i < im->nmember; i++)
		if (!strcmp(im->member[i].name, name)) {
			in->data = im->archive.data + im->member[i].offset;
			in->len = (size_t)im->member[i].size;
			return 0;
		}
	return err_code_file(e, ERR_NOTHING, ENOENT, im->where,
			     "no %s in the archive", name);
}

static void image_file_close(struct io_in *in, char **path)
{
	io_in_close(in);
	free(*path);
	*path = NULL;
}

/* The blob of digest, checked: its size (want_size, unless UINT64_MAX)
 * and its digest. */
/* The SHA-256 of a blob, read in pieces by pread where it is a file of
 * its own, else from the archive's map, each piece let go of after: the
 * resident memory does not grow with the blob. */
static int hash_blob(struct image *im, const struct io_in *in, char *hex,
		     struct err *e)
{
	enum { PIECE = 1 << 20 };
	struct sha256 *s = sha256_new(e);
	uint8_t *buf = NULL;
	uint64_t off = 0;
	int rc = -1;

	if (!s)
		goto out;
	if (in->fd >= 0 && !(buf = malloc(PIECE))) {
		err_nomem(e);
		goto out;
	}
	while (off < in->len) {
		size_t n = in->len - off < PIECE ? (size_t)(in->len - off) : PIECE;

		if (buf) {
			ssize_t got = pread(in->fd, buf, n, (off_t)off);

			if (got <= 0) {
				err_sys(e, im->where, got < 0 ? errno : EIO);
				goto out;
			}
			sha256_update(s, buf, (size_t)got);
			off += (uint64_t)got;
			continue;
		}
		sha256_update(s, in->data + off, n);
		if (im->archive.map) {
			uint64_t at = (uint64_t)(in->data - im->archive.data);

			io_in_hint(&im->archive, at + off, at + off + n,
				   IO_IN_DONE);
		}
		off += n;
	}
	sha256_hex(s, hex);
	rc = 0;
out:
	free(buf);
	sha256_free(s);
	return rc;
}

static int blob_read(struct image *im, const char *digest,
		     uint64_t want_size, bool check, struct io_in *in,
		     char **path, struct err *e);

static int blob(struct image *im, const char *digest, uint64_t want_size,
		struct io_in *in, char **path, struct err *e)
{
	return blob_read(im, digest, want_size, true, in, path, e);
}

/* The same, its digest checked (check) now, or by the caller as it reads
 * it (a layer's, streamed). */
static int blob_read(struct image *im, const char *digest,
		     uint64_t want_size, bool check, struct io_in *in,
		     char **path, struct err *e)
{
	char name[16 + IMAGE_DIGEST_MAX], hex[SHA256_HEX + 1];

	if (!digest_valid(digest))
		return err_code_file(e, ERR_MALFORMED, 0, im->where, "blob "
				     "digest '%.80s' is not sha256:<64 hex "
				     "digits>", digest);
	snprintf(name, sizeof(name), "blobs/sha256/%s", digest + 7);
	if (image_file(im, name, in, path, e) < 0) {
		if (e->code == ERR_NOTHING || e->errnum == ENOENT)
			return err_code_file(e, ERR_NOTHING, ENOENT, im->where,
					     "blob %s is missing", digest);
		return -1;
	}
	if (want_size != UINT64_MAX && in->len != want_size) {
		size_t len = in->len;

		image_file_close(in, path);
		return err_code_file(e, ERR_MALFORMED, 0, im->where,
				     "blob %s is %zu bytes, not the %llu its "
				     "descriptor says", digest, len,
				     (unsigned long long)want_size);
	}
	if (!check)
		return 0;
	if (hash_blob(im, in, hex, e) < 0) {
		image_file_close(in, path);
		return -1;
	}
	if (strcmp(hex, digest + 7)) {
		image_file_close(in, path);
		return err_code_file(e, ERR_MALFORMED, 0, im->where, "blob %s "
				     "does not match its digest (it is "
				     "sha256:%s)", digest, hex);
	}
	return 0;
}

/* A JSON file's bytes, copied (they outlive a directory's map). */
static int json_bytes(struct image *im, const char *what, struct io_in *in,
		      char **text, size_t *len, json_t **root, struct err *e)
{
	json_error_t jerr;

	if (!(*text = malloc(in->len + 1)))
		return err_nomem(e);
	memcpy(*text, in->data, in->len);
	(*text)[in->len] = '\0';
	*len = in->len;
	if (!(*root = json_loadb(*text, *len, JSON_REJECT_DUPLICATES, &jerr)))
		return err_code_file(e, ERR_MALFORMED, 0, im->where,
				     "%s is not JSON: %s", what, jerr.text);
	return 0;
}

static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int descriptor(struct image *im, json_t *d, const char *what,
		      const char **digest, uint64_t *size, struct err *e)
{
	json_t *s = json_object_get(d, "size");

	*digest = str_of(d, "digest");
	if (!json_is_object(d) || !*digest || !json_is_integer(s) ||
	    json_integer_value(s) < 0)
		return err_code_file(e, ERR_MALFORMED, 0, im->where, "%s "
				     "descriptor without a digest and a size",
				     what);
	if (!digest_valid(*digest))
		return err_code_file(e, ERR_MALFORMED, 0, im->where, "%s "
				     "digest '%.80s' is not sha256:<64 hex "
				     "digits>", what, *digest);
	*size = (uint64_t)json_integer_value(s);
	return 0;
}

static int add_layer(struct image *im, const char *digest, uint64_t size,
		     const char *media_type, const char *path, size_t *idx,
		     struct err *e)
{
	struct image_layer *l;

	for (size_t i = 0; i < im->nlayer; i++)
		if (digest[0] ? !strcmp(im->layer[i].digest, digest)
			      : !strcmp(im->layer[i].path, path)) {
			*idx = i;
			return 0;
		}
	if (im->nlayer >= LAYERS_MAX)
		return err_code_file(e, ERR_MALFORMED, 0, im->where, "more "
				     "than %d layers", LAYERS_MAX);
	l = realloc(im->layer, (im->nlayer + 1) * sizeof(*l));
	if (!l)
		return err_nomem(e);
	im->layer = l;
	l = &im->layer[im->nlayer];
	memset(l, 0, sizeof(*l));
	snprintf(l->digest, sizeof(l->digest), "%s", digest);
	l->size = size;
	if (!(l->media_type = strdup(media_type ? media_type : "")) ||
	    (path && !(l->path = strdup(path))))
		return err_nomem(e);
	*idx = im->nlayer++;
	return 0;
}

/* The config's rootfs.diff_ids given to the manifest's layers. */
static int diff_ids(struct image *im, struct image_manifest *m,
		    struct err *e)
{
	json_error_t jerr;
	json_t *root = json_loadb(m->config, m->config_len, 0, &jerr);
	json_t *ids = json_object_get(json_object_get(root, "rootfs"),
				      "diff_ids");
	int rc = -1;

	if (!root) {
		err_code_file(e, ERR_MALFORMED, 0, im->where, "config %s is "
			      "not JSON: %s", m->config_digest, jerr.text);
		goto out;
	}
	if (!json_is_array(ids) || json_array_size(ids) != m->nlayers) {
		err_code_file(e, ERR_MALFORMED, 0, im->where, "config %s has "
			      "%zu diff_ids for %zu layers", m->config_digest,
			      json_is_array(ids) ? json_array_size(ids) : 0,
			      m->nlayers);
		goto out;
	}
	for (size_t i = 0; i < m->nlayers; i++) {
		json_t *v = json_array_get(ids, i);
		struct image_layer *l = &im->layer[m->layer[i]];
		const char *id = json_is_string(v) ? json_string_value(v) : "";

		if (!digest_valid(id)) {
			err_code_file(e, ERR_MALFORMED, 0, im->where, "config "
				      "%s: diff_id '%.80s' is not sha256:<64 "
				      "hex digits>", m->config_digest, id);
			goto out;
		}
		if (l->diff_id[0] && strcmp(l->diff_id, id)) {
			err_code_file(e, ERR_MALFORMED, 0, im->where, "layer "
				      "%s has two diff_ids", l->digest);
			goto out;
		}
		snprintf(l->diff_id, sizeof(l->diff_id), "%s", id);
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

static struct image_manifest *new_manifest(struct image *im, struct err *e)
{
	struct image_manifest *m;

	if (im->nmanifest >= MANIFESTS_MAX) {
		err_code_file(e, ERR_MALFORMED, 0, im->where, "more than %d "
			      "manifests", MANIFESTS_MAX);
		return NULL;
	}
	m = realloc(im->manifest, (im->nmanifest + 1) * sizeof(*m));
	if (!m) {
		err_nomem(e);
		return NULL;
	}
	im->manifest = m;
	m = &im->manifest[im->nmanifest++];
	memset(m, 0, sizeof(*m));
	return m;
}

static int config_blob(struct image *im, struct image_manifest *m,
		       const char *digest, uint64_t size, struct err *e)
{
	struct io_in in;
	char *path;
	int rc;

	if (blob(im, digest, size, &in, &path, e) < 0)
		return -1;
	snprintf(m->config_digest, sizeof(m->config_digest), "%s", digest);
	rc = (m->config = malloc(in.len + 1)) ? 0 : err_nomem(e);
	if (!rc) {
		memcpy(m->config, in.data, in.len);
		m->config[in.len] = '\0';
		m->config_len = in.len;
	}
	image_file_close(&in, &path);
	return rc;
}

/* An OCI or Docker image manifest: its config and layers. */
static int manifest(struct image *im, json_t *desc, struct err *e)
{
	struct image_manifest *m;
	const char *digest, *mt;
	uint64_t size;
	struct io_in in;
	json_t *root = NULL, *layers, *plat;
	char *path;
	int rc = -1;

	if (descriptor(im, desc, "manifest", &digest, &size, e) < 0)
		return -1;
	/* Named again (two tags of one image): read once, and the edit of
	 * its digest reaches every descriptor that names it.  Another size
	 * is read, and refused by blob(). */
	for (size_t i = 0; i < im->nmanifest; i++)
		if (!strcmp(im->manifest[i].digest, digest) &&
		    im->manifest[i].size == size)
			return 0;
	if (!(m = new_manifest(im, e)))
		return -1;
	snprintf(m->digest, sizeof(m->digest), "%s", digest);
	m->size = size;
	mt = str_of(desc, "mediaType");
	if (!(m->media_type = strdup(mt ? mt : "")))
		return err_nomem(e);
	plat = json_object_get(desc, "platform");
	if (json_is_object(plat) && str_of(plat, "os") &&
	    str_of(plat, "architecture"))
		snprintf(m->platform, sizeof(m->platform), "%s/%s%s%s",
			 str_of(plat, "os"), str_of(plat, "architecture"),
			 str_of(plat, "variant") ? "/" : "",
			 str_of(plat, "variant") ? str_of(plat, "variant") : "");
	if (blob(im, digest, size, &in, &path, e) < 0)
		return -1;
	rc = json_bytes(im, "manifest", &in, &m->text, &m->len, &root, e);
	image_file_close(&in, &path);
	if (rc < 0)
		goto out;
	rc = -1;
	layers = json_object_get(root, "layers");
	if (!json_is_array(layers) ||
	    descriptor(im, json_object_get(root, "config"), "config", &digest,
		       &size, e) < 0) {
		if (!json_is_array(layers))
			err_code_file(e, ERR_MALFORMED, 0, im->where, "manifest "
				      "%s has no layers", m->digest);
		goto out;
	}
	if (config_blob(im, m, digest, size, e) < 0)
		goto out;
	if (!(m->layer = calloc(json_array_size(layers) + 1, sizeof(size_t)))) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < json_array_size(layers); i++) {
		json_t *d = json_array_get(layers, i);

		if (descriptor(im, d, "layer", &digest, &size, e) < 0 ||
		    add_layer(im, digest, size, str_of(d, "mediaType"), NULL,
			      &m->layer[i], e) < 0)
			goto out;
		m->nlayers++;
	}
	rc = diff_ids(im, m, e);
out:
	json_decref(root);
	return rc;
}

static bool is_index(const char *mt)
{
	return mt && (strstr(mt, "image.index") || strstr(mt, "manifest.list"));
}

static int add_sub(struct image *im, const char *digest, uint64_t size,
		   char *text, size_t len, struct err *e)
{
	struct image_index *n;

	if (!(n = realloc(im->sub, (im->nsub + 1) * sizeof(*n)))) {
		free(text);
		return err_nomem(e);
	}
	im->sub = n;
	n = &im->sub[im->nsub++];
	snprintf(n->digest, sizeof(n->digest), "%s", digest);
	n->size = size;
	n->text = text;
	n->len = len;
	return 0;
}

/* An index's manifests (an index in it read in turn). */
static int index_manifests(struct image *im, json_t *root, int depth,
			   struct err *e)
{
	json_t *list = json_object_get(root, "manifests");

	if (!json_is_array(list))
		return err_code_file(e, ERR_MALFORMED, 0, im->where, "index "
				     "without manifests");
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *d = json_array_get(list, i), *sub;
		json_t *ann = json_object_get(d, "annotations");
		const char *ref = str_of(ann, "org.opencontainers.image.ref.name");
		const char *digest;
		uint64_t size;
		struct io_in in;
		char *text, *path;
		size_t len;
		int rc;

		if (depth == 0 && im->tag && (!ref || strcmp(ref, im->tag)))
			continue;
		if (!is_index(str_of(d, "mediaType"))) {
			if (manifest(im, d, e) < 0)
				return -1;
			continue;
		}
		if (depth >= INDEX_DEPTH_MAX)
			return err_code_file(e, ERR_MALFORMED, 0, im->where,
					     "indexes nested too deep");
		if (descriptor(im, d, "index", &digest, &size, e) < 0 ||
		    blob(im, digest, size, &in, &path, e) < 0)
			return -1;
		rc = json_bytes(im, "index", &in, &text, &len, &sub, e);
		image_file_close(&in, &path);
		if (rc == 0)
			rc = add_sub(im, digest, size, text, len, e);
		else
			free(text);
		if (rc == 0)
			rc = index_manifests(im, sub, depth + 1, e);
		json_decref(sub);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int oci(struct image *im, struct err *e)
{
	struct io_in in;
	json_t *root = NULL;
	char *path;
	int rc;

	if (image_file(im, "oci-layout", &in, &path, e) < 0)
		return err_wrap(e, e->code, "not an OCI image layout");
	image_file_close(&in, &path);
	if (image_file(im, "index.json", &in, &path, e) < 0)
		return -1;
	rc = json_bytes(im, "index.json", &in, &im->index, &im->index_len,
			&root, e);
	image_file_close(&in, &path);
	if (rc == 0)
		rc = index_manifests(im, root, 0, e);
	json_decref(root);
	if (rc == 0 && !im->nmanifest)
		rc = err_code_file(e, ERR_NOTHING, 0, im->where, im->tag ?
				   "no manifest tagged %s" : "no manifest%s",
				   im->tag ? im->tag : "");
	return rc;
}

/* Every RepoTag of a legacy image kept whole, for a docker archive
 * written of it: each NAME:TAG of a reference's characters
 * (image_pack_ref_ok: none to escape in JSON). */
static int repo_tags(struct image *im, struct image_manifest *m, json_t *tags,
		     struct err *e)
{
	size_t n = json_is_array(tags) ? json_array_size(tags) : 0;

	if (!n)
		return 0;
	if (n > IMAGE_REPO_TAGS_MAX)
		return err_code_file(e, ERR_MALFORMED, 0, im->where,
				     "manifest.json: %zu RepoTags (at most %d)",
				     n, IMAGE_REPO_TAGS_MAX);
	if (!(m->repo_tags = calloc(n, sizeof(char *))))
		return err_nomem(e);
	for (size_t i = 0; i < n; i++) {
		json_t *t = json_array_get(tags, i);
		const char *tag = json_is_string(t) ? json_string_value(t) : "";

		const char *colon = strrchr(tag, ':');

		/* NAME:TAG, as docker save writes them and docker and
		 * podman load take them. */
		if (!image_pack_ref_ok(tag) || strchr(tag, '@') || !colon ||
		    strchr(colon, '/') || !colon[1] ||
		    strlen(tag) != json_string_length(t))
			return err_code_file(e, ERR_MALFORMED, 0, im->where,
					     "manifest.json: RepoTag %zu is no "
					     "NAME:TAG (letters, digits, _ . : "
					     "/ -)", i + 1);
		if (!(m->repo_tags[i] = strdup(tag)))
			return err_nomem(e);
		m->nrepo_tags++;
	}
	return 0;
}

/* One image of a legacy docker save archive: its config and the names
 * of its layers' tar files. */
static int docker_image(struct image *im, json_t *d, struct err *e)
{
	json_t *layers = json_object_get(d, "Layers");
	const char *config = str_of(d, "Config");
	struct image_manifest *m;
	struct io_in cin;
	char *cpath;

	if (!config || !json_is_array(layers))
		return err_code_file(e, ERR_MALFORMED, 0, im->where,
				     "manifest.json: an image without Config "
				     "and Layers");
	if (!(m = new_manifest(im, e)))
		return -1;
	if (!(m->media_type = strdup("")) ||
	    !(m->layer = calloc(json_array_size(layers) + 1, sizeof(size_t))))
		return err_nomem(e);
	if (image_file(im, config, &cin, &cpath, e) < 0)
		return -1;
	snprintf(m->config_digest, sizeof(m->config_digest), "%.*s",
		 (int)sizeof(m->config_digest) - 1, config);
	{
		json_t *tags = json_object_get(d, "RepoTags");
		json_t *t0 = json_array_get(tags, 0);
		const char *tag = json_is_string(t0) ? json_string_value(t0) : "";
		const char *colon = strrchr(tag, ':');

		const char *ref = colon ? colon + 1 : tag;
		size_t ok = strspn(ref, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
				   "klmnopqrstuvwxyz0123456789_.-");

		/* Written into index.json as it is: a tag's characters alone
		 * (docker's own rule), not a quote or a newline (nor put in
		 * the message). */
		if (ref[ok])
			return err_code_file(e, ERR_MALFORMED, 0, im->where,
					     "manifest.json: tag '%.*s' goes on "
					     "with byte 0x%02x (a tag is "
					     "letters, digits, _ . -)",
					     (int)(ref - tag + ok > 80 ? 80 :
						   ref - tag + ok), tag,
					     (unsigned char)ref[ok]);
		if (ok >= sizeof(m->ref))
			return err_code_file(e, ERR_MALFORMED, 0, im->where,
					     "manifest.json: a tag of %zu "
					     "bytes (at most %zu)", ok,
					     sizeof(m->ref) - 1);
		snprintf(m->ref, sizeof(m->ref), "%s", ref);
		if (repo_tags(im, m, tags, e) < 0)
			return -1;
	}
	m->config = strndup((const char *)cin.data, cin.len);
	m->config_len = cin.len;
	image_file_close(&cin, &cpath);
	if (!m->config)
		return err_nomem(e);
	for (size_t j = 0; j < json_array_size(layers); j++) {
		json_t *p = json_array_get(layers, j);

		if (!json_is_string(p))
			return err_code_file(e, ERR_MALFORMED, 0, im->where,
					     "manifest.json: a layer that is "
					     "not a name");
		if (add_layer(im, "", 0, NULL, json_string_value(p),
			      &m->layer[m->nlayers], e) < 0)
			return -1;
		for (size_t k = 0; k < im->nmember; k++)
			if (!strcmp(im->member[k].name, json_string_value(p)))
				im->layer[m->layer[m->nlayers]].size =
					im->member[k].size;
		m->nlayers++;
	}
	return diff_ids(im, m, e);
}

/* A legacy docker save archive: manifest.json lists each image's config
 * and its layers' tar files, whose digests are their diff_ids. */
static int docker_legacy(struct image *im, struct err *e)
{
	struct io_in in;
	json_t *root = NULL;
	char *text = NULL, *path;
	size_t len;
	int rc;

	if (image_file(im, "manifest.json", &in, &path, e) < 0)
		return -1;
	rc = json_bytes(im, "manifest.json", &in, &text, &len, &root, e);
	image_file_close(&in, &path);
	if (rc == 0 && !json_is_array(root))
		rc = err_code_file(e, ERR_MALFORMED, 0, im->where,
				   "manifest.json is not a list");
	for (size_t i = 0; rc == 0 && i < json_array_size(root); i++)
		rc = docker_image(im, json_array_get(root, i), e);
	if (rc == 0 && !im->nmanifest)
		rc = err_code_file(e, ERR_NOTHING, 0, im->where,
				   "manifest.json lists no image");
	json_decref(root);
	free(text);
	return rc;
}

bool image_is(const char *spec)
{
	struct stat st;
	char *path;
	bool is;

	if (prefix_after(spec, "oci:") || prefix_after(spec, "oci-archive:") ||
	    prefix_after(spec, "docker-archive:"))
		return true;
	if (stat(spec, &st) < 0)
		return false;
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&path, "%s/oci-layout", spec) < 0)
			return false;
		is = stat(path, &st) == 0 && S_ISREG(st.st_mode);
		free(path);
		return is;
	}
	return S_ISREG(st.st_mode) && image_archive_is(spec);
}

int image_open(struct image *im, const char *spec, struct err *e)
{
	const char *rest;
	struct stat st;

	memset(im, 0, sizeof(*im));
	im->archive.fd = -1;
	if ((rest = prefix_after(spec, "oci:"))) {
		im->transport = IMAGE_OCI_DIR;
	} else if ((rest = prefix_after(spec, "oci-archive:"))) {
		im->transport = IMAGE_OCI_ARCHIVE;
	} else if ((rest = prefix_after(spec, "docker-archive:"))) {
		im->transport = IMAGE_DOCKER_ARCHIVE;
	} else {
		rest = spec;
		im->transport = stat(spec, &st) == 0 && S_ISDIR(st.st_mode) ?
				IMAGE_OCI_DIR : IMAGE_OCI_ARCHIVE;
	}
	if (!(im->where = strdup(rest)))
		return err_nomem(e);
	if (im->transport == IMAGE_OCI_DIR && rest != spec) {
		char *colon = strrchr(im->where, ':');

		if (colon && stat(im->where, &st) < 0) {
			*colon = '\0';
			im->tag = colon + 1;
		}
	}
	if (im->transport == IMAGE_OCI_DIR)
		return oci(im, e);
	if (io_in_open(&im->archive, im->where, e) < 0)
		return -1;
	if (image_archive_index(im->archive.data, im->archive.len, &im->member,
				&im->nmember, e) < 0)
		return err_wrap(e, e->code, "'%s'", im->where);
	/* docker save of Docker 25 and later writes an OCI layout. */
	im->transport = IMAGE_DOCKER_ARCHIVE;
	for (size_t i = 0; i < im->nmember; i++)
		if (!strcmp(im->member[i].name, "oci-layout"))
			im->transport = IMAGE_OCI_ARCHIVE;
	return im->transport == IMAGE_OCI_ARCHIVE ? oci(im, e)
						  : docker_legacy(im, e);
}

void image_close(struct image *im)
{
	for (size_t i = 0; i < im->nmanifest; i++) {
		struct image_manifest *m = &im->manifest[i];

		free(m->media_type);
		free(m->text);
		free(m->config);
		free(m->layer);
		for (size_t t = 0; t < m->nrepo_tags; t++)
			free(m->repo_tags[t]);
		free(m->repo_tags);
	}
	for (size_t i = 0; i < im->nlayer; i++) {
		free(im->layer[i].path);
		free(im->layer[i].media_type);
	}
	for (size_t i = 0; i < im->nsub; i++)
		free(im->sub[i].text);
	free(im->sub);
	free(im->manifest);
	free(im->layer);
	image_archive_free(im->member, im->nmember);
	if (im->archive.data)
		io_in_close(&im->archive);
	free(im->index);
	free(im->where);
	memset(im, 0, sizeof(*im));
}

int image_layer_blob(struct image *im, size_t layer, bool check,
		     struct io_in *in, char **path, struct err *e)
{
	const struct image_layer *l = &im->layer[layer];

	if (!l->digest[0])	/* legacy docker: checked by its diff_id */
		return image_file(im, l->path, in, path, e);
	return blob_read(im, l->digest, l->size, check, in, path, e);
}

void image_blob_close(struct io_in *in, char **path)
{
	image_file_close(in, path);
}

int image_layer_walk(struct image *im, size_t layer, struct layer_walk *w,
		     struct err *e)
{
	struct image_layer *l = &im->layer[layer];
	const char *name = l->digest[0] ? l->digest : l->path;
	struct layer_reader *r = NULL;
	char hex[SHA256_HEX + 1], *path;
	struct io_in in;
	int rc = -1;

	/* Its digest is checked first (nothing is made of a damaged blob)
	 * and again as it is read (a blob changed since is refused too). */
	if (image_layer_blob(im, layer, true, &in, &path, e) < 0)
		return -1;
	l->codec = layer_codec_probe(in.data, in.len);
	/* No OCI layer is xz: such a blob is read as the tar it is not. */
	if (!layer_codec_oci(l->codec))
		l->codec = LAYER_NONE;
	if (layer_reader_open(&r, l->codec, in.data, in.len, e) < 0 ||
	    layer_reader_thread(r, e) < 0)
		goto out;
	if (in.map)
		layer_reader_mapped(r, &in);
	w->read = layer_reader_read;
	w->read_ctx = r;
	if (layer_walk(w, e) < 0) {
		err_wrap(e, e->code, "layer %s", name);
		goto out;
	}
	layer_reader_blob_digest(r, hex);
	if (l->digest[0] && strcmp(hex, l->digest + 7)) {
		err_code_file(e, ERR_MALFORMED, 0, im->where, "blob %s does "
			      "not match its digest (it is sha256:%s)",
			      l->digest, hex);
		goto out;
	}
	layer_reader_digest(r, hex);
	if (l->diff_id[0] && strcmp(hex, l->diff_id + 7)) {
		err_code_file(e, ERR_MALFORMED, 0, im->where, "layer %s does "
			      "not match its diff_id %s (its tar is "
			      "sha256:%s)", name, l->diff_id, hex);
		goto out;
	}
	rc = 0;
out:
	layer_reader_close(r);
	image_file_close(&in, &path);
	return rc;
}

int image_layer_codec(struct image *im, size_t layer, enum layer_codec *c,
		      struct err *e)
{
	struct io_in in;
	char *path;

	if (image_layer_blob(im, layer, false, &in, &path, e) < 0)
		return -1;
	*c = layer_codec_probe(in.data, in.len);
	if (!layer_codec_oci(*c))
		*c = LAYER_NONE;
	image_file_close(&in, &path);
	return 0;
}
