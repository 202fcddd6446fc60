/* prune_image: a container image pruned, a line per layer (see
 * prune_image.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "messages.h"
#include "prune_image.h"
#include "selection.h"
#include "../core/env.h"
#include "../ops/image.h"
#include "../ops/image_pack.h"
#include "../ops/image_prune.h"

/* Layers are pruned on threads of their own, and a selection notes what
 * it matched: one decision at a time. */
static pthread_mutex_t keep_lock = PTHREAD_MUTEX_INITIALIZER;

static bool keep_entry(void *ctx, const struct prune_entry *en)
{
	struct options *o = ctx;
	bool keep;

	pthread_mutex_lock(&keep_lock);
	keep = applet_keeps(&o->keep, &o->drop, &en->sel);
	pthread_mutex_unlock(&keep_lock);
	return keep;
}

static void say_layer(FILE *f, const struct image *im, size_t i,
		      const struct image_layer_result *r, bool dry)
{
	const struct image_layer *l = &im->layer[i];
	const char *name = l->digest[0] ? l->digest : l->path;

	if (!r->changed) {
		fprintf(f, "layer %s: unchanged, %llu bytes\n", name,
			(unsigned long long)r->blob_before);
		return;
	}
	fprintf(f, "layer %s: %llu file%s pruned", name,
		(unsigned long long)r->files, r->files == 1 ? "" : "s");
	if (dry) {
		fputc('\n', f);
		return;
	}
	fprintf(f, ", %llu -> %llu bytes; blob %llu -> %llu bytes (%s), %s\n",
		(unsigned long long)r->code_before,
		(unsigned long long)r->code_after,
		(unsigned long long)r->blob_before,
		(unsigned long long)r->blob_after,
		layer_codec_name(r->codec), r->digest);
}

/* -o's transport: oci:DIR (or a plain DIR), oci-archive:FILE,
 * docker-archive:FILE[:REF], as skopeo names them.  *ref is malloc'ed.
 * 0, or 2 with the usage error said. */
static int output(const char *spec, struct image_prune_opts *po,
		  const char **out, char **ref)
{
	const char *colon;

	*out = spec;
	*ref = NULL;
	if (!strncmp(spec, "oci:", 4)) {
		*out = spec + 4;
	} else if (!strncmp(spec, "oci-archive:", 12)) {
		po->output = IMAGE_OUT_OCI_ARCHIVE;
		*out = spec + 12;
	} else if (!strncmp(spec, "docker-archive:", 15)) {
		po->output = IMAGE_OUT_DOCKER_ARCHIVE;
		*out = spec + 15;
		if ((colon = strchr(*out, ':'))) {
			if (!image_pack_ref_ok(colon + 1))
				return applet_usage_error("prune", "-o %s: '%s' "
					"is no image reference (letters, "
					"digits, _ . : / @ -)", spec, colon + 1);
			if (!(*ref = strndup(*out, (size_t)(colon - *out))))
				return applet_usage_error("prune", "out of "
							  "memory");
			po->ref = colon + 1;
			*out = *ref;
		}
		if (po->recompress)
			return applet_usage_error("prune", "--layer-compression "
				"is not for a docker archive (its layers are "
				"plain tars)");
	}
	if (!**out)
		return applet_usage_error("prune", "-o %s names no file", spec);
	return 0;
}

/* Whether path is the input image's file or directory. */
static bool is_input(const char *path, const struct image *im)
{
	struct stat a, b;

	return stat(path, &a) == 0 && stat(im->where, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Whether path, or the directory it would be made in, is inside the
 * input's layout directory: written there it would replace the input's
 * own files (its index.json, a blob).  Both resolved; a path whose
 * directory does not exist is not written at all. */
static bool in_input(const char *path, const struct image *im)
{
	char *dir = realpath(im->where, NULL), *copy = strdup(path);
	char *slash = copy ? strrchr(copy, '/') : NULL, *at = NULL;
	struct stat st;
	bool in = false;

	if (dir && copy && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (slash)
			*(slash == copy ? slash + 1 : slash) = 0;
		at = realpath(slash ? copy : ".", NULL);
	}
	if (at) {
		size_t n = strlen(dir);

		in = !strncmp(at, dir, n) && (!at[n] || at[n] == '/' ||
					      !strcmp(dir, "/"));
	}
	free(at);
	free(copy);
	free(dir);
	return in;
}

int prune_image(struct options *o, const char *spec)
{
	struct image_prune_opts po = {
		.prune = {
			.keep = keep_entry, .ctx = o, .level = o->level,
			.package_level = o->package_level,
			.keep_layout = o->keep_layout, .shrink = o->shrink,
			.compress = o->compress,
			.compress_method = o->compress_method,
			.ccob_version = o->ccob_version,
			.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				    .max_size = CCOB_DEFAULT_MAX_SIZE },
		},
		.jobs = o->jobs, .dry_run = o->dry_run,
	};
	struct image_layer_result *res = NULL;
	const char *out = NULL;
	char *out_file = NULL;
	struct image im;
	uint64_t changed = 0;
	struct err e;
	int rc = 1;

	/* The bound over which a file of a layer is held in a temporary
	 * file (a test makes it small). */
	if (env_positive_u64("OFFLOAD_LAYER_SPILL", &po.spill, &e) < 0)
		return applet_usage_error("prune", "%s", e.msg);
	if (o->layer_compression &&
	    (layer_codec_parse(o->layer_compression, &po.codec) < 0 ||
	     !layer_codec_oci(po.codec)))
		return applet_usage_error("prune", "--layer-compression takes "
					  "gzip, zstd or none, not '%s'",
					  o->layer_compression);
	po.recompress = o->layer_compression != NULL;
	if (o->output && (rc = output(o->output, &po, &out, &out_file)) != 0) {
		free(out_file);
		return rc;
	}
	rc = 1;
	if (image_open(&im, spec, &e) < 0) {
		applet_fail_err("prune", "cannot prune image", spec, 0, &e);
		image_close(&im);
		free(out_file);
		return 1;
	}
	if (out && is_input(out, &im)) {
		applet_fail("prune", "cannot write", out, "it is the input (an "
			    "image is written to a new one)");
		goto out;
	}
	if (out && in_input(out, &im)) {
		applet_fail("prune", "cannot write", out, "it is inside the "
			    "input '%s' (an image is written to a new one)",
			    spec);
		goto out;
	}
	if (!(res = calloc(im.nlayer + 1, sizeof(*res)))) {
		applet_fail("prune", "cannot prune", spec, "out of memory");
		goto out;
	}
	if (image_prune(&im, out, &po, res, &e) < 0) {
		/* A failure of the output names it as the user gave it,
		 * never as the image. */
		if (out && e.path[0] && err_names(&e, out))
			applet_fail_io("prune", out, &e);
		else
			applet_fail_err("prune", "cannot prune image", spec, 0,
					&e);
		goto out;
	}
	for (size_t i = 0; i < im.nlayer; i++) {
		say_layer(o->report, &im, i, &res[i], o->dry_run);
		changed += res[i].changed;
	}
	fprintf(o->report, "%s: %s %llu of %zu layers, %zu manifest%s\n",
		o->dry_run ? spec : out, o->dry_run ? "would write again" :
		"wrote again", (unsigned long long)changed, im.nlayer,
		im.nmanifest, im.nmanifest == 1 ? "" : "s");
	rc = 0;
out:
	free(res);
	free(out_file);
	image_close(&im);
	return rc;
}
