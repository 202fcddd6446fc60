/* members: packages (Debian, wheel, conda) and container images for
 * liboffcode (include/offcode.h, "packages and images"): their layers,
 * each walked as the tool walks it (ops/deb.c, wheel.c, conda.c, image.c
 * over ops/layer.c), each file a host format claims opened as an artefact
 * of its own over the bytes the walk holds (a scratch file's map past the
 * spill bound), handed to the caller or, at an ordinary open, kept as
 * inputs of the package's; an image's roots made by ops/image_root.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_impl.h"
#include "keep.h"
#include "image_kind.h"
#include "members.h"
#include "../ops/conda.h"
#include "../ops/deb.h"
#include "../ops/hosts.h"
#include "../ops/image.h"
#include "../ops/image_root.h"
#include "../ops/wheel.h"
#include "../formats/tar.h"

enum members_kind { MEMBERS_DEB, MEMBERS_WHEEL, MEMBERS_CONDA, MEMBERS_IMAGE };

/* A file kept as an input at an ordinary open: where to find it again. */
struct kept_member {
	size_t layer;
	uint64_t index;
	size_t first_entry, entries;	/* its entries in the artefact's */
};

struct lib_members {
	enum members_kind kind;
	struct deb deb;
	struct wheel wheel;
	struct image im;
	struct io_in view;	/* the package's bytes, borrowed from a */
	struct image_root_layer *root;	/* per layer (OFFCODE_WALK_ROOT) */
	bool *rooted;		/* per layer: walked with the flag */
	size_t nlayers;
	bool ready;		/* opened whole (else its layers are none) */
	bool walking;		/* a layer walk is under way (not re-entered) */
	struct kept_member *kept;
	size_t nkept, cap_kept;
	members_open_fn *open_file;
};

static const char *const kind_names[] = {
	[MEMBERS_DEB] = "deb", [MEMBERS_WHEEL] = "wheel",
	[MEMBERS_CONDA] = "conda", [MEMBERS_IMAGE] = "image",
};

/* ---- what a file is ---- */

/* A ustar archive by its bytes: by fd or buffer an image archive cannot
 * be read (its blobs are found by path), and is refused as one. */
static bool tar_probe(const uint8_t *p, size_t len)
{
	struct tar_header h;
	struct err e;

	return len >= TAR_BLOCK && !memcmp(p + 257, "ustar", 5) &&
	       tar_header_parse(p, &h, &e) == 0;
}

const char *offcode_path_kind(const char *path)
{
	if (!path)
		return NULL;
	if (image_is(path))
		return kind_names[MEMBERS_IMAGE];
	if (deb_is(path))
		return kind_names[MEMBERS_DEB];
	if (wheel_is(path))
		return kind_names[MEMBERS_WHEEL];
	if (conda_is(path))
		return kind_names[MEMBERS_CONDA];
	return NULL;
}

/* ---- the handle's ---- */

static void members_free(offcode_artifact *a)
{
	struct lib_members *m = a->members;

	if (!m)
		return;
	if (m->kind == MEMBERS_DEB)
		deb_close(&m->deb);
	if (m->kind == MEMBERS_WHEEL)
		wheel_close(&m->wheel);
	if (m->kind == MEMBERS_IMAGE)
		image_close(&m->im);
	for (size_t i = 0; m->root && i < m->nlayers; i++)
		image_root_layer_free(&m->root[i]);
	free(m->root);
	free(m->rooted);
	free(m->kept);
	free(m);
	a->members = NULL;
}

size_t offcode_layer_count(const offcode_artifact *a)
{
	return a && a->members && a->members->ready ? a->members->nlayers : 0;
}

int offcode_layer_info(const offcode_artifact *a, size_t i,
		       struct offcode_layer *info)
{
	const struct lib_members *m = a ? a->members : NULL;
	struct offcode_layer l = { .size = sizeof(l), .name = "" };

	if (!info || info->size < sizeof(l))
		return OFFCODE_INVALID;
	if (!m || !m->ready || i >= m->nlayers)
		return OFFCODE_RANGE;
	switch (m->kind) {
	case MEMBERS_DEB: {
		const struct deb_member *d = &m->deb.member[m->deb.data];

		l.name = d->name;
		l.compression = layer_codec_name(d->codec);
		l.stored = d->size;
		break;
	}
	case MEMBERS_WHEEL:
		l.compression = "zip";
		l.stored = a->len;
		break;
	case MEMBERS_CONDA:
		l.compression = conda_is_tarbz2(a->path) ? "bzip2" : "zstd";
		l.stored = a->len;
		break;
	case MEMBERS_IMAGE: {
		const struct image_layer *il = &m->im.layer[i];

		l.name = il->digest[0] ? il->digest : il->path;
		l.compression = layer_codec_name(il->codec);
		l.stored = il->size;
		break;
	}
	}
	*info = l;
	return 0;
}

size_t offcode_manifest_count(const offcode_artifact *a)
{
	return a && a->members && a->members->ready &&
	       a->members->kind == MEMBERS_IMAGE ? a->members->im.nmanifest : 0;
}

int offcode_manifest_info(const offcode_artifact *a, size_t i,
			  struct offcode_manifest *info)
{
	const struct image_manifest *mf;

	if (!info || info->size < sizeof(*info))
		return OFFCODE_INVALID;
	if (i >= offcode_manifest_count(a))
		return OFFCODE_RANGE;
	mf = &a->members->im.manifest[i];
	*info = (struct offcode_manifest){
		.size = sizeof(*info), .digest = mf->digest,
		.platform = mf->platform, .layer_count = mf->nlayers,
		.layers = mf->layer,
	};
	return 0;
}

static int grow(void **v, size_t *cap, size_t n, size_t add, size_t size)
{
	void *p;
	size_t c = *cap;

	if (n + add <= c)
		return 0;
	while (c < n + add)
		c = c ? c * 2 : 16;
	if (!(p = realloc(*v, c * size)))
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

/* Input 0: the package or image itself. */
static int members_input(offcode_artifact *a, const char *format)
{
	if (grow((void **)&a->inputs, &a->cap_inputs, a->ninputs, 1,
		 sizeof(*a->inputs)) < 0)
		return -1;
	a->inputs[a->ninputs++] = (struct offcode_input){
		.owner = a, .parent = (size_t)-1, .name = a->path,
		.name_len = strlen(a->path), .format = format, .size = a->len,
	};
	return 0;
}

/* ---- a layer walked ---- */

struct member_walk {
	offcode_artifact *a;
	size_t layer;
	offcode_member_fn fn;
	members_bytes_fn *bytes;	/* instead of fn: the bytes unopened */
	void *ctx;
	int rc;			/* fn's nonzero */
};

/* The options a file of the package is opened with: the package's,
 * borrowing the walk's bytes. */
static struct offcode_open_options file_options(const offcode_artifact *a)
{
	struct offcode_open_options o = a->opts;

	o.flags &= ~(unsigned)OFFCODE_OPEN_STREAM;
	o.flags |= OFFCODE_OPEN_BORROW;
	return o;
}

static int member_seen(void *ctx, const struct layer_member *lm,
		       const struct io_in *data, struct io_in *repl,
		       struct err *e)
{
	struct member_walk *w = ctx;
	offcode_artifact *a = w->a, *file = NULL;
	const struct lib_members *m = a->members;
	struct offcode_open_options o = file_options(a);
	struct offcode_member mb = { .layer = w->layer, .name = lm->name,
				     .name_len = lm->name_len,
				     .index = lm->index, .size = data->len };
	offcode_error *err = NULL;
	char *name;
	int rc;

	(void)repl;
	if (a->file_closed) {	/* by the callback before */
		rc = artifact_file(a);
		goto out;
	}
	if (w->bytes) {
		/* A Debian or conda package's path without its "./", as
		 * extract names its files. */
		if (m->kind == MEMBERS_DEB || m->kind == MEMBERS_CONDA)
			mb.name = deb_name(lm->name, &mb.name_len);
		rc = w->bytes(w->ctx, &mb, data->data, data->len, data->fd);
		goto out;
	}
	/* Named as ls names it: "<layer>/<path>" in an image,
	 * "<package>/<path>" ("./" cut). */
	if (m->kind == MEMBERS_IMAGE) {
		const struct image_layer *il = &m->im.layer[w->layer];

		rc = asprintf(&name, "%s/%.*s",
			      il->digest[0] ? il->digest : il->path,
			      (int)lm->name_len, lm->name);
	} else {
		size_t len = lm->name_len;
		const char *cut = deb_name(lm->name, &len);

		rc = asprintf(&name, "%s/%.*s", a->path, (int)len, cut);
	}
	if (rc < 0)
		return err_nomem(e);
	rc = m->open_file(data->data, data->len, name, &o, &file, &err);
	free(name);
	if (rc == OFFCODE_NOMEM && !err && !file)
		return err_nomem(e);
	rc = w->fn(w->ctx, &mb, file, err);
	offcode_close(file);
	offcode_error_free(err);
out:
	if (rc) {
		w->rc = rc;
		/* (not a failure: the caller stopped, w->rc says so) */
		return err_code_set(e, ERR_NOTHING, "stopped");
	}
	return 0;
}

int offcode_layer_walk(offcode_artifact *a, size_t i, unsigned flags,
		       offcode_member_fn fn, void *ctx,
		       struct offcode_layer_stats *stats)
{
	return members_layer_walk(a, i, flags, fn, NULL, ctx, stats);
}

int members_layer_walk(offcode_artifact *a, size_t i, unsigned flags,
		       offcode_member_fn fn, members_bytes_fn *bytes,
		       void *ctx, struct offcode_layer_stats *stats)
{
	struct lib_members *m = a ? a->members : NULL;
	struct member_walk mw = { .a = a, .layer = i, .fn = fn,
				  .bytes = bytes, .ctx = ctx };
	struct layer_walk w = { .wants = hosts_member_wanted,
				.member = member_seen, .ctx = &mw };
	struct io_in view;
	struct err e;
	int rc = 0;

	if (!a || (!fn && !bytes))
		return a ? artifact_fail_code(a, OFFCODE_INVALID, "no callback")
			 : OFFCODE_INVALID;
	if (!m || !m->ready || i >= m->nlayers)
		return artifact_fail_code(a, OFFCODE_RANGE, "no such layer");
	if (stats && stats->size < sizeof(*stats))
		return artifact_fail_code(a, OFFCODE_INVALID, "stats too small");
	if (m->walking)
		return artifact_fail_code(a, OFFCODE_INVALID, "a walk of its "
					  "layers is under way (called from "
					  "its callback)");
	if ((rc = artifact_reading(a)))
		return rc;
	if (flags & OFFCODE_WALK_ROOT) {
		image_root_layer_free(&m->root[i]);
		m->rooted[i] = false;
		w.entry = image_root_note;
		w.entry_ctx = &m->root[i];
	}
	m->walking = true;
	switch (m->kind) {
	case MEMBERS_DEB:
		rc = deb_data_walk(&m->deb, &w, &e);
		break;
	case MEMBERS_WHEEL:
		rc = wheel_walk(&m->wheel, hosts_member_wanted, member_seen,
				NULL, &mw, &e);
		/* Its files and their bytes are its directory's. */
		for (size_t k = 0; rc == 0 && k < m->wheel.zip.n; k++) {
			const struct zip_entry *en = &m->wheel.zip.entry[k];

			w.files += en->name_len &&
				   en->name[en->name_len - 1] != '/';
			w.file_bytes += en->usize;
		}
		w.members = m->wheel.zip.n;
		break;
	case MEMBERS_CONDA:
		view = m->view;		/* (taken by the walk: a copy) */
		rc = conda_walk_in(&view, &w, &e);
		break;
	case MEMBERS_IMAGE:
		rc = image_layer_walk(&m->im, i, &w, &e);
		break;
	}
	m->walking = false;
	artifact_read_done(a);
	if (mw.rc)
		return mw.rc;
	if (rc < 0)
		return artifact_fail(a, &e);
	if (flags & OFFCODE_WALK_ROOT)
		m->rooted[i] = true;
	if (stats)
		*stats = (struct offcode_layer_stats){
			.size = sizeof(*stats), .members = w.members,
			.files = w.files, .file_bytes = w.file_bytes };
	return 0;
}

struct root_walk {
	offcode_root_fn fn;
	void *ctx;
	const size_t *layers;
	int rc;
};

static int root_file(void *ctx, size_t layer, uint64_t index, uint64_t size)
{
	struct root_walk *r = ctx;

	r->rc = r->fn(r->ctx, r->layers[layer], index, size);
	return r->rc ? -1 : 0;
}

int offcode_manifest_root(offcode_artifact *a, size_t i, offcode_root_fn fn,
			  void *ctx)
{
	const struct image_manifest *mf;
	const struct image_root_layer **layers;
	struct root_walk r = { .fn = fn, .ctx = ctx };
	struct err e;
	int rc;

	if (!a || !fn)
		return a ? artifact_fail_code(a, OFFCODE_INVALID, "no callback")
			 : OFFCODE_INVALID;
	if (i >= offcode_manifest_count(a))
		return artifact_fail_code(a, OFFCODE_RANGE, "no such manifest");
	if (a->members->walking)
		return artifact_fail_code(a, OFFCODE_INVALID, "a walk of its "
					  "layers is under way");
	mf = &a->members->im.manifest[i];
	r.layers = mf->layer;
	for (size_t k = 0; k < mf->nlayers; k++)
		if (!a->members->rooted[mf->layer[k]])
			return artifact_fail_code(a, OFFCODE_INVALID, "a layer "
						  "of the manifest was not "
						  "walked with "
						  "OFFCODE_WALK_ROOT");
	if (!(layers = calloc(mf->nlayers + 1, sizeof(*layers))))
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	for (size_t k = 0; k < mf->nlayers; k++)
		layers[k] = &a->members->root[mf->layer[k]];
	rc = image_root_files(layers, mf->nlayers, root_file, &r, &e);
	free(layers);
	if (r.rc)
		return r.rc;
	return rc < 0 ? artifact_fail(a, &e) : 0;
}

/* ---- an ordinary open: the files kept as inputs ---- */

/* File f's inputs, containers and entries appended to a's, a level
 * deeper: its strings are in its arena, which a takes. */
static int adopt(offcode_artifact *a, offcode_artifact *f,
		 const struct offcode_member *mb)
{
	struct lib_members *m = a->members;
	size_t in0 = a->ninputs, c0 = a->ncontainers, e0 = a->nentries;
	bool oom = false;
	const char *name;

	if (grow((void **)&a->inputs, &a->cap_inputs, a->ninputs, f->ninputs,
		 sizeof(*a->inputs)) < 0 ||
	    grow((void **)&a->containers, &a->cap_containers, a->ncontainers,
		 f->ncontainers, sizeof(*a->containers)) < 0 ||
	    grow((void **)&a->entries, &a->cap_entries, a->nentries,
		 f->nentries, sizeof(*a->entries)) < 0 ||
	    grow((void **)&m->kept, &m->cap_kept, m->nkept, 1,
		 sizeof(*m->kept)) < 0)
		return -1;
	/* Its name as the package's input: its path in its package, an
	 * image's "<layer>/<path>". */
	name = f->path + (m->kind == MEMBERS_IMAGE ? 0 : strlen(a->path) + 1);
	name = artifact_keep(a, name, strlen(name), &oom);
	if (oom)
		return -1;
	for (struct arena_block **b = &f->arena; *b; b = &(*b)->next)
		if (!(*b)->next) {	/* its blocks, a's now */
			(*b)->next = a->arena;
			a->arena = f->arena;
			f->arena = NULL;
			break;
		}
	for (size_t i = 0; i < f->ninputs; i++) {
		struct offcode_input *in = &a->inputs[a->ninputs++];

		*in = f->inputs[i];
		in->owner = a;
		in->depth++;
		in->parent = i ? in0 + in->parent : 0;
		if (!i) {
			in->name = name;
			in->name_len = strlen(name);
		}
	}
	for (size_t i = 0; i < f->ncontainers; i++) {
		struct offcode_container *c = &a->containers[a->ncontainers++];

		*c = f->containers[i];
		c->owner = a;
		c->input += in0;
		c->first_entry += e0;
		c->alone = false;	/* its bytes are not a's */
	}
	for (size_t i = 0; i < f->nentries; i++) {
		struct offcode_entry *e = &a->entries[a->nentries++];

		/* Its image kind read now, while the walk holds its bytes
		 * (image_kind.c reads a's own file, which these are not). */
		image_kind_read(f, &f->entries[i]);
		*e = f->entries[i];
		e->owner = a;
		e->container += c0;
		e->ordinal += e0;
		e->has_offset = e->direct = false;
		e->uri = NULL;
	}
	m->kept[m->nkept++] = (struct kept_member){
		.layer = mb->layer, .index = mb->index, .first_entry = e0,
		.entries = f->nentries };
	return 0;
}

/* Keeping each file, or (reading code) handing entries' code over. */
struct keep_walk {
	offcode_artifact *a;
	int rc;			/* a failure's code */
	/* Reading code: the entries wanted ((size_t)-1: all) and where. */
	bool code;
	size_t only;
	offcode_code_fn fn;
	void *ctx;
	size_t first;		/* the file's first entry in a's */
};

static int keep_file(void *ctx, const struct offcode_member *mb,
		     offcode_artifact *f, const offcode_error *err)
{
	struct keep_walk *k = ctx;

	if (!f) {	/* a damaged file: the package cannot be listed */
		artifact_fail_code(k->a, offcode_error_code(err),
				   offcode_error_message(err));
		return k->rc = offcode_error_code(err);
	}
	if (adopt(k->a, f, mb) < 0)
		return k->rc = OFFCODE_NOMEM;
	return 0;
}

/* ---- code ---- */

static int code_of(void *ctx, const offcode_entry *e, const void *code,
		   size_t size)
{
	struct keep_walk *k = ctx;
	size_t ordinal = k->first + e->ordinal;

	if (k->only != (size_t)-1 && ordinal != k->only)
		return 0;
	if (k->a->file_closed)	/* by the callback before */
		return artifact_file(k->a);
	return k->fn(k->ctx, &k->a->entries[ordinal], code, size);
}

static int code_file(void *ctx, const struct offcode_member *mb,
		     offcode_artifact *f, const offcode_error *err)
{
	struct keep_walk *k = ctx;
	const struct lib_members *m = k->a->members;
	const struct kept_member *km = NULL;
	int rc;

	for (size_t i = 0; i < m->nkept && !km; i++)
		if (m->kept[i].layer == mb->layer &&
		    m->kept[i].index == mb->index)
			km = &m->kept[i];
	if (!km || !km->entries || (k->only != (size_t)-1 &&
				    (k->only < km->first_entry ||
				     k->only >= km->first_entry + km->entries)))
		return 0;
	if (!f || f->nentries != km->entries) {
		artifact_fail_code(k->a, OFFCODE_CHANGED, err ?
				   offcode_error_message(err) :
				   "a file of the package changed since it "
				   "was opened");
		return k->rc = OFFCODE_CHANGED;
	}
	k->first = km->first_entry;
	/* fn's value to stop with, or f's failure (said as a's) */
	rc = offcode_code_foreach(f, code_of, k);
	if (rc && offcode_last_error(f) &&
	    (int)offcode_error_code(offcode_last_error(f)) == rc)
		artifact_fail_code(k->a, rc,
				   offcode_error_message(offcode_last_error(f)));
	return rc;
}

static int members_code(offcode_artifact *a, size_t only,
			offcode_code_fn fn, void *ctx)
{
	struct keep_walk k = { .a = a, .code = true, .only = only, .fn = fn,
			       .ctx = ctx };
	int rc = 0;

	for (size_t i = 0; i < a->members->nlayers && !rc; i++)
		rc = offcode_layer_walk(a, i, 0, code_file, &k, NULL);
	return rc;
}

/* ---- opening ---- */

/* offcode_close_file's part (a's hook): an image archive's map.  (A
 * package's views borrow a's bytes, read by its layer walks alone, which
 * fail once they are gone.) */
static void members_close_file(offcode_artifact *a)
{
	struct lib_members *m = a->members;

	if (m && m->kind == MEMBERS_IMAGE && m->im.archive.data)
		io_in_close(&m->im.archive);
}

/* What a is, by its name and bytes (or spec, an image's): its kind, or -1
 * when none; the refusal of an image archive by fd or buffer in *refuse. */
static int kind_of(const offcode_artifact *a, const char *spec,
		   const char **refuse)
{
	*refuse = NULL;
	if (spec)
		return MEMBERS_IMAGE;
	if (deb_probe(a->data, a->len))
		return MEMBERS_DEB;
	if (wheel_probe(a->path, a->data, a->len))
		return MEMBERS_WHEEL;
	if (conda_probe(a->path, a->data, a->len))
		return MEMBERS_CONDA;
	if (tar_probe(a->data, a->len))
		*refuse = "a tar archive (a container image to offload, by its "
			  "path)";
	return -1;
}

int members_open(offcode_artifact *a, const char *spec,
		 members_open_fn *open_file)
{
	struct lib_members *m;
	struct keep_walk k = { .a = a };
	const char *refuse;
	struct err e;
	int kind = kind_of(a, spec, &refuse), rc = 0;

	if (refuse) {
		char why[600];

		snprintf(why, sizeof(why), "'%.400s': %s: liboffcode reads "
			 "an image by its path", a->path, refuse);
		return artifact_fail_code(a, OFFCODE_UNSUPPORTED, why);
	}
	if (kind < 0)
		return -1;
	if (!(m = calloc(1, sizeof(*m))))
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	a->members = m;
	a->free_members = members_free;
	a->members_code = members_code;
	a->close_members_file = members_close_file;
	m->open_file = open_file;
	m->kind = kind;
	m->deb.in.fd = m->wheel.in.fd = -1;
	if (members_input(a, kind_names[m->kind]) < 0)
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	/* The package's bytes, borrowed: its walks never close a's. */
	m->view = (struct io_in){ .data = a->data, .len = a->len, .fd = -1,
				  .path = a->path };
	switch (m->kind) {
	case MEMBERS_DEB:
		rc = deb_open_in(&m->deb, &m->view, a->path, &e);
		m->nlayers = 1;
		break;
	case MEMBERS_WHEEL:
		rc = wheel_open_in(&m->wheel, &m->view, a->path, &e);
		m->nlayers = 1;
		break;
	case MEMBERS_CONDA:
		m->nlayers = 1;
		break;
	case MEMBERS_IMAGE:
		rc = image_open(&m->im, spec, &e);
		m->nlayers = m->im.nlayer;
		break;
	}
	if (rc < 0)
		return artifact_fail(a, &e);
	if (!(m->root = calloc(m->nlayers + 1, sizeof(*m->root))) ||
	    !(m->rooted = calloc(m->nlayers + 1, sizeof(*m->rooted))))
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	m->ready = true;
	if (a->opts.flags & OFFCODE_OPEN_STREAM)
		return 0;
	for (size_t i = 0; i < m->nlayers && !rc; i++)
		rc = offcode_layer_walk(a, i, 0, keep_file, &k, NULL);
	return rc;
}
