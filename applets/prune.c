/* prune: slim fat binaries after the build, down to the device code a set
 * of GPUs loads (ops/prune.c does the rewriting). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "applets.h"
#include "messages.h"
#include "progress.h"
#include "selection.h"
#include "../core/io.h"
#include "../core/select.h"
#include "../ops/prune.h"

static const char usage[] =
	"Usage: offload prune (--keep TARGETS | --drop PATTERNS) [OPTIONS] FILE...\n"
	"Take device code out of executables, shared libraries, objects, static\n"
	"libraries, offload bundles (binary, text, object), CCOBs, offload\n"
	"packages and NVIDIA fatbins, keeping what the GPUs named load.\n"
	"\n"
	"  -k, --keep=TARGETS    keep what a GPU of each target ID loads (gfx90a\n"
	"                        keeps gfx90a, gfx90a:xnack+ and gfx90a:xnack-;\n"
	"                        gfx90a:xnack+ drops gfx90a:xnack-), the generic\n"
	"                        code objects it runs (gfx11-generic for gfx1100)\n"
	"                        and SPIR-V; comma-separated, repeatable; bundle\n"
	"                        IDs and globs (*, ?, [) also select\n"
	"  -d, --drop=PATTERNS   drop what these target IDs, bundle IDs or globs\n"
	"                        select instead; comma-separated, repeatable\n"
	"      --exact           take names as written, not what a GPU loads:\n"
	"                        sm_80 is the sm_80 SASS alone, compute_80 that\n"
	"                        PTX alone (nvprune -arch's rule)\n"
	"  -o, --output=FILE     write the pruned form of the one FILE here\n"
	"  -i, --in-place        replace each FILE by its pruned form (mode and\n"
	"                        owner kept; a symlink's target is rewritten)\n"
	"  -n, --dry-run         say what would go and the bytes saved; write\n"
	"                        nothing\n"
	"      --allow-empty     let a bundle keep no device code at all\n"
	"      --keep-layout     in executables and shared libraries, zero the\n"
	"                        freed bytes where they are; do not cut them out\n"
	"      --always-shrink   cut them out even where GNU strip or objcopy\n"
	"                        run on the result would break it (the default\n"
	"                        for a file without a symbol table)\n"
	"      --strip-safe      cut only what GNU strip or objcopy run on the\n"
	"                        result keep right (the default for a file with\n"
	"                        a symbol table)\n"
	"      --compression-level=N\n"
	"                        level of the CCOBs compressed again (default:\n"
	"                        3, the bundler's) and of compressed offload\n"
	"                        packages (default: zstd 5, zlib 6, LLVM 24's)\n"
	"  -v, --verbose         name every entry dropped\n"
	"  -q, --quiet           no progress line (shown on a terminal while CCOBs\n"
	"                        are inflated)\n"
	"  -h, --help            print this help\n"
	"  -V, --version         print the version\n"
	"Host entries are always kept.  Every FILE gets a summary line.\n";

struct options {
	struct select keep, drop;
	const char *output;
	bool in_place, dry_run, allow_empty, keep_layout;
	enum prune_shrink shrink;
	bool verbose, quiet;
	int level, package_level;	/* package_level: 0 unless given */
	const char *file;	/* the one being pruned, for -v */
	FILE *report;		/* stdout, or stderr when the output is */
};

#define fail(what, file, ...) applet_fail("prune", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("prune", __VA_ARGS__)

/* The message may quote IDs from the file: one line whatever they hold. */
static void fail_escaped(const char *path, const struct err *e)
{
	char *msg = applet_escape(e->msg, strlen(e->msg), false);

	fail("cannot prune", path, "%s", msg ? msg : e->msg);
	free(msg);
}

static bool keep_entry(void *ctx, const struct prune_entry *en)
{
	struct options *o = ctx;

	if (en->sel.host || select_is_portable(&en->sel))
		return true;
	if (o->keep.n)
		return select_match(&o->keep, &en->sel);
	return !select_match(&o->drop, &en->sel);
}

static void seen_entry(void *ctx, const struct prune_entry *en, bool kept)
{
	const struct options *o = ctx;
	char *id;

	if (!o->verbose || kept)
		return;
	id = applet_escape(en->sel.id, en->sel.id_len, false);
	fprintf(o->report, "%s: drop %s, %llu bytes", o->file, id ? id : "?",
		(unsigned long long)en->size);
	free(id);
	if (en->section)
		fprintf(o->report, ", section %s", en->section);
	fprintf(o->report, ", container at %llu\n",
		(unsigned long long)en->container);
}

static void summary(FILE *f, const char *path, const struct prune_plan *p,
		    bool dry)
{
	uint64_t total = p->entries_kept + p->entries_dropped;

	fprintf(f, "%s: %s %llu of %llu entries, %llu bytes of code; file %llu -> "
	       "%llu bytes", path, dry ? "would drop" : "dropped",
	       (unsigned long long)p->entries_dropped,
	       (unsigned long long)total,
	       (unsigned long long)p->code_dropped,
	       (unsigned long long)p->size_before,
	       (unsigned long long)p->size_after);
	/* The floor for linked files, said: the layout stays. */
	if (p->zeroed)
		fprintf(f, ", %llu zeroed in place", (unsigned long long)p->zeroed);
	if (p->containers_emptied)
		fprintf(f, ", %llu container%s emptied",
			(unsigned long long)p->containers_emptied,
			p->containers_emptied == 1 ? "" : "s");
	/* A linked file that could have been made smaller, and was not. */
	if (p->shrink.why[0])
		fprintf(f, " (not shrunk: %s)", p->shrink.why);
	fputc('\n', f);
}

static bool unmatched(const struct select *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->rule[i].hit)
			return true;
	return false;
}

/* What the file holds, shown to the selection and nothing else: errors
 * are said when it is pruned. */
static void look(struct options *o, const char *path)
{
	struct prune_opts po = {
		.keep = keep_entry, .ctx = o, .level = o->level,
		.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			    .max_size = CCOB_DEFAULT_MAX_SIZE },
		.decide_only = true,
	};
	struct prune_plan plan;
	struct io_in in;
	struct err e;

	if (io_in_open(&in, path, &e) < 0)
		return;
	if (prune_plan(in.data, in.len, &po, &plan, &e) == 0)
		prune_plan_free(&plan);
	io_in_close(&in);
}

static int prune_one(struct options *o, const char *path)
{
	struct prune_opts po = {
		.keep = keep_entry, .seen = seen_entry, .ctx = o,
		.level = o->level, .package_level = o->package_level,
		.keep_layout = o->keep_layout, .shrink = o->shrink,
		.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			    .max_size = CCOB_DEFAULT_MAX_SIZE },
	};
	struct prune_plan plan = { 0 };
	struct io_out out = { .fd = -1 };
	const char *dest = o->in_place ? path : o->output;
	struct io_in in;
	struct stat st;
	struct err e;
	int rc = 1;

	if (io_in_open(&in, path, &e) < 0)
		return applet_fail_err("prune", "cannot read", path, 0, &e);
	o->file = path;
	if (o->in_place && (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) {
		fail("cannot prune", path, "not a regular file: --in-place "
		     "would not replace it");
		goto out;
	}
	if (progress_on()) {
		progress_name(path);
		po.limits.progress = progress_callback;
	}
	rc = prune_plan(in.data, in.len, &po, &plan, &e);
	progress_end();
	po.limits.progress = NULL;	/* the line is gone: no more of it */
	if (rc < 0) {
		rc = 1;
		fail_escaped(path, &e);
		goto out;
	}
	rc = 1;
	/* A --drop pattern that took nothing: nothing is written (main says
	 * so, once for all files). */
	if (!o->dry_run && unmatched(&o->drop))
		goto out;
	/* A container with nothing a kept GPU runs loses nothing when
	 * emptied (NVIDIA libraries hold many such fatbins); a file that
	 * would keep no device code at all is a wrong selection (a typo). */
	if (plan.containers_emptied && !plan.device_kept && !o->allow_empty) {
		fail("cannot prune", path, "%llu container%s would keep no "
		     "device code (--allow-empty to prune anyway)",
		     (unsigned long long)plan.containers_emptied,
		     plan.containers_emptied == 1 ? "" : "s");
		goto out;
	}
	/* An object whose sections go is checked only when it is written
	 * (a symbol may still point into one): a dry run writes it to
	 * /dev/null, so it says what the run would. */
	if (o->dry_run && (plan.ndrop || plan.nmember))
		dest = "/dev/null";
	else if (o->dry_run)
		dest = NULL;
	if (dest) {
		if (io_out_open(&out, dest, &e) < 0) {
			applet_fail_io("prune", dest, &e);
			goto out;
		}
		if (o->in_place)
			io_out_keep_mode(&out, &in);
		else
			io_out_mode_from(&out, &in);
		if (prune_write(&in, &plan, &out, &e) < 0)
			goto write_failed;
		if (io_out_commit(&out, &e) < 0)
			goto write_failed;
	}
	summary(o->report, path, &plan, o->dry_run);
	rc = 0;
	goto out;
write_failed:
	io_out_discard(&out);
	/* What the rewriting found wrong in the input names no file. */
	if (e.path[0])
		applet_fail_io("prune", dest, &e);
	else
		fail_escaped(path, &e);
out:
	prune_plan_free(&plan);
	io_in_close(&in);
	return rc;
}

/* The output must not be the input: it would be read while replaced. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int prune_main(int argc, char **argv)
{
	enum { OPT_ALLOW_EMPTY = 256, OPT_LEVEL, OPT_EXACT, OPT_KEEP_LAYOUT,
	       OPT_ALWAYS_SHRINK, OPT_STRIP_SAFE };
	static const struct option longopts[] = {
		{ "keep", required_argument, NULL, 'k' },
		{ "drop", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "allow-empty", no_argument, NULL, OPT_ALLOW_EMPTY },
		{ "keep-layout", no_argument, NULL, OPT_KEEP_LAYOUT },
		{ "always-shrink", no_argument, NULL, OPT_ALWAYS_SHRINK },
		{ "strip-safe", no_argument, NULL, OPT_STRIP_SAFE },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "compression-level", required_argument, NULL, OPT_LEVEL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .level = 3 };
	struct err e;
	int c, rc = 0, nfiles;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":k:d:o:invqhV", longopts,
				NULL)) != -1) {
		char *end;

		switch (c) {
		case 'k':
		case 'd':
			if (select_add(c == 'k' ? &o.keep : &o.drop, optarg,
				       &e) < 0) {
				rc = usage_error("%s", e.msg);
				goto out;
			}
			break;
		case 'o': o.output = optarg; break;
		case 'i': o.in_place = true; break;
		case 'n': o.dry_run = true; break;
		case 'v': o.verbose = true; break;
		case 'q': o.quiet = true; break;
		case OPT_ALLOW_EMPTY: o.allow_empty = true; break;
		case OPT_KEEP_LAYOUT: o.keep_layout = true; break;
		case OPT_ALWAYS_SHRINK: o.shrink = PRUNE_SHRINK_ALWAYS; break;
		case OPT_STRIP_SAFE: o.shrink = PRUNE_SHRINK_STRIP_SAFE; break;
		case OPT_EXACT: o.keep.exact = o.drop.exact = true; break;
		case OPT_LEVEL: {
			long level = strtol(optarg, &end, 10);

			if (!*optarg || *end || level < 1 || level > 22) {
				rc = usage_error("--compression-level takes a "
						 "number from 1 to 22");
				goto out;
			}
			o.level = o.package_level = (int)level;
			break;
		}
		case 'h':
			fputs(usage, stdout);
			goto out;
		case 'V':
			printf("offload prune %s\n", OFFLOAD_VERSION);
			goto out;
		default:
			rc = applet_option_error("prune", c, argv, longopts);
			goto out;
		}
	}
	nfiles = argc - optind;
	if (select_check_ids(&o.keep, &e) < 0 ||
	    select_check_ids(&o.drop, &e) < 0) {
		rc = usage_error("%s %s", o.keep.n ? "--keep" : "--drop",
				 e.msg);
		goto out;
	}
	if (!o.keep.n == !o.drop.n)
		rc = usage_error("say what to keep (--keep) or what to drop "
				 "(--drop), not both");
	else if (!nfiles)
		rc = usage_error("no input file");
	else if (!o.dry_run && !o.in_place == !o.output)
		rc = usage_error("say where to write: -o FILE or --in-place");
	else if (o.output && nfiles > 1)
		rc = usage_error("-o takes one input file (--in-place for "
				 "many)");
	else if (o.output && strcmp(o.output, "-") &&
		 same_file(o.output, argv[optind]))
		rc = fail("cannot write", o.output, "it is the input (use "
			  "--in-place)");
	if (rc)
		goto out;
	o.report = o.output && !strcmp(o.output, "-") ? stderr : stdout;
	progress_init("prune", o.quiet);
	/* A pattern to drop that matched nothing is likely a typo, and then
	 * no file is written: with several, a first look at them all (their
	 * CCOBs inflated, not compressed again) says whether one did. */
	if (o.drop.n && nfiles > 1 && !o.dry_run) {
		for (int i = optind; i < argc; i++)
			look(&o, argv[i]);
		if (unmatched(&o.drop)) {
			rc = applet_select_unmatched("prune", "--drop", NULL,
						     &o.drop);
			goto out;
		}
	}
	for (int i = optind; i < argc; i++)
		rc |= prune_one(&o, argv[i]);
	rc |= applet_select_unmatched("prune", "--drop", NULL, &o.drop);
out:
	select_free(&o.keep);
	select_free(&o.drop);
	return rc;
}
