/* image_pack: a built OCI layout written as one archive (image_pack.h). */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_pack.h"
#include "../core/io_in.h"
#include "../core/io_write.h"
#include "../formats/tar.h"

static int header(struct io_out *out, const char *name, char type,
		  uint64_t size, struct err *e)
{
	uint8_t b[TAR_BLOCK];

	if (tar_header_make(b, name, type, type == '5' ? 0755 : 0644,
			    size) < 0)
		return err_code_set(e, ERR_MALFORMED, "archive member name "
				    "'%s' too long", name);
	return io_out_write(out, b, sizeof(b), e);
}

static int padding(struct io_out *out, uint64_t size, struct err *e)
{
	return io_out_zeros(out, tar_padded(size) - size, e);
}

/* The file at path written as the member name. */
static int file_member(struct io_out *out, const char *path,
		       const char *name, struct err *e)
{
	struct io_in in;
	int rc;

	if (io_in_open(&in, path, e) < 0)
		return -1;
	rc = header(out, name, '0', in.len, e) < 0 ||
	     io_out_copy(out, &in, 0, in.len, e) < 0 ||
	     padding(out, in.len, e) < 0 ? -1 : 0;
	io_in_close(&in);
	return rc;
}

static int bytes_member(struct io_out *out, const char *name,
			const char *text, size_t len, struct err *e)
{
	return header(out, name, '0', len, e) < 0 ||
	       io_out_write(out, text, len, e) < 0 ||
	       padding(out, len, e) < 0 ? -1 : 0;
}

static int end(struct io_out *out, struct err *e)
{
	return io_out_zeros(out, 2 * TAR_BLOCK, e);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int image_pack_oci(const char *dir, struct io_out *out, struct err *e)
{
	char path[4096], name[128];
	char **names = NULL, **grown;
	size_t n = 0;
	struct dirent *de;
	DIR *d;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/blobs/sha256", dir);
	if (!(d = opendir(path)))
		return err_sys(e, path, errno);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!(grown = realloc(names, (n + 1) * sizeof(*names))) ||
		    !(grown[n] = strdup(de->d_name))) {
			if (grown)
				names = grown;
			err_nomem(e);
			goto out;
		}
		names = grown;
		n++;
	}
	qsort(names, n, sizeof(*names), by_name);
	snprintf(path, sizeof(path), "%s/oci-layout", dir);
	if (file_member(out, path, "oci-layout", e) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/index.json", dir);
	if (file_member(out, path, "index.json", e) < 0 ||
	    header(out, "blobs/", '5', 0, e) < 0 ||
	    header(out, "blobs/sha256/", '5', 0, e) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/blobs/sha256/%s", dir,
			 names[i]);
		snprintf(name, sizeof(name), "blobs/sha256/%.64s", names[i]);
		if (file_member(out, path, name, e) < 0)
			goto out;
	}
	rc = end(out, e);
out:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

bool image_pack_ref_ok(const char *ref)
{
	size_t len = strlen(ref);

	return len && len <= 255 &&
	       strspn(ref, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789") > 0 &&
	       strspn(ref, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_.:/@-") == len;
}

/* A text grown by pieces; NULL s once out of memory. */
struct text {
	char *s;
	size_t len;
	bool oom;
};

static void add(struct text *t, const char *piece)
{
	size_t n = strlen(piece);
	char *grown;

	if (t->oom)
		return;
	if (!(grown = realloc(t->s, t->len + n + 1))) {
		t->oom = true;
		return;
	}
	memcpy(grown + t->len, piece, n + 1);
	t->s = grown;
	t->len += n;
}

/* Whether layer digest d was written already, by an image before or
 * earlier in this one. */
static bool written(const struct image_pack_image *img, size_t k, size_t j)
{
	const char *d = img[k].layers[j];

	for (size_t a = 0; a <= k; a++)
		for (size_t b = 0; b < (a == k ? j : img[a].nlayers); b++)
			if (!strcmp(img[a].layers[b], d))
				return true;
	return false;
}

/* A reference's repository (its length) and tag ("latest" when it has
 * none); false for one by digest (repo@sha256:...), which has no tag. */
static bool repo_and_tag(const char *ref, size_t *repo_len, const char **tag)
{
	const char *slash = strrchr(ref, '/'), *colon = strrchr(ref, ':');

	if (strchr(ref, '@'))
		return false;
	if (colon && (!slash || colon > slash)) {
		*repo_len = (size_t)(colon - ref);
		*tag = colon + 1;
	} else {
		*repo_len = strlen(ref);
		*tag = "latest";
	}
	return *repo_len > 0;
}

/* Whether the repository of img[k].refs[t] came in a reference before. */
static bool repo_seen(const struct image_pack_image *img, size_t k, size_t t,
		      const char *repo, size_t len)
{
	for (size_t a = 0; a <= k; a++)
		for (size_t b = 0; b < (a == k ? t : img[a].nrefs); b++) {
			size_t l;
			const char *tag;

			if (repo_and_tag(img[a].refs[b], &l, &tag) &&
			    l == len && !memcmp(img[a].refs[b], repo, len))
				return true;
		}
	return false;
}

/* `repositories`: {"REPO":{"TAG":"TOP LAYER",...},...}, each repository
 * once, its tags in the order the images give them; empty when no image
 * is tagged. */
static void repositories(struct text *t, const struct image_pack_image *img,
			 size_t n)
{
	bool first = true;

	for (size_t k = 0; k < n; k++)
		for (size_t r = 0; r < img[k].nrefs; r++) {
			const char *ref = img[k].refs[r], *tag;
			size_t len;
			bool first_tag = true;
			char *repo;

			if (!repo_and_tag(ref, &len, &tag) ||
			    repo_seen(img, k, r, ref, len))
				continue;
			if (!(repo = strndup(ref, len))) {
				t->oom = true;
				return;
			}
			add(t, first ? "{\"" : ",\"");
			add(t, repo);
			add(t, "\":{");
			first = false;
			/* Every tag of this repository, from here on. */
			for (size_t a = k; a < n; a++)
				for (size_t b = a == k ? r : 0;
				     b < img[a].nrefs; b++) {
					size_t l;
					const char *tg;

					if (!img[a].nlayers ||
					    !repo_and_tag(img[a].refs[b], &l,
							  &tg) || l != len ||
					    memcmp(img[a].refs[b], ref, len))
						continue;
					add(t, first_tag ? "\"" : ",\"");
					add(t, tg);
					add(t, "\":\"");
					add(t, img[a].layers[img[a].nlayers - 1]
					       + 7);
					add(t, "\"");
					first_tag = false;
				}
			add(t, "}");
			free(repo);
		}
	if (!first)
		add(t, "}\n");
}

int image_pack_docker(const char *dir, const struct image_pack_image *img,
		      size_t n, struct io_out *out, struct err *e)
{
	struct text man = { 0 }, repos = { 0 };
	char path[4096], name[128];
	int rc = -1;

	add(&man, "[");
	for (size_t k = 0; k < n; k++) {
		const char *cfg = img[k].config + 7;	/* past "sha256:" */

		bool again = false;

		/* Two images of one config (one image tagged twice): its
		 * file once. */
		for (size_t a = 0; a < k; a++)
			again |= !strcmp(img[a].config, img[k].config);
		snprintf(path, sizeof(path), "%s/blobs/sha256/%s", dir, cfg);
		snprintf(name, sizeof(name), "%.64s.json", cfg);
		if (!again && file_member(out, path, name, e) < 0)
			goto out;
		add(&man, k ? ",{\"Config\":\"" : "{\"Config\":\"");
		add(&man, name);
		add(&man, "\",\"RepoTags\":[");
		for (size_t t = 0; t < img[k].nrefs; t++) {
			add(&man, t ? ",\"" : "\"");
			add(&man, img[k].refs[t]);
			add(&man, "\"");
		}
		add(&man, "],\"Layers\":[");
		for (size_t j = 0; j < img[k].nlayers; j++) {
			const char *l = img[k].layers[j] + 7;

			snprintf(name, sizeof(name), "%.64s/layer.tar", l);
			add(&man, j ? ",\"" : "\"");
			add(&man, name);
			add(&man, "\"");
			if (written(img, k, j))
				continue;
			snprintf(path, sizeof(path), "%s/blobs/sha256/%s", dir,
				 l);
			snprintf(name, sizeof(name), "%.64s/", l);
			if (header(out, name, '5', 0, e) < 0)
				goto out;
			snprintf(name, sizeof(name), "%.64s/layer.tar", l);
			if (file_member(out, path, name, e) < 0)
				goto out;
		}
		add(&man, "]}");
	}
	add(&man, "]\n");
	if (man.oom) {
		err_nomem(e);
		goto out;
	}
	repositories(&repos, img, n);
	if (repos.oom) {
		err_nomem(e);
		goto out;
	}
	rc = bytes_member(out, "manifest.json", man.s, man.len, e) < 0 ||
	     (repos.len && bytes_member(out, "repositories", repos.s,
					repos.len, e) < 0) ||
	     end(out, e) < 0 ? -1 : 0;
out:
	free(man.s);
	free(repos.s);
	return rc;
}
