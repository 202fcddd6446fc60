/* image_prune: an image's layers pruned, its JSON edited, written as an
 * OCI layout (image_prune.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts.h"
#include "image_pack.h"
#include "image_prune.h"
#include "image_replay.h"
#include "prune.h"
#include "prune_plan.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/io_signal.h"
#include "../core/io_write.h"
#include "../core/workpool.h"
#include "../formats/json_edit.h"

struct job {
	struct image *im;
	const struct image_prune_opts *o;
	struct image_layer_result *res;
	const char *tmp;	/* the layout being built */
	unsigned zstd_threads;	/* libzstd's workers for each layer */
};

/* One layer's one walk: the file replaced last, held till the next; the
 * layer's new blob, written from the first file that changes on (the tar
 * before it read again then, image_replay), or from the start where the
 * layer is written whatever happens (a docker archive's, decompressed). */
struct member_ctx {
	struct job *j;
	size_t i;			/* the layer */
	struct layer_walk *walk;
	struct image_layer_result *res;
	struct prune_plan plan;
	bool planned;
	struct io_out scratch;
	struct layer_writer *w;		/* the new blob, once begun */
	struct io_out out;
	char path[4096];
};

/* The files made in the layout being built: a deadly signal removes
 * them (core/io_signal.h), and then the directories, left empty, so that
 * an interrupted run leaves nothing. */
static pthread_mutex_t made_lock = PTHREAD_MUTEX_INITIALIZER;
static char **made_paths;
static size_t nmade;

static void made(const char *path)
{
	char *copy = strdup(path), **grown;

	if (!copy)
		return;
	pthread_mutex_lock(&made_lock);
	grown = realloc(made_paths, (nmade + 1) * sizeof(*grown));
	if (grown) {
		made_paths = grown;
		made_paths[nmade++] = copy;
		io_pending_add(copy);
	} else {
		free(copy);
	}
	pthread_mutex_unlock(&made_lock);
}

static void forget_made(void)
{
	for (size_t i = 0; i < nmade; i++) {
		io_pending_remove(made_paths[i]);
		free(made_paths[i]);
	}
	free(made_paths);
	made_paths = NULL;
	nmade = 0;
}

static void member_done(struct member_ctx *c)
{
	if (c->planned)
		prune_plan_free(&c->plan);
	c->planned = false;
	if (c->scratch.fd >= 0)
		io_out_discard(&c->scratch);
	memset(&c->scratch, 0, sizeof(c->scratch));
	c->scratch.fd = -1;
}

/* The member's plan: 0 nothing to drop, 1 a plan to write, -1 failed. */
static int plan(struct member_ctx *c, const struct layer_member *m,
		const struct io_in *data, struct err *e)
{
	struct prune_opts po = c->j->o->prune;

	member_done(c);
	po.decide_only = c->j->o->dry_run;
	if (prune_plan(data->data, data->len, &po, &c->plan, e) < 0) {
		if (e->code == ERR_NOTHING)
			return 0;
		return err_wrap(e, e->code, "'%.*s'", (int)m->name_len,
				m->name);
	}
	c->planned = true;
	return c->plan.entries_dropped ? 1 : 0;
}

/* A docker archive's layers are plain tars, as docker save writes them. */
static bool plain(const struct image_prune_opts *o)
{
	return o->output == IMAGE_OUT_DOCKER_ARCHIVE;
}

/* The layer's new blob begun: a temporary file in the layout, and the
 * writer that compresses into it, made the walk's output. */
static int begin(struct member_ctx *c, struct err *e)
{
	struct job *j = c->j;
	struct image_layer_result *r = c->res;

	r->codec = plain(j->o) ? LAYER_NONE : j->o->recompress ? j->o->codec
		   : j->im->layer[c->i].codec;
	snprintf(c->path, sizeof(c->path), "%s/blobs/sha256/layer-%zu",
		 j->tmp, c->i);
	if (io_out_open(&c->out, c->path, e) < 0 ||
	    layer_writer_open(&c->w, r->codec, j->o->level, &c->out, e) < 0 ||
	    layer_writer_threads(c->w, j->zstd_threads, e) < 0)
		return -1;
	c->walk->write = layer_writer_write;
	c->walk->write_ctx = c->w;
	return 0;
}

/* Each member's start marked until the layer is being written, so that
 * the tar before a file that changes can be read again, its digest so
 * far kept. */
static int starts(void *ctx, uint64_t at, struct err *e)
{
	struct member_ctx *c = ctx;

	(void)at;
	if (c->w || c->j->o->dry_run)
		return 0;
	return image_replay_mark(c->walk, e);
}

static int prune_member(void *ctx, const struct layer_member *m,
			const struct io_in *data, struct io_in *repl,
			struct err *e)
{
	struct member_ctx *c = ctx;
	int r;

	if ((r = plan(c, m, data, e)) <= 0)
		return r;
	c->res->files++;
	if (c->j->o->dry_run) {
		member_done(c);
		return 0;
	}
	/* The first file that changes: the tar before it written now. */
	if (!c->w && (begin(c, e) < 0 ||
		      image_replay(c->j->im, c->i, c->walk, m->at, c->w,
				   e) < 0))
		return -1;
	if (io_scratch_open(&c->scratch, e) < 0 ||
	    prune_write(data, &c->plan, &c->scratch, e) < 0 ||
	    io_scratch_view(&c->scratch, repl, e) < 0)
		return err_wrap(e, e->code, "'%.*s'", (int)m->name_len,
				m->name);
	c->res->code_before += data->len;
	c->res->code_after += repl->len;
	return 1;
}

static int blob_path(char *buf, size_t cap, const char *dir, const char *hex)
{
	return snprintf(buf, cap, "%s/blobs/sha256/%s", dir, hex) < (int)cap
	       ? 0 : -1;
}

/* An unchanged layer: its blob as it is (a hard link of the input's when
 * it can be). */
static int keep_blob(struct job *j, size_t i, const struct io_in *in,
		     const char *in_path, struct err *e)
{
	struct image_layer_result *r = &j->res[i];
	struct io_out out = { .fd = -1 };
	char path[4096];

	/* A legacy docker layer's blob is its tar: its diff_id, checked. */
	snprintf(r->digest, sizeof(r->digest), "%s", j->im->layer[i].digest[0]
		 ? j->im->layer[i].digest : j->im->layer[i].diff_id);
	if (blob_path(path, sizeof(path), j->tmp, r->digest + 7) < 0)
		return err_code_file(e, ERR_SYSTEM, ENAMETOOLONG, j->tmp,
				     "path too long");
	if (in_path && link(in_path, path) == 0) {
		made(path);
		return 0;
	}
	if (io_out_open(&out, path, e) < 0)
		return -1;
	if (io_out_copy(&out, in, 0, in->len, e) < 0 ||
	    io_out_commit(&out, e) < 0) {
		io_out_discard(&out);
		return -1;
	}
	made(path);
	return 0;
}

/* The layer's new blob finished and named by its digest. */
static int finish(struct member_ctx *c, struct err *e)
{
	struct image_layer_result *r = c->res;
	char final[4096], diff[SHA256_HEX + 1], hex[SHA256_HEX + 1];

	if (layer_writer_finish(c->w, diff, hex, &r->blob_after, e) < 0 ||
	    io_out_commit(&c->out, e) < 0)
		return -1;
	snprintf(r->digest, sizeof(r->digest), "sha256:%s", hex);
	snprintf(r->diff_id, sizeof(r->diff_id), "sha256:%s", diff);
	/* The same tar, decompressed: its diff_id, checked by the walk. */
	if (!r->changed && strcmp(r->diff_id, c->j->im->layer[c->i].diff_id)) {
		unlink(c->path);
		return err_code_set(e, ERR_CHANGED, "layer %s decompressed is "
				    "%s, not its diff_id",
				    c->j->im->layer[c->i].digest, r->diff_id);
	}
	if (blob_path(final, sizeof(final), c->j->tmp, hex) < 0 ||
	    rename(c->path, final) < 0) {
		err_sys(e, final, errno);
		unlink(c->path);
		return -1;
	}
	made(final);
	return 0;
}

/* A layer walked once: pruned and written where a file in it changes
 * (or where every layer is written, a docker archive's compressed ones),
 * else its blob kept. */
static int layer_job(void *ctx, size_t i, struct err *e)
{
	struct job *j = ctx;
	struct image_layer_result *r = &j->res[i];
	struct layer_walk walk = {
		.wants = hosts_member_prunable, .member = prune_member,
		.starts = starts, .spill = j->o->spill,
	};
	struct member_ctx c = { .j = j, .i = i, .walk = &walk, .res = r,
				.scratch = { .fd = -1 }, .out = { .fd = -1 } };
	enum layer_codec codec;
	struct io_in in;
	char *in_path = NULL;
	int rc = -1;

	walk.ctx = &c;
	snprintf(r->diff_id, sizeof(r->diff_id), "%s", j->im->layer[i].diff_id);
	if (image_layer_codec(j->im, i, &codec, e) < 0)
		return -1;
	j->im->layer[i].codec = codec;
	if (!j->o->dry_run && plain(j->o) && codec != LAYER_NONE &&
	    begin(&c, e) < 0)
		goto out;
	if (image_layer_walk(j->im, i, &walk, e) < 0)
		goto out;
	member_done(&c);
	r->blob_before = r->blob_after = j->im->layer[i].size;
	r->changed = r->files > 0;
	if (!c.w)
		r->codec = j->im->layer[i].codec;
	if (j->o->dry_run) {
		rc = 0;
		goto out;
	}
	if (c.w) {
		rc = finish(&c, e);
		goto out;
	}
	/* Checked by the walk just made. */
	if (image_layer_blob(j->im, i, false, &in, &in_path, e) < 0)
		goto out;
	rc = keep_blob(j, i, &in, in_path, e);
	image_blob_close(&in, &in_path);
out:
	member_done(&c);
	layer_writer_close(c.w);
	io_out_discard(&c.out);
	return rc;
}

/* The media type of a layer compressed anew with c. */
static const char *media_type(const char *old, enum layer_codec c)
{
	static const char *const oci[LAYER_CODECS] = {
		[LAYER_NONE] = "application/vnd.oci.image.layer.v1.tar",
		[LAYER_GZIP] = "application/vnd.oci.image.layer.v1.tar+gzip",
		[LAYER_ZSTD] = "application/vnd.oci.image.layer.v1.tar+zstd",
	};

	if (!strncmp(old, "application/vnd.docker.", 23)) {
		if (c == LAYER_GZIP)
			return "application/vnd.docker.image.rootfs.diff.tar.gzip";
		if (c == LAYER_NONE)
			return "application/vnd.docker.image.rootfs.diff.tar";
	}
	return oci[c];
}

/* A new blob of the layout: bytes, named by their digest. */
static int put_blob(const char *tmp, const char *text, size_t len,
		    char *digest, struct err *e)
{
	struct io_out out = { .fd = -1 };
	char hex[SHA256_HEX + 1], path[4096];

	if (sha256_of(text, len, hex, e) < 0)
		return -1;
	snprintf(digest, IMAGE_DIGEST_MAX, "sha256:%s", hex);
	if (blob_path(path, sizeof(path), tmp, hex) < 0)
		return err_code_file(e, ERR_SYSTEM, ENAMETOOLONG, tmp,
				     "path too long");
	if (io_out_open(&out, path, e) < 0)
		return -1;
	if (io_out_write(&out, text, len, e) < 0 || io_out_commit(&out, e) < 0) {
		io_out_discard(&out);
		return -1;
	}
	made(path);
	return 0;
}

struct edits {
	struct json_edit *v;
	size_t n;
	char (*to)[IMAGE_DIGEST_MAX];
};

static int edit_add(struct edits *ed, const char *from, const char *to,
		    bool has_size, uint64_t size, const char *mt,
		    struct err *e)
{
	struct json_edit *v;
	char (*t)[IMAGE_DIGEST_MAX];

	/* A value named twice (a layer twice in one manifest) is one edit:
	 * it replaces every place, and a second would find none. */
	for (size_t i = 0; i < ed->n; i++)
		if (!strcmp(ed->v[i].from, from))
			return 0;
	if (!(v = realloc(ed->v, (ed->n + 1) * sizeof(*v))))
		return err_nomem(e);
	ed->v = v;
	if (!(t = realloc(ed->to, (ed->n + 1) * sizeof(*t))))
		return err_nomem(e);
	ed->to = t;
	snprintf(t[ed->n], IMAGE_DIGEST_MAX, "%s", to);
	v[ed->n] = (struct json_edit){ .from = from, .has_size = has_size,
				       .size = size, .media_type = mt };
	ed->n++;
	return 0;
}

/* Text edited by ed, written as a blob: its new digest and size.  With
 * all, every edit must find its value there. */
static int edited_blob(const char *tmp, const char *text, size_t len,
		       struct edits *ed, bool all, char *digest,
		       uint64_t *size, struct err *e)
{
	char *out;
	size_t out_len, hits;
	int rc;

	for (size_t i = 0; i < ed->n; i++) {
		ed->v[i].to = ed->to[i];
		if (all)
			ed->v[i].hits = 0;
	}
	if (json_edit(text, len, ed->v, ed->n, &out, &out_len, &hits, e) < 0)
		return -1;
	/* A digest written with escapes ("sha256:\u0061...") is one jansson
	 * read and the edits do not see: refused, not left stale. */
	for (size_t i = 0; all && i < ed->n; i++)
		if (!ed->v[i].hits) {
			free(out);
			return err_code_set(e, ERR_MALFORMED, "%s is not written "
					    "as plain text in the JSON that "
					    "names it", ed->v[i].from);
		}
	rc = put_blob(tmp, out, out_len, digest, e);
	*size = out_len;
	free(out);
	return rc;
}

/* The configs, manifests and indexes, bottom up; index.json last. */
static int write_json(struct image *im, const char *tmp,
		      const struct image_layer_result *res,
		      char (*configs)[IMAGE_DIGEST_MAX], struct err *e)
{
	struct edits up = { 0 };	/* what the indexes change */
	char path[4096], digest[IMAGE_DIGEST_MAX];
	struct io_out out = { .fd = -1 };
	int rc = -1;

	for (size_t k = 0; k < im->nmanifest; k++) {
		struct image_manifest *m = &im->manifest[k];
		struct edits cfg = { 0 }, man = { 0 };
		uint64_t size;
		int r = 0;

		for (size_t i = 0; r == 0 && i < m->nlayers; i++) {
			const struct image_layer *l = &im->layer[m->layer[i]];
			const struct image_layer_result *lr = &res[m->layer[i]];

			if (!lr->changed)
				continue;
			r = edit_add(&cfg, l->diff_id, lr->diff_id, false, 0,
				     NULL, e);
			if (r == 0)
				r = edit_add(&man, l->digest, lr->digest, true,
					     lr->blob_after,
					     lr->codec != l->codec ?
					     media_type(l->media_type, lr->codec)
					     : NULL, e);
		}
		if (r == 0 && (r = edited_blob(tmp, m->config, m->config_len,
					       &cfg, true, digest, &size,
					       e)) == 0)
			snprintf(configs[k], IMAGE_DIGEST_MAX, "%s", digest);
		if (r == 0)
			r = edit_add(&man, m->config_digest, digest, true, size,
				     NULL, e);
		if (r == 0)
			r = edited_blob(tmp, m->text, m->len, &man, true,
					digest, &size, e);
		if (r == 0)
			r = edit_add(&up, m->digest, digest, true, size, NULL, e);
		free(cfg.v);
		free(cfg.to);
		free(man.v);
		free(man.to);
		if (r < 0)
			goto out;
	}
	/* Nested indexes, children (found after their parents) first. */
	for (size_t k = im->nsub; k-- > 0;) {
		uint64_t size;

		if (edited_blob(tmp, im->sub[k].text, im->sub[k].len, &up,
				false, digest, &size, e) < 0 ||
		    edit_add(&up, im->sub[k].digest, digest, true, size, NULL,
			     e) < 0)
			goto out;
	}
	{
		char *text;
		size_t len, hits;

		for (size_t i = 0; i < up.n; i++)
			up.v[i].to = up.to[i];
		if (json_edit(im->index, im->index_len, up.v, up.n, &text, &len,
			      &hits, e) < 0)
			goto out;
		for (size_t i = 0; i < up.n; i++)
			if (!up.v[i].hits) {
				free(text);
				err_code_set(e, ERR_MALFORMED, "%s is not written "
					     "as plain text in the index that "
					     "names it", up.v[i].from);
				goto out;
			}
		snprintf(path, sizeof(path), "%s/index.json", tmp);
		if (io_out_open(&out, path, e) < 0 ||
		    io_out_write(&out, text, len, e) < 0 ||
		    io_out_commit(&out, e) < 0) {
			free(text);
			io_out_discard(&out);
			goto out;
		}
		made(path);
		free(text);
	}
	snprintf(path, sizeof(path), "%s/oci-layout", tmp);
	if (io_out_open(&out, path, e) < 0 ||
	    io_out_write(&out, "{\"imageLayoutVersion\": \"1.0.0\"}", 31, e) < 0 ||
	    io_out_commit(&out, e) < 0) {
		io_out_discard(&out);
		goto out;
	}
	made(path);
	rc = 0;
out:
	free(up.v);
	free(up.to);
	return rc;
}

/* A text made by printf-style pieces, grown as needed. */
struct text {
	char *s;
	size_t len;
	bool oom;
};

static void add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *piece, *n;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&piece, fmt, ap);
	va_end(ap);
	if (len < 0 || t->oom) {
		t->oom = true;
		if (len >= 0)
			free(piece);
		return;
	}
	if (!(n = realloc(t->s, t->len + (size_t)len + 1))) {
		t->oom = true;
		free(piece);
		return;
	}
	memcpy(n + t->len, piece, (size_t)len + 1);
	t->s = n;
	t->len += (size_t)len;
	free(piece);
}

/* A legacy docker save archive: the configs edited, and the OCI
 * manifests and index.json it has none of made. */
static int write_json_legacy(struct image *im, const char *tmp,
			     const struct image_layer_result *res,
			     char (*configs)[IMAGE_DIGEST_MAX], struct err *e)
{
	struct text index = { 0 };
	char path[4096], digest[IMAGE_DIGEST_MAX];
	struct io_out out = { .fd = -1 };
	int rc = -1;

	add(&index, "{\"schemaVersion\":2,\"manifests\":[");
	for (size_t k = 0; k < im->nmanifest; k++) {
		struct image_manifest *m = &im->manifest[k];
		struct edits cfg = { 0 };
		struct text man = { 0 };
		uint64_t size;
		int r = 0;

		for (size_t i = 0; r == 0 && i < m->nlayers; i++) {
			const struct image_layer_result *lr = &res[m->layer[i]];

			if (lr->changed)
				r = edit_add(&cfg, im->layer[m->layer[i]].diff_id,
					     lr->diff_id, false, 0, NULL, e);
		}
		if (r == 0)
			r = edited_blob(tmp, m->config, m->config_len, &cfg,
					true, digest, &size, e);
		free(cfg.v);
		free(cfg.to);
		if (r < 0)
			goto out;
		snprintf(configs[k], IMAGE_DIGEST_MAX, "%s", digest);
		add(&man, "{\"schemaVersion\":2,\"mediaType\":\"application/"
		    "vnd.oci.image.manifest.v1+json\",\"config\":{\"mediaType\":"
		    "\"application/vnd.oci.image.config.v1+json\",\"digest\":"
		    "\"%s\",\"size\":%llu},\"layers\":[", digest,
		    (unsigned long long)size);
		for (size_t i = 0; i < m->nlayers; i++) {
			const struct image_layer_result *lr = &res[m->layer[i]];

			add(&man, "%s{\"mediaType\":\"%s\",\"digest\":\"%s\","
			    "\"size\":%llu}", i ? "," : "",
			    media_type("", lr->codec), lr->digest,
			    (unsigned long long)lr->blob_after);
		}
		add(&man, "]}");
		if (man.oom) {
			free(man.s);
			err_nomem(e);
			goto out;
		}
		r = put_blob(tmp, man.s, man.len, digest, e);
		size = man.len;
		free(man.s);
		if (r < 0)
			goto out;
		add(&index, "%s{\"mediaType\":\"application/vnd.oci.image."
		    "manifest.v1+json\",\"digest\":\"%s\",\"size\":%llu",
		    k ? "," : "", digest, (unsigned long long)size);
		if (m->ref[0]) {
			add(&index, ",\"annotations\":{\"org.opencontainers."
			    "image.ref.name\":");
			/* A tag is [A-Za-z0-9_.-]: nothing to escape. */
			add(&index, "\"%s\"}", m->ref);
		}
		add(&index, "}");
	}
	add(&index, "]}");
	if (index.oom) {
		err_nomem(e);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/index.json", tmp);
	if (io_out_open(&out, path, e) < 0 ||
	    io_out_write(&out, index.s, index.len, e) < 0 ||
	    io_out_commit(&out, e) < 0) {
		io_out_discard(&out);
		goto out;
	}
	made(path);
	snprintf(path, sizeof(path), "%s/oci-layout", tmp);
	if (io_out_open(&out, path, e) < 0 ||
	    io_out_write(&out, "{\"imageLayoutVersion\": \"1.0.0\"}", 31, e) < 0 ||
	    io_out_commit(&out, e) < 0) {
		io_out_discard(&out);
		goto out;
	}
	made(path);
	rc = 0;
out:
	free(index.s);
	return rc;
}

/* The layout built at tmp written as the archive out. */
static int pack(struct image *im, const char *tmp, const char *out,
		const struct image_prune_opts *o,
		const struct image_layer_result *res,
		char (*configs)[IMAGE_DIGEST_MAX], struct err *e)
{
	struct image_pack_image *img = NULL;
	struct io_out file = { .fd = -1 };
	int rc = -1;

	if (io_out_open(&file, out, e) < 0)
		return -1;
	if (o->output == IMAGE_OUT_OCI_ARCHIVE) {
		rc = image_pack_oci(tmp, &file, e);
		goto out;
	}
	if (!(img = calloc(im->nmanifest + 1, sizeof(*img)))) {
		err_nomem(e);
		goto out;
	}
	for (size_t k = 0; k < im->nmanifest; k++) {
		const struct image_manifest *m = &im->manifest[k];

		img[k].config = configs[k];
		/* -o docker-archive:FILE:REF tags the first image with REF
		 * alone; else each keeps its RepoTags (a legacy input's). */
		if (!k && o->ref) {
			img[k].refs = &o->ref;
			img[k].nrefs = 1;
		} else {
			img[k].refs = (const char *const *)m->repo_tags;
			img[k].nrefs = m->nrepo_tags;
		}
		img[k].nlayers = m->nlayers;
		if (!(img[k].layers = calloc(m->nlayers + 1, sizeof(char *)))) {
			err_nomem(e);
			goto out;
		}
		for (size_t i = 0; i < m->nlayers; i++)
			img[k].layers[i] = res[m->layer[i]].digest;
	}
	rc = image_pack_docker(tmp, img, im->nmanifest, &file, e);
out:
	for (size_t k = 0; img && k < im->nmanifest; k++)
		free(img[k].layers);
	free(img);
	if (rc == 0)
		rc = io_out_commit(&file, e);
	if (rc < 0)
		io_out_discard(&file);
	return rc;
}

/* The layout being built, removed (its files are ours alone). */
static void remove_tmp(const char *tmp)
{
	char path[4096];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/blobs/sha256", tmp);
	if ((d = opendir(path))) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(path);
	snprintf(path, sizeof(path), "%s/blobs", tmp);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/index.json", tmp);
	unlink(path);
	snprintf(path, sizeof(path), "%s/oci-layout", tmp);
	unlink(path);
	rmdir(tmp);
}

/* The layout's directory made, and removed whole by a deadly signal (its
 * files are committed into it, no longer temporaries), with no signal
 * between: 0, or -1 with errno. */
static int staged(char *tmp)
{
	sigset_t all, was;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	rc = mkdtemp(tmp) ? 0 : -1;
	if (rc == 0)
		io_pending_tree(tmp);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	return rc;
}

int image_prune(struct image *im, const char *out,
		const struct image_prune_opts *o,
		struct image_layer_result *res, struct err *e)
{
	struct job j = { .im = im, .o = o, .res = res };
	char *tmp = NULL, *blobs = NULL, *parent = NULL;
	char (*configs)[IMAGE_DIGEST_MAX] = NULL;
	struct stat st;
	int rc = -1;

	memset(res, 0, im->nlayer * sizeof(*res));
	if (!o->dry_run) {
		if (o->output == IMAGE_OUT_LAYOUT && lstat(out, &st) == 0)
			return err_code_file(e, ERR_SYSTEM, EEXIST, out,
					     "exists already");
		if (asprintf(&tmp, "%s.tmp-XXXXXX", out) < 0) {
			tmp = NULL;
			return err_nomem(e);
		}
		if (staged(tmp) < 0) {
			err_sys(e, out, errno);
			goto out;
		}
		if (asprintf(&blobs, "%s/blobs/sha256", tmp) < 0) {
			blobs = NULL;
			err_nomem(e);
			goto out;
		}
		io_pending_add_dir(tmp);
		j.tmp = tmp;
		if (io_mkdirs(blobs, e) < 0)
			goto out;
		/* (Removed by a signal, when empty, as tmp is.) */
		if (!(parent = strndup(blobs, (size_t)(strrchr(blobs, '/') -
						       blobs)))) {
			err_nomem(e);
			goto out;
		}
		io_pending_add_dir(blobs);
		io_pending_add_dir(parent);
	}
	/* Each layer's compression on the CPUs the layers leave. */
	{
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		unsigned layers = o->jobs > 1 ? o->jobs : 1;

		if (layers > im->nlayer && im->nlayer)
			layers = (unsigned)im->nlayer;
		j.zstd_threads = cpus > (long)layers && cpus < 1024
				 ? (unsigned)cpus / layers : 1;
	}
	if (workpool_run(im->nlayer, o->jobs, layer_job, NULL, &j, e) < 0)
		goto out;
	if (o->dry_run) {
		rc = 0;
		goto out;
	}
	if (!(configs = calloc(im->nmanifest + 1, sizeof(*configs)))) {
		err_nomem(e);
		goto out;
	}
	if ((im->index ? write_json(im, tmp, res, configs, e)
		       : write_json_legacy(im, tmp, res, configs, e)) < 0)
		goto out;
	if (o->output != IMAGE_OUT_LAYOUT) {
		if (pack(im, tmp, out, o, res, configs, e) < 0)
			goto out;
		remove_tmp(tmp);
	} else if (rename(tmp, out) < 0) {
		err_sys(e, out, errno);
		goto out;
	}
	rc = 0;
out:
	/* A file of the layout being built, gone now: the output named. */
	if (rc < 0 && tmp && !strncmp(e->path, tmp, strlen(tmp)))
		snprintf(e->path, sizeof(e->path), "%s", out);
	if (tmp && rc < 0)
		remove_tmp(tmp);
	io_pending_tree(NULL);
	forget_made();
	if (j.tmp) {
		io_pending_remove_dir(blobs);
		if (parent)
			io_pending_remove_dir(parent);
		io_pending_remove_dir(j.tmp);
	}
	free(tmp);
	free(blobs);
	free(parent);
	free(configs);
	return rc;
}
