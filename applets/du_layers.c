/* du_layers.c: du of a container image (a table per layer, then all
 * layers) and of a package (its files), each file counted as du.c counts
 * a tree's; the layers walked by liboffcode (offcode_layer_walk), the
 * roots made by it (offcode_manifest_root). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "du_sums.h"
#include "du_layers.h"
#include "messages.h"
#include "../core/json.h"

#define fail(what, file, ...) applet_fail("du", what, file, __VA_ARGS__)

/* What one wanted file of a layer counted: added to a root's sums when
 * the file is in that root. */
struct member_sums {
	uint64_t index;
	struct options s;
};

/* One layer of an image: the sums of its wanted files, by member index. */
struct layer_sums {
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
	int nomem;		/* the walk stopped: out of memory */
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
static int du_member(void *ctx, const struct offcode_member *m,
		     offcode_artifact *file, const offcode_error *err)
{
	struct image_scan *is = ctx;
	struct scan sc = { .o = is->o, .file = (size_t)(is->base + m->index + 1) };
	char *path;

	is->wanted++;
	if (asprintf(&path, "%s: %s %s: %.*s", is->spec, is->what, is->layer,
		     (int)m->name_len, m->name) < 0)
		return is->nomem = 1;
	is->rc |= du_walk(is->o, &sc, path, file, err);
	free(path);
	return 0;
}

/* An image's file counted alone, then into its layer's sums, and kept
 * for the roots. */
static int du_layer_member(void *ctx, const struct offcode_member *m,
			   offcode_artifact *file, const offcode_error *err)
{
	struct image_scan *is = ctx;
	struct layer_sums *ls = is->sums;
	struct options *l = is->o, one = *l;
	struct image_scan alone = *is;
	int rc;

	no_sums(&one);
	alone.o = &one;
	rc = du_member(&alone, m, file, err);
	is->wanted = alone.wanted;
	is->rc = alone.rc;
	/* The selections note what they matched: the layer's again. */
	l->targets = one.targets;
	l->keep = one.keep;
	l->drop = one.drop;
	if (rc == 0 && merge(l, &one) < 0)
		rc = 1;
	if (rc == 0 && ls->n == ls->cap) {
		size_t cap = ls->cap ? 2 * ls->cap : 64;
		struct member_sums *v = realloc(ls->v, cap * sizeof(*v));

		if (!v)
			rc = 1;
		else
			ls->v = v, ls->cap = cap;
	}
	if (rc) {
		free_sums(&one);
		return is->nomem = 1;
	}
	ls->v[ls->n++] = (struct member_sums){ .index = m->index, .s = one };
	return 0;
}

/* One root of the image: a manifest's layers unpacked. */
struct root_scan {
	struct options *r;
	const struct layer_sums *sums;
};

static int root_file(void *ctx, size_t layer, uint64_t index, uint64_t size)
{
	struct root_scan *rs = ctx;
	const struct layer_sums *ls = &rs->sums[layer];
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
		return merge(rs->r, &ls->v[lo].s) < 0 ? OFFCODE_NOMEM : 0;
	rs->r->other_files++;
	return 0;
}

/* The root each manifest's layers make, as its table or JSON. */
static int du_roots(struct options *o, offcode_artifact *im,
		    const struct layer_sums *sums, const char *spec)
{
	int rc = 0;

	for (size_t k = 0; k < offcode_manifest_count(im) && !rc; k++) {
		struct offcode_manifest m = { .size = sizeof(m) };
		struct options r = *o;
		struct root_scan rs = { .r = &r, .sums = sums };
		int got;

		no_sums(&r);
		offcode_manifest_info(im, k, &m);
		if ((got = offcode_manifest_root(im, k, root_file, &rs)))
			rc = got == OFFCODE_NOMEM
				     ? fail("cannot read image", spec,
					    "out of memory")
				     : du_fail("cannot read image", spec, im,
					       offcode_last_error(im));
		if (!rc && r.n)
			qsort(r.t, r.n, sizeof(*r.t), du_by_stored);
		if (!rc && o->json) {
			fputs(k ? ",{\"manifest\":" : "{\"manifest\":", stdout);
			json_put_str(stdout, m.digest, strlen(m.digest));
			fputs(",\"platform\":", stdout);
			json_put_str(stdout, m.platform, strlen(m.platform));
			printf(",\"layers\":%zu,\"du\":", m.layer_count);
			du_print_json(&r, "}}");
		} else if (!rc) {
			printf("root of %zu layer%s%s%s (as unpacked):\n",
			       m.layer_count, m.layer_count == 1 ? "" : "s",
			       m.platform[0] ? " for " : "", m.platform);
			du_print_text(&r);
		}
		free_sums(&r);
	}
	return rc;
}

/* The failure of a walk of a's layer (rc its code; is->nomem when du ran
 * out of memory): the line said; 1. */
static int walk_failed(const char *what, const char *path,
		       offcode_artifact *a, const struct image_scan *is)
{
	if (is->nomem)
		return fail(what, path, "out of memory");
	/* (Said as a failure to open: the file the record names.) */
	return du_fail(what, path, NULL, offcode_last_error(a));
}

/* du IMAGE: a table per layer (its files, as a tree's), then one for the
 * root each manifest's layers make, unpacked: a file a later layer
 * writes again or removes counts in the layer alone. */
int du_image(struct options *o, const char *spec)
{
	struct layer_sums *sums = NULL;
	offcode_artifact *im = NULL;
	offcode_error *err = NULL;
	uint64_t base = 0;
	size_t nlayer;
	int rc = 0;

	if (offcode_open_path(spec, &o->open, &im, &err)) {
		rc = du_fail("cannot read image", spec, NULL, err);
		offcode_error_free(err);
		offcode_close(im);
		return rc;
	}
	nlayer = offcode_layer_count(im);
	if (!(sums = calloc(nlayer + 1, sizeof(*sums)))) {
		offcode_close(im);
		return fail("cannot read image", spec, "out of memory");
	}
	if (o->json) {
		fputs("{\"version\":1,\"image\":", stdout);
		json_put_str(stdout, spec, strlen(spec));
		fputs(",\"layers\":[", stdout);
	}
	for (size_t i = 0; i < nlayer && !rc; i++) {
		struct options l = *o;
		struct offcode_layer il = { .size = sizeof(il) };
		struct offcode_layer_stats st = { .size = sizeof(st) };
		struct image_scan is = { .o = &l, .spec = spec, .what = "layer",
					 .sums = &sums[i], .base = base };

		offcode_layer_info(im, i, &il);
		is.layer = il.name;
		no_sums(&l);
		if (offcode_layer_walk(im, i, OFFCODE_WALK_ROOT,
				       du_layer_member, &is, &st)) {
			rc = walk_failed("cannot read image", spec, im, &is);
		} else {
			offcode_layer_info(im, i, &il);	/* (its codec, read) */
			l.total = st.file_bytes;
			l.files = st.files;
			l.other_files += st.files - is.wanted;
			base += st.members;
			rc = is.rc;
			if (l.n)
				qsort(l.t, l.n, sizeof(*l.t), du_by_stored);
			if (o->json) {
				printf("%s{\"layer\":", i ? "," : "");
				json_put_str(stdout, is.layer, strlen(is.layer));
				printf(",\"blob\":%" PRIu64 ",\"compression\":"
				       "\"%s\",\"du\":", il.stored,
				       il.compression);
				du_print_json(&l, "}}");
			} else {
				printf("layer %s: %" PRIu64 " bytes (%s)\n",
				       is.layer, il.stored, il.compression);
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
		rc = du_roots(o, im, sums, spec);
	}
	if (o->json)
		fputs("]}\n", stdout);
	for (size_t i = 0; i < nlayer; i++) {
		for (size_t j = 0; j < sums[i].n; j++)
			free_sums(&sums[i].v[j].s);
		free(sums[i].v);
	}
	free(sums);
	offcode_close(im);
	if (rc)
		return rc;
	return applet_select_unmatched("du", "--target", NULL, &o->targets);
}

int du_tree_package(struct options *o, const char *path, offcode_artifact *a,
		    const offcode_error *err)
{
	struct image_scan is = { .o = o, .spec = path, .what = "member",
				 .layer = "", .base = o->files +
						     o->package_numbers };
	struct offcode_layer_stats st = { .size = sizeof(st) };
	int rc = err ? -1 : 0;

	if (!rc && offcode_layer_walk(a, 0, 0, du_member, &is, &st))
		rc = -1;
	if (rc < 0) {
		o->errors++;
		o->other_files++;
		if (err)
			return du_fail("cannot read package", path, NULL, err);
		return walk_failed("cannot read package", path, a, &is);
	}
	/* The package itself was counted as one file of its bytes. */
	o->total += st.file_bytes;
	o->total -= offcode_artifact_size(a);
	o->files += st.files;
	o->files--;
	o->other_files += st.files - is.wanted;
	o->package_numbers += st.members + 1;
	return is.rc;
}

/* du PKG: the files of a Debian package's data.tar, a wheel or a conda
 * package, as a tree's, under a line saying what holds them (the data
 * member, its size and compression; the wheel; the conda tar). */
int du_package(struct options *o, const char *path)
{
	struct image_scan is = { .o = o, .spec = path, .what = "member",
				 .layer = "" };
	struct offcode_layer l = { .size = sizeof(l) };
	struct offcode_layer_stats st = { .size = sizeof(st) };
	offcode_artifact *a = NULL;
	offcode_error *err = NULL;
	const char *format;
	int rc;

	if (offcode_open_path(path, &o->open, &a, &err)) {
		rc = du_fail("cannot read package", path, NULL, err);
		offcode_error_free(err);
		offcode_close(a);
		return rc;
	}
	if (offcode_layer_walk(a, 0, 0, du_member, &is, &st)) {
		rc = walk_failed("cannot read package", path, a, &is);
		offcode_close(a);
		return rc;
	}
	offcode_layer_info(a, 0, &l);
	format = offcode_input_format(offcode_input_at(a, 0));
	o->total = st.file_bytes;
	o->files = st.files;
	o->other_files += o->files - is.wanted;
	if (o->n)
		qsort(o->t, o->n, sizeof(*o->t), du_by_stored);
	if (o->json) {
		fputs("{\"version\":1,\"package\":", stdout);
		json_put_str(stdout, path, strlen(path));
		if (l.name[0]) {
			fputs(",\"member\":", stdout);
			json_put_str(stdout, l.name, strlen(l.name));
		}
		printf(",\"size\":%" PRIu64 ",\"compression\":\"%s\",\"du\":",
		       l.stored, l.compression);
		du_print_json(o, "}}\n");
	} else if (!strcmp(format, "deb")) {
		printf("%s: %s, %" PRIu64 " bytes (%s)\n", path, l.name,
		       l.stored, l.compression);
		du_print_text(o);
	} else {
		if (!strcmp(l.compression, "bzip2"))
			printf("%s: tar (bzip2)\n", path);
		else if (!strcmp(format, "conda"))
			printf("%s: pkg tar (zstd)\n", path);
		else
			printf("%s: %" PRIu64 " bytes (zip)\n", path, l.stored);
		du_print_text(o);
	}
	offcode_close(a);
	return is.rc | applet_select_unmatched("du", "--target", NULL,
					       &o->targets);
}
