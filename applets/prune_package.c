/* prune_package: a package pruned, a line said (see prune_package.h). */
#include <stdio.h>
#include <string.h>

#include "messages.h"
#include "prune_package.h"
#include "selection.h"
#include "../core/io_out.h"
#include "../ops/deb.h"
#include "../ops/conda.h"
#include "../ops/deb_prune.h"
#include "../ops/wheel_prune.h"

static bool keep_entry(void *ctx, const struct prune_entry *en)
{
	struct options *o = ctx;

	return applet_keeps(&o->keep, &o->drop, &en->sel);
}

static struct prune_opts prune_opts(struct options *o)
{
	struct prune_opts po = {
		.keep = keep_entry, .ctx = o, .level = o->level,
		.package_level = o->package_level,
		.keep_layout = o->keep_layout, .shrink = o->shrink,
		.compress = o->compress,
		.compress_method = o->compress_method,
		.ccob_version = o->ccob_version,
		.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			    .max_size = CCOB_DEFAULT_MAX_SIZE },
	};

	return po;
}

/* What prune made of a package, for its line. */
struct told {
	uint64_t files, code_before, code_after, before, after;
	const char *checksums;	/* the file made to match */
};

static void say(struct options *o, const char *path, const char *written,
		const struct told *t)
{
	if (o->dry_run)
		fprintf(o->report, "%s: would prune %llu file%s\n", path,
			(unsigned long long)t->files, t->files == 1 ? "" : "s");
	else
		fprintf(o->report, "%s: %llu file%s pruned, %llu -> %llu "
			"bytes; %s updated; package %llu -> %llu bytes\n",
			written, (unsigned long long)t->files,
			t->files == 1 ? "" : "s",
			(unsigned long long)t->code_before,
			(unsigned long long)t->code_after, t->checksums,
			(unsigned long long)t->before,
			(unsigned long long)t->after);
}

static int prune_wheel(struct options *o, const char *path, struct io_in *in,
		       struct io_out *out, struct told *t, struct err *e)
{
	struct wheel_prune_opts po = {
		.prune = prune_opts(o), .dry_run = o->dry_run,
	};
	struct wheel_prune_result r;
	struct wheel w;
	int rc = -1;

	if (wheel_open_in(&w, in, path, e) == 0 &&
	    wheel_prune(&w, out, &po, &r, e) == 0) {
		*t = (struct told){ r.files, r.code_before, r.code_after,
				    r.before, r.after, "RECORD" };
		rc = 0;
	}
	wheel_close(&w);
	return rc;
}

static int prune_conda(struct options *o, struct io_in *in,
		       struct io_out *out, struct told *t, struct err *e)
{
	struct conda_prune_opts po = {
		.prune = prune_opts(o), .dry_run = o->dry_run,
	};
	struct conda_prune_result r;

	if (conda_prune(in, out, &po, &r, e) < 0)
		return -1;
	*t = (struct told){ r.files, r.code_before, r.code_after, r.before,
			    r.after, "paths.json" };
	return 0;
}

/* A Debian package: its line said here, its members named in it. */
static int prune_deb(struct options *o, const char *path, struct io_in *in,
		     struct io_out *out, const char *written, struct told *t,
		     struct err *e)
{
	struct deb_prune_opts po = {
		.prune = prune_opts(o), .dry_run = o->dry_run,
	};
	struct deb_prune_result r;
	struct deb d;
	int rc = -1;

	if (deb_open_in(&d, in, path, e) < 0 ||
	    deb_prune(&d, out, &po, &r, e) < 0)
		goto out;
	rc = 0;
	t->files = r.files;
	t->before = r.deb_before;
	t->after = r.deb_after;
	/* In a tree, a package that does not change is said nothing of. */
	if (o->dry_run || (!r.files && o->walked)) {
		if (o->dry_run && (r.files || !o->walked))
			say(o, path, written, t);
		goto out;
	}
	fprintf(o->report, "%s: %llu file%s pruned, %llu -> %llu bytes; %s "
		"%llu -> %llu bytes; ", written, (unsigned long long)r.files,
		r.files == 1 ? "" : "s", (unsigned long long)r.code_before,
		(unsigned long long)r.code_after, d.member[d.data].name,
		(unsigned long long)r.data_before,
		(unsigned long long)r.data_after);
	if (r.installed_before >= 0)
		fprintf(o->report, "Installed-Size %lld -> %lld; ",
			r.installed_before, r.installed_after);
	fprintf(o->report, "package %llu -> %llu bytes\n",
		(unsigned long long)r.deb_before,
		(unsigned long long)r.deb_after);
	if (o->verbose && (r.blocks_copied || r.blocks_made))
		fprintf(o->report, "%s: %s: %llu xz block%s copied (%llu "
			"bytes of tar), %llu compressed again (%llu bytes)\n",
			written, d.member[d.data].name,
			(unsigned long long)r.blocks_copied,
			r.blocks_copied == 1 ? "" : "s",
			(unsigned long long)r.bytes_copied,
			(unsigned long long)r.blocks_made,
			(unsigned long long)r.bytes_made);
out:
	deb_close(&d);
	return rc;
}

bool prune_package_is(const char *path)
{
	return deb_is(path) || wheel_is(path) || conda_is(path);
}

bool prune_package_probe(const char *name, const uint8_t *buf, size_t len)
{
	return deb_probe(buf, len) || wheel_probe(name, buf, len) ||
	       conda_probe(name, buf, len);
}

int prune_package_to(struct options *o, const char *path, struct io_in *in,
		     struct io_out *out, const char *shown, uint64_t *files,
		     uint64_t *after, struct err *e)
{
	struct told t = { 0 };
	const char *written = shown;
	int rc;

	if (deb_probe(in->data, in->len))
		rc = prune_deb(o, path, in, out, written, &t, e);
	else if (conda_probe(path, in->data, in->len))
		rc = prune_conda(o, in, out, &t, e);
	else
		rc = prune_wheel(o, path, in, out, &t, e);
	io_in_close(in);
	if (rc < 0)
		return -1;
	*files = t.files;
	*after = t.after;
	/* In a tree, a line only of a package that changed (or would). */
	if (t.checksums && (t.files || !o->walked))
		say(o, shown, written, &t);
	return 0;
}

int prune_package(struct options *o, const char *path)
{
	struct io_out out = { .fd = -1 };
	struct io_in in = { .fd = -1 };
	uint64_t files, after;
	struct err e;

	if (io_in_open(&in, path, &e) < 0)
		return applet_fail_err("prune", "cannot read", path, 0, &e);
	if (!o->dry_run) {
		if (io_out_open(&out, o->output, &e) < 0) {
			io_in_close(&in);
			return applet_fail_io("prune", o->output, &e);
		}
		io_out_mode_from(&out, &in);
	}
	if (prune_package_to(o, path, &in, o->dry_run ? NULL : &out,
			     o->dry_run ? path : o->output, &files, &after,
			     &e) < 0) {
		if (!o->dry_run)
			io_out_discard(&out);
		/* A write to the output that failed names it. */
		if (!o->dry_run && e.path[0] && err_names(&e, o->output))
			return applet_fail_io("prune", o->output, &e);
		return applet_fail_err("prune", "cannot prune package", path,
				       0, &e);
	}
	if (!o->dry_run && io_out_commit(&out, &e) < 0)
		return applet_fail_io("prune", o->output, &e);
	return 0;
}
