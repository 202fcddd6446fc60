/* prune: a file pruned into a new one for liboffcode (include/offcode.h),
 * as `offload prune FILE -o OUT` prunes it (ops/prune_plan.h, ops/prune.h):
 * the same plan, the same checks, the same bytes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "unsupported.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/select.h"
#include "../ops/hosts.h"
#include "../ops/prune.h"
#include "../ops/prune_plan.h"
#include "../formats/ccob.h"

/* The tool's outputs note their temporaries in one table its signal
 * handler reads (core/io_signal.c), which is not made for threads: one
 * prune at a time writes.  A lock, not state: nothing is kept. */
static pthread_mutex_t writing = PTHREAD_MUTEX_INITIALIZER;

struct sel {
	struct select keep, drop;
};

/* prune's rule (applets/selection.c's applet_keeps). */
static bool keep_entry(void *ctx, const struct prune_entry *en)
{
	struct sel *s = ctx;

	if (en->sel.host || select_is_portable(&en->sel))
		return true;
	if (s->keep.n)
		return select_match(&s->keep, &en->sel);
	return !select_match(&s->drop, &en->sel);
}

static int fail(offcode_error **err, const struct err *e, const char *path)
{
	if (err)
		*err = error_from(e, path);
	return error_code_of(e->code);
}

static int refuse(offcode_error **err, enum offcode_code code,
		  const char *reason)
{
	if (err)
		*err = error_new(code, reason);
	return code;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The options as the caller's version of the struct has them. */
static int options_of(const struct offcode_prune_options *o, struct sel *s,
		      struct prune_opts *po, bool *allow_empty,
		      offcode_error **err)
{
	struct offcode_prune_options opt = { 0 };
	struct err e;

	if (!o || o->size < offsetof(struct offcode_prune_options, threads))
		return refuse(err, OFFCODE_INVALID, "no options, or their size "
			      "is too small");
	memcpy(&opt, o, o->size < sizeof(opt) ? o->size : sizeof(opt));
	if (opt.keep && opt.drop)
		return refuse(err, OFFCODE_INVALID, "say what to keep or what "
			      "to drop, not both");
	if (!opt.keep && !opt.drop && opt.compress == OFFCODE_COMPRESS_NONE)
		return refuse(err, OFFCODE_INVALID, "say what to keep or what "
			      "to drop, or compress");
	if (opt.ccob_version && (opt.ccob_version < 2 || opt.ccob_version > 3))
		return refuse(err, OFFCODE_INVALID, "ccob_version is 2 or 3");
	if (opt.ccob_version && opt.compress == OFFCODE_COMPRESS_NONE)
		return refuse(err, OFFCODE_INVALID, "ccob_version is for "
			      "compress");
	if (opt.compression_level < 0 || opt.compression_level > 22)
		return refuse(err, OFFCODE_INVALID, "compression_level is from "
			      "1 to 22");
	s->keep.exact = s->drop.exact = opt.exact;
	if ((opt.keep && (select_add(&s->keep, opt.keep, &e) < 0 ||
			  select_check_ids(&s->keep, &e) < 0)) ||
	    (opt.drop && (select_add(&s->drop, opt.drop, &e) < 0 ||
			  select_check_ids(&s->drop, &e) < 0))) {
		fail(err, &e, NULL);
		return e.code == ERR_NOMEM ? OFFCODE_NOMEM : OFFCODE_INVALID;
	}
	*po = (struct prune_opts){
		.keep = keep_entry, .ctx = s,
		.level = opt.compression_level ? opt.compression_level : 3,
		.package_level = opt.compression_level,
		.keep_layout = opt.keep_layout,
		.compress = opt.compress != OFFCODE_COMPRESS_NONE,
		.compress_method = opt.compress == OFFCODE_COMPRESS_ZLIB
				   ? CCOB_ZLIB : CCOB_ZSTD,
		.ccob_version = opt.ccob_version, .threads = opt.threads,
		.limits = { .max_ratio = opt.ccob_max_ratio ? opt.ccob_max_ratio
							    : CCOB_DEFAULT_MAX_RATIO,
			    .max_size = opt.ccob_max_size ? opt.ccob_max_size
							  : CCOB_DEFAULT_MAX_SIZE },
	};
	*allow_empty = opt.allow_empty;
	return 0;
}

/* The first rule of s that took nothing, or NULL. */
static const char *unmatched(const struct select *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->rule[i].hit)
			return s->rule[i].text;
	return NULL;
}

/* Whether in's map was cut short under the walk (offcode_catch_sigbus's
 * handler noted it): what was written was made from its zero pages.  The
 * tool's io_out_commit reads the process's note instead. */
static bool cut_short(const struct io_in *in)
{
	const volatile bool *cut = in->map ? io_in_cut_note(in->map) : NULL;

	return cut && *cut;
}

static int prune_in(const char *in_path, const char *out_path,
		    struct prune_opts *po, struct sel *s, bool allow_empty,
		    struct offcode_prune_result *res, offcode_error **err)
{
	struct prune_plan plan = { 0 };
	struct io_out out = { .fd = -1 };
	struct io_in in = { .fd = -1 };
	const char *missed;
	struct err e;
	int rc;

	const char *what = unsupported_path(in_path);
	char why[600];

	if (what) {
		unsupported_reason(why, sizeof(why), in_path, what);
		return refuse(err, OFFCODE_UNSUPPORTED, why);
	}
	if (io_in_open(&in, in_path, &e) < 0)
		return fail(err, &e, in_path);
	if ((what = unsupported_bytes(in_path, in.data, in.len))) {
		unsupported_reason(why, sizeof(why), in_path, what);
		rc = refuse(err, OFFCODE_UNSUPPORTED, why);
		goto out;
	}
	if (prune_plan(in.data, in.len, po, &plan, &e) < 0) {
		rc = fail(err, &e, in_path);
		goto out;
	}
	if ((missed = unmatched(&s->drop))) {
		snprintf(why, sizeof(why), "no code object matches the drop "
			 "rule '%.200s'", missed);
		err_code_file(&e, ERR_NOTHING, 0, in_path, "%s", why);
		rc = fail(err, &e, in_path);
		goto out;
	}
	if (plan.containers_emptied && !plan.device_kept && !allow_empty) {
		err_code_file(&e, ERR_OTHER, 0, in_path, "%llu container%s "
			      "would keep no device code (allow_empty to prune "
			      "anyway)",
			      (unsigned long long)plan.containers_emptied,
			      plan.containers_emptied == 1 ? "" : "s");
		rc = fail(err, &e, in_path);
		goto out;
	}
	pthread_mutex_lock(&writing);
	rc = io_out_open_replace(&out, out_path, &e);
	if (rc == 0) {
		io_out_mode_from(&out, &in);
		rc = prune_write(&in, &plan, &out, &e);
		if (rc == 0 && cut_short(&in))
			rc = err_code_file(&e, ERR_CHANGED, 0, in_path,
					   "file changed size while being "
					   "read");
		if (rc == 0)
			rc = io_out_commit(&out, &e);
		else
			io_out_discard(&out);
	}
	pthread_mutex_unlock(&writing);
	if (rc < 0) {
		rc = fail(err, &e, e.path[0] ? out_path : in_path);
		goto out;
	}
	if (res && res->size >= sizeof(*res))
		*res = (struct offcode_prune_result){
			.size = sizeof(*res), .size_before = in.len,
			.size_after = plan.size_after,
			.entries_kept = plan.entries_kept,
			.entries_dropped = plan.entries_dropped,
			.changed = plan.entries_dropped || plan.compressed ||
				   plan.entries_compressed,
		};
	rc = 0;
out:
	prune_plan_free(&plan);
	io_in_close(&in);
	return rc;
}

int offcode_prune(const char *in, const char *out,
		  const struct offcode_prune_options *options,
		  struct offcode_prune_result *result, offcode_error **err)
{
	struct sel s = { { 0 }, { 0 } };
	struct prune_opts po;
	bool allow_empty = false;
	int rc;

	if (err)
		*err = NULL;
	if (!in || !out)
		return refuse(err, OFFCODE_INVALID, "no input or no output");
	if (!strcmp(out, "-") || same_file(in, out))
		return refuse(err, OFFCODE_INVALID, "the output is the input, "
			      "or standard output");
	if ((rc = options_of(options, &s, &po, &allow_empty, err)) == 0)
		rc = prune_in(in, out, &po, &s, allow_empty, result, err);
	select_free(&s.keep);
	select_free(&s.drop);
	return rc;
}
