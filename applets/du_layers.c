/* du_layers.c: du of a container image (a table per layer, then all
 * layers) and of a package (its files), each file walked as du.c walks a
 * tree's. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "du_sums.h"
#include "du_layers.h"
#include "messages.h"
#include "../core/json.h"
#include "../ops/conda.h"
#include "../ops/deb.h"
#include "../ops/hosts.h"
#include "../ops/image.h"
#include "../ops/image_root.h"
#include "../ops/wheel.h"

#define fail(what, file, ...) applet_fail("du", what, file, __VA_ARGS__)

/* What one wanted file of a layer counted: added to a root's sums when
 * the file is in that root. */
struct member_sums {
	uint64_t index;
	struct options s;
};

/* One layer of an image: its members (for the roots) and the sums of its
 * wanted files, by member index. */
struct layer_sums {
	struct image_root_layer root;
	struct member_sums *v;
	size_t n, cap;
};

/* The files of an image's layers. */
struct image_scan {
	struct options *o;
	const char *spec;
	const char *layer;
	const char *what;	/* "layer", or a package's "member" */
	uint64_t base, wanted;	/* files before the layer; walked */
	struct layer_sums *sums;	/* an image's, or NULL */
	int rc;
};

/* o's sums set to nothing (its options and selections kept). */
static void no_sums(struct options *o)
{
	o->t = NULL;
	o->n = o->cap = 0;
	memset(&o->host, 0, sizeof(o->host));
	memset(&o->drop_sum, 0, sizeof(o->drop_sum));
	o->host_last = 0;
	o->total = o->files = o->other_files = o->errors = 0;
	o->device_stored = 0;
}

static void free_sums(struct options *o)
{
	for (size_t j = 0; j < o->n; j++)
		free(o->t[j].name);
	free(o->t);
}

/* What one layer holds added to the whole image's sums in o. */
static int merge(struct options *o, const struct options *l)
{
	for (size_t i = 0; i < l->n; i++) {
		int j = du_find_target(o, l->t[i].name, strlen(l->t[i].name));

		if (j < 0)
			return -1;
		o->t[j].s.bytes += l->t[i].s.bytes;
		o->t[j].s.stored += l->t[i].s.stored;
		o->t[j].s.entries += l->t[i].s.entries;
		o->t[j].s.files += l->t[i].s.files;
	}
	o->host.bytes += l->host.bytes;
	o->host.stored += l->host.stored;
	o->host.entries += l->host.entries;
	o->host.files += l->host.files;
	o->drop_sum.bytes += l->drop_sum.bytes;
	o->drop_sum.stored += l->drop_sum.stored;
	o->drop_sum.entries += l->drop_sum.entries;
	o->drop_sum.files += l->drop_sum.files;
	o->total += l->total;
	o->files += l->files;
	o->other_files += l->other_files;
	o->errors += l->errors;
	o->device_stored += l->device_stored;
	return 0;
}

/* A package's file counted into its sums. */
static int du_member(void *ctx, const struct layer_member *m,
		     const struct io_in *data, struct io_in *repl,
		     struct err *e)
{
	struct image_scan *is = ctx;
	struct scan sc = { .o = is->o, .file = (size_t)(is->base + m->index + 1) };
	char *path;

	(void)repl;
	(void)e;
	is->wanted++;
	if (asprintf(&path, "%s: %s %s: %.*s", is->spec, is->what, is->layer,
		     (int)m->name_len, m->name) < 0)
		return err_nomem(e);
	is->rc |= du_walk(is->o, &sc, path, data);
	free(path);
	return 0;
}

/* An image's file counted alone, then into its layer's sums, and kept
 * for the roots. */
static int du_layer_member(void *ctx, const struct layer_member *m,
			   const struct io_in *data, struct io_in *repl,
			   struct err *e)
{
	struct image_scan *is = ctx;
	struct layer_sums *ls = is->sums;
	struct options *l = is->o, one = *l;
	struct image_scan alone = *is;
	int rc;

	no_sums(&one);
	alone.o = &one;
	rc = du_member(&alone, m, data, repl, e);
	is->wanted = alone.wanted;
	is->rc = alone.rc;
	/* The selections note what they matched: the layer's again. */
	l->targets = one.targets;
	l->keep = one.keep;
	l->drop = one.drop;
	if (rc == 0 && merge(l, &one) < 0)
		rc = err_nomem(e);
	if (rc == 0 && ls->n == ls->cap) {
		size_t cap = ls->cap ? 2 * ls->cap : 64;
		struct member_sums *v = realloc(ls->v, cap * sizeof(*v));

		if (!v)
			rc = err_nomem(e);
		else
			ls->v = v, ls->cap = cap;
	}
	if (rc < 0) {
		free_sums(&one);
		return -1;
	}
	ls->v[ls->n++] = (struct member_sums){ .index = m->index, .s = one };
	return 0;
}

/* One root of the image: a manifest's layers unpacked. */
struct root_scan {
	struct options *r;
	const struct image_manifest *m;
	const struct layer_sums *sums;
};

static int root_file(void *ctx, size_t layer, uint64_t index, uint64_t size)
{
	struct root_scan *rs = ctx;
	const struct layer_sums *ls = &rs->sums[rs->m->layer[layer]];
	size_t lo = 0, hi = ls->n;

	rs->r->total += size;
	rs->r->files++;
	while (lo < hi) {	/* the member's sums, noted in stream order */
		size_t mid = lo + (hi - lo) / 2;

		if (ls->v[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ls->n && ls->v[lo].index == index)
		return merge(rs->r, &ls->v[lo].s);
	rs->r->other_files++;
	return 0;
}

/* The root each manifest's layers make, as its table or JSON. */
static int du_roots(struct options *o, const struct image *im,
		    const struct layer_sums *sums, const char *spec)
{
	int rc = 0;

	for (size_t k = 0; k < im->nmanifest && !rc; k++) {
		const struct image_manifest *m = &im->manifest[k];
		const struct image_root_layer **layers;
		struct options r = *o;
		struct root_scan rs = { .r = &r, .m = m, .sums = sums };
		struct err e;

		no_sums(&r);
		if (!(layers = calloc(m->nlayers + 1, sizeof(*layers))))
			return fail("cannot read image", spec, "out of memory");
		for (size_t i = 0; i < m->nlayers; i++)
			layers[i] = &sums[m->layer[i]].root;
		if (image_root_files(layers, m->nlayers, root_file, &rs, &e) < 0)
			rc = fail("cannot read image", spec, "%s", e.code ==
				  ERR_NOMEM ? "out of memory" : e.msg);
		free(layers);
		if (!rc && r.n)
			qsort(r.t, r.n, sizeof(*r.t), du_by_stored);
		if (!rc && o->json) {
			fputs(k ? ",{\"manifest\":" : "{\"manifest\":", stdout);
			json_put_str(stdout, m->digest, strlen(m->digest));
			fputs(",\"platform\":", stdout);
			json_put_str(stdout, m->platform, strlen(m->platform));
			printf(",\"layers\":%zu,\"du\":", m->nlayers);
			du_print_json(&r, "}}");
		} else if (!rc) {
			printf("root of %zu layer%s%s%s (as unpacked):\n",
			       m->nlayers, m->nlayers == 1 ? "" : "s",
			       m->platform[0] ? " for " : "", m->platform);
			du_print_text(&r);
		}
		free_sums(&r);
	}
	return rc;
}

/* du IMAGE: a table per layer (its files, as a tree's), then one for the
 * root each manifest's layers make, unpacked: a file a later layer
 * writes again or removes counts in the layer alone. */
int du_image(struct options *o, const char *spec)
{
	struct layer_sums *sums = NULL;
	struct image im;
	struct err e;
	uint64_t base = 0;
	int rc = 0;

	if (image_open(&im, spec, &e) < 0) {
		image_close(&im);
		return applet_fail_err("du", "cannot read image", spec, 0, &e);
	}
	if (!(sums = calloc(im.nlayer + 1, sizeof(*sums)))) {
		image_close(&im);
		return fail("cannot read image", spec, "out of memory");
	}
	if (o->json) {
		fputs("{\"version\":1,\"image\":", stdout);
		json_put_str(stdout, spec, strlen(spec));
		fputs(",\"layers\":[", stdout);
	}
	for (size_t i = 0; i < im.nlayer && !rc; i++) {
		struct options l = *o;
		const struct image_layer *il = &im.layer[i];
		struct image_scan is = { .o = &l, .spec = spec, .what = "layer",
					 .layer = il->digest[0] ? il->digest
								: il->path,
					 .sums = &sums[i], .base = base };
		struct layer_walk w = { .wants = hosts_member_wanted,
					.member = du_layer_member, .ctx = &is,
					.entry = image_root_note,
					.entry_ctx = &sums[i].root };

		no_sums(&l);
		if (image_layer_walk(&im, i, &w, &e) < 0) {
			rc = applet_fail_err("du", "cannot read image", spec, 0,
					     &e);
		} else {
			l.total = w.file_bytes;
			l.files = w.files;
			l.other_files += w.files - is.wanted;
			base += w.members;
			rc = is.rc;
			if (l.n)
				qsort(l.t, l.n, sizeof(*l.t), du_by_stored);
			if (o->json) {
				printf("%s{\"layer\":", i ? "," : "");
				json_put_str(stdout, is.layer, strlen(is.layer));
				printf(",\"blob\":%" PRIu64 ",\"compression\":"
				       "\"%s\",\"du\":", il->size,
				       layer_codec_name(il->codec));
				du_print_json(&l, "}}");
			} else {
				printf("layer %s: %" PRIu64 " bytes (%s)\n",
				       is.layer, il->size,
				       layer_codec_name(il->codec));
				du_print_text(&l);
			}
		}
		/* The selections were the layer's to use (what they matched
		 * noted): back to o, whose they are. */
		o->targets = l.targets;
		o->keep = l.keep;
		o->drop = l.drop;
		free_sums(&l);
	}
	if (!rc) {
		if (o->json)
			fputs("],\"roots\":[", stdout);
		rc = du_roots(o, &im, sums, spec);
	}
	if (o->json)
		fputs("]}\n", stdout);
	for (size_t i = 0; i < im.nlayer; i++) {
		for (size_t j = 0; j < sums[i].n; j++)
			free_sums(&sums[i].v[j].s);
		free(sums[i].v);
		image_root_layer_free(&sums[i].root);
	}
	free(sums);
	image_close(&im);
	if (rc)
		return rc;
	return applet_select_unmatched("du", "--target", NULL, &o->targets);
}

bool du_tree_package_is(const char *name, const struct io_in *in)
{
	return deb_probe(in->data, in->len) ||
	       wheel_probe(name, in->data, in->len) ||
	       conda_probe(name, in->data, in->len);
}

int du_tree_package(struct options *o, const char *path, struct io_in *in)
{
	struct image_scan is = { .o = o, .spec = path, .what = "member",
				 .layer = "", .base = o->files +
						     o->package_numbers };
	struct layer_walk w = { .wants = hosts_member_wanted, .member = du_member,
				.ctx = &is };
	struct wheel wh = { .in = { .fd = -1 } };
	struct deb d = { .in = { .fd = -1 } };
	bool deb = deb_probe(in->data, in->len);
	bool conda = !deb && conda_probe(path, in->data, in->len);
	uint64_t total = 0, files = 0, numbers = 0, size = in->len;
	struct err e;
	int rc;

	if (conda)
		rc = conda_walk_in(in, &w, &e);
	else if (deb)
		rc = deb_open_in(&d, in, path, &e) < 0 ||
		     deb_data_walk(&d, &w, &e) < 0 ? -1 : 0;
	else
		rc = wheel_open_in(&wh, in, path, &e) < 0 ||
		     wheel_walk(&wh, hosts_member_wanted, du_member, NULL, &is,
				&e) < 0 ? -1 : 0;
	total = w.file_bytes;
	files = w.files;
	numbers = w.members;
	for (size_t i = 0; rc == 0 && !deb && !conda && i < wh.zip.n; i++) {
		const struct zip_entry *en = &wh.zip.entry[i];

		files += en->name_len && en->name[en->name_len - 1] != '/';
		total += en->usize;
		numbers = wh.zip.n;
	}
	deb_close(&d);
	wheel_close(&wh);
	io_in_close(in);
	if (rc < 0) {
		o->errors++;
		o->other_files++;
		return applet_fail_err("du", "cannot read package", path, 0, &e);
	}
	/* The package itself was counted as one file of its bytes. */
	o->total += total;
	o->total -= size;
	o->files += files;
	o->files--;
	o->other_files += files - is.wanted;
	o->package_numbers += numbers + 1;
	return is.rc;
}

/* du PKG: the files of a Debian package's data.tar or of a wheel, as a
 * tree's, under a line saying what holds them (the data member, its size
 * and compression; the wheel). */
int du_package(struct options *o, const char *path)
{
	struct image_scan is = { .o = o, .spec = path, .what = "member" };
	struct layer_walk w = { .wants = hosts_member_wanted, .member = du_member,
				.ctx = &is };
	const struct deb_member *m = NULL;
	bool deb = deb_is(path), conda = !deb && conda_is(path);
	bool tarbz2 = conda && conda_is_tarbz2(path);
	struct wheel wh = { .in = { .fd = -1 } };
	struct deb d = { .in = { .fd = -1 } };
	struct err e;
	int rc = 1;

	if (conda ? conda_walk(path, &w, &e) < 0
	    : deb ? deb_open(&d, path, &e) < 0 || deb_data_walk(&d, &w, &e) < 0
		: wheel_open(&wh, path, &e) < 0 ||
		  wheel_walk(&wh, hosts_member_wanted, du_member, NULL, &is, &e) < 0) {
		rc = applet_fail_err("du", "cannot read package", path, 0, &e);
		goto out;
	}
	o->total = w.file_bytes;
	o->files = w.files;
	for (size_t i = 0; !deb && !conda && i < wh.zip.n; i++) {
		const struct zip_entry *en = &wh.zip.entry[i];

		o->files += en->name_len && en->name[en->name_len - 1] != '/';
		o->total += en->usize;
	}
	o->other_files += o->files - is.wanted;
	if (o->n)
		qsort(o->t, o->n, sizeof(*o->t), du_by_stored);
	if (deb)
		m = &d.member[d.data];
	if (o->json) {
		fputs("{\"version\":1,\"package\":", stdout);
		json_put_str(stdout, path, strlen(path));
		if (m) {
			fputs(",\"member\":", stdout);
			json_put_str(stdout, m->name, strlen(m->name));
		}
		printf(",\"size\":%" PRIu64 ",\"compression\":\"%s\",\"du\":",
		       m ? m->size : (uint64_t)wh.in.len,
		       m ? layer_codec_name(m->codec) : tarbz2 ? "bzip2" :
		       conda ? "zstd" : "zip");
		du_print_json(o, "}}\n");
	} else if (m) {
		printf("%s: %s, %" PRIu64 " bytes (%s)\n", path, m->name,
		       m->size, layer_codec_name(m->codec));
		du_print_text(o);
	} else {
		if (tarbz2)
			printf("%s: tar (bzip2)\n", path);
		else if (conda)
			printf("%s: pkg tar (zstd)\n", path);
		else
			printf("%s: %zu bytes (zip)\n", path, wh.in.len);
		du_print_text(o);
	}
	rc = is.rc | applet_select_unmatched("du", "--target", NULL,
					     &o->targets);
out:
	if (deb)
		deb_close(&d);
	else if (!conda)
		wheel_close(&wh);
	return rc;
}
