/* prune_package: a package pruned, a line said (see prune_package.h). */
#include <stdio.h>

#include "messages.h"
#include "prune_package.h"
#include "selection.h"
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

static int prune_wheel(struct options *o, const char *path)
{
	struct wheel_prune_opts po = {
		.prune = prune_opts(o), .dry_run = o->dry_run,
	};
	struct wheel_prune_result r;
	struct wheel w;
	struct err e;
	int rc = 1;

	if (wheel_open(&w, path, &e) < 0 ||
	    wheel_prune(&w, o->output, &po, &r, &e) < 0) {
		applet_fail_err("prune", "cannot prune package", path, 0, &e);
		goto out;
	}
	if (o->dry_run)
		fprintf(o->report, "%s: would prune %llu file%s\n", path,
			(unsigned long long)r.files, r.files == 1 ? "" : "s");
	else
		fprintf(o->report, "%s: %llu file%s pruned, %llu -> %llu "
			"bytes; RECORD updated; package %llu -> %llu bytes\n",
			o->output, (unsigned long long)r.files,
			r.files == 1 ? "" : "s",
			(unsigned long long)r.code_before,
			(unsigned long long)r.code_after,
			(unsigned long long)r.before,
			(unsigned long long)r.after);
	rc = 0;
out:
	wheel_close(&w);
	return rc;
}

static int prune_conda(struct options *o, const char *path)
{
	struct conda_prune_opts po = {
		.prune = prune_opts(o), .dry_run = o->dry_run,
	};
	struct conda_prune_result r;
	struct err e;

	if (conda_prune(path, o->output, &po, &r, &e) < 0)
		return applet_fail_err("prune", "cannot prune package", path,
				       0, &e);
	if (o->dry_run)
		fprintf(o->report, "%s: would prune %llu file%s\n", path,
			(unsigned long long)r.files, r.files == 1 ? "" : "s");
	else
		fprintf(o->report, "%s: %llu file%s pruned, %llu -> %llu "
			"bytes; paths.json updated; package %llu -> %llu "
			"bytes\n", o->output, (unsigned long long)r.files,
			r.files == 1 ? "" : "s",
			(unsigned long long)r.code_before,
			(unsigned long long)r.code_after,
			(unsigned long long)r.before,
			(unsigned long long)r.after);
	return 0;
}

bool prune_package_is(const char *path)
{
	return deb_is(path) || wheel_is(path) || conda_is(path);
}

int prune_package(struct options *o, const char *path)
{
	struct deb_prune_opts po = {
		.prune = prune_opts(o), .dry_run = o->dry_run,
	};
	struct deb_prune_result r;
	struct deb d;
	struct err e;
	int rc = 1;

	if (conda_is(path))
		return prune_conda(o, path);
	if (!deb_is(path))
		return prune_wheel(o, path);
	if (deb_open(&d, path, &e) < 0 ||
	    deb_prune(&d, o->output, &po, &r, &e) < 0) {
		applet_fail_err("prune", "cannot prune package", path, 0, &e);
		goto out;
	}
	if (o->dry_run) {
		fprintf(o->report, "%s: would prune %llu file%s\n", path,
			(unsigned long long)r.files, r.files == 1 ? "" : "s");
		rc = 0;
		goto out;
	}
	fprintf(o->report, "%s: %llu file%s pruned, %llu -> %llu bytes; %s "
		"%llu -> %llu bytes; ", o->output, (unsigned long long)r.files,
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
	rc = 0;
out:
	deb_close(&d);
	return rc;
}
