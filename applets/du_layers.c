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
#include "../ops/wheel.h"

#define fail(what, file, ...) applet_fail("du", what, file, __VA_ARGS__)

/* The files of an image's layers. */
struct image_scan {
	struct options *o;
	const char *spec;
	const char *layer;
	const char *what;	/* "layer", or a package's "member" */
	uint64_t base, wanted;	/* files before the layer; walked */
	int rc;
};

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

/* du IMAGE: a table per layer (its files, as a tree's), then the sums. */
int du_image(struct options *o, const char *spec)
{
	struct image im;
	struct err e;
	size_t nlayer;
	int rc = 0;

	if (image_open(&im, spec, &e) < 0) {
		image_close(&im);
		return applet_fail_err("du", "cannot read image", spec, 0, &e);
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
								: il->path };
		struct layer_walk w = { .wants = hosts_member_wanted, .member = du_member,
					.ctx = &is };

		l.t = NULL;
		l.n = l.cap = 0;
		memset(&l.host, 0, sizeof(l.host));
		memset(&l.drop_sum, 0, sizeof(l.drop_sum));
		l.host_last = 0;
		l.total = l.files = l.other_files = l.errors = 0;
		l.device_stored = 0;
		is.base = o->files;
		if (image_layer_walk(&im, i, &w, &e) < 0) {
			rc = applet_fail_err("du", "cannot read image", spec, 0,
					     &e);
		} else {
			l.total = w.file_bytes;
			l.files = w.files;
			l.other_files += w.files - is.wanted;
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
			if (merge(o, &l) < 0)
				rc = fail("cannot read image", spec, "out of memory");
		}
		/* The selections were the layer's to use (what they matched
		 * noted): back to o, whose they are. */
		o->targets = l.targets;
		o->keep = l.keep;
		o->drop = l.drop;
		for (size_t j = 0; j < l.n; j++)
			free(l.t[j].name);
		free(l.t);
	}
	nlayer = im.nlayer;
	image_close(&im);
	if (rc) {
		if (o->json)
			fputs("]}\n", stdout);
		return rc;
	}
	if (o->n)
		qsort(o->t, o->n, sizeof(*o->t), du_by_stored);
	if (o->json) {
		fputs("],\"all\":", stdout);
		du_print_json(o, "}}\n");
	} else {
		printf("all %zu layers:\n", nlayer);
		du_print_text(o);
	}
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
