/* bundler: clang-offload-bundler, drop-in exact for LLVM 22. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applets.h"
#include "llvmtool.h"
#include "bundler.h"
#include "../core/clopt.h"
#include "../core/env.h"
#include "../core/io.h"
#include "../core/strmap.h"
#include "../core/target.h"
#include "../core/targetid.h"

static const char overview[] =
	"OVERVIEW: A tool to bundle several input files of the specified type <type> \n"
	"referring to the same source file but different targets into a single \n"
	"one. The resulting file can also be unbundled into different files by \n"
	"this tool if -unbundle is provided.\n"
	"\n"
	"USAGE: clang-offload-bundler [options]\n"
	"\n"
	"OPTIONS:\n";

/* One line of --help each; `show` says in which of LLVM's four help listings
 * the line appears (categorised or flat list, plain or hidden). */
static const struct help_line help_lines[] = {
	{ "  --###                   - Print any external commands that are to be executed instead of actually executing them - for testing purposes.\n", 0, ALL },
	{ "  --allow-missing-bundles - Create empty files if bundles are missing when unbundling.\n", 0, ALL },
	{ "  --bundle-align=<uint>   - Alignment of bundle for binary files\n", 0, ALL },
	{ "  --check-input-archive   - Check if input heterogeneous archive is valid in terms of TargetID rules.\n", 0, ALL },
	{ "  --compress              - Compress output file when bundling.\n", 0, ALL },
	{ "  --compression-level=<n> - Specify the compression level (integer)\n", 0, ALL },
	{ "  --help                  - Display available options (--help-hidden for more)\n", 1, ALL },
	{ "  --help-hidden           - Display all available options\n", 1, HH | LH },
	{ "  --help-list             - Display list of available options (--help-list-hidden for more)\n", 1, H | HH | LH },
	{ "  --help-list-hidden      - Display list of all available options\n", 1, HH | LH },
	{ "  --hip-openmp-compatible - Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa.\n", 0, ALL },
	{ "  --input=<string>        - Input file. Can be specified multiple times for multiple input files.\n", 0, ALL },
	{ "  --inputs=<string>       - [<input file>,...] (deprecated)\n", 0, ALL },
	{ "  --list                  - List bundle IDs in the bundled file.\n", 0, ALL },
	{ "  --output=<string>       - Output file. Can be specified multiple times for multiple output files.\n", 0, ALL },
	{ "  --outputs=<string>      - [<output file>,...] (deprecated)\n", 0, ALL },
	{ "  --print-all-options     - Print all option values after command line parsing\n", 1, HH | LH },
	{ "  --print-options         - Print non-default options after command line parsing\n", 1, HH | LH },
	{ "  --targets=<string>      - [<offload kind>-<target triple>,...]\n", 0, ALL },
	{ "  --type=<string>         - Type of the files to be bundled/unbundled.\n"
	  "                            Current supported types are:\n"
	  "                              i    - cpp-output\n"
	  "                              ii   - c++-cpp-output\n"
	  "                              cui  - cuda-cpp-output\n"
	  "                              hipi - hip-cpp-output\n"
	  "                              d    - dependency\n"
	  "                              ll   - llvm\n"
	  "                              bc   - llvm-bc\n"
	  "                              s    - assembler\n"
	  "                              o    - object\n"
	  "                              a    - archive of objects\n"
	  "                              gch  - precompiled-header\n"
	  "                              ast  - clang AST file\n", 0, ALL },
	{ "  --unbundle              - Unbundle bundled file into several output files.\n", 0, ALL },
	{ "  --verbose               - Print debug information.\n", 0, ALL },
	{ "  --version               - Display the version of this program\n", 1, ALL },
};

static void print_help(int which)
{
	size_t n = sizeof(help_lines) / sizeof(help_lines[0]);

	fputs(overview, stdout);
	llvm_print_help(help_lines, n, which, "clang-offload-bundler");
}

/* The options, in the order LLVM's option map iterates them: that order
 * breaks ties between equally close "Did you mean" suggestions.  It was
 * measured from LLVM 22's suggestions, since it depends on every option
 * libLLVM registers, not just these. */
enum {
	O_HELP, O_LIST, O_CHECK_ARCHIVE, O_HELP_HIDDEN, O_OUTPUT, O_UNBUNDLE,
	O_VERSION, O_PRINT_CMDS, O_LEVEL, O_HELP_LIST, O_ALLOW_MISSING, O_TYPE,
	O_HELP_LIST_HIDDEN, O_INPUTS, O_TARGETS, O_VERBOSE, O_PRINT_OPTIONS,
	O_OUTPUTS, O_INPUT, O_ALIGN, O_HIP_OPENMP, O_PRINT_ALL_OPTIONS,
	O_COMPRESS, O_H,
	/* libLLVM's own generic options, accepted and ignored, never
	 * suggested; LLVM accepts thousands more (its pass options). */
	O_COLOR, O_DISABLE_SYMBOLICATION, O_INFO_OUTPUT_FILE, O_RNG_SEED,
	O_STATS, O_STATS_JSON, O_TIME_PASSES, O_TRACK_MEMORY, O_COUNT
};

static void init_options(struct clopt *o)
{
	static const struct clopt proto[O_COUNT] = {
		[O_TYPE] = { .name = "type", .type = CLOPT_STRING, .flags = CLOPT_REQUIRED },
		[O_INPUT] = { .name = "input", .type = CLOPT_LIST, .flags = 0 },
		[O_INPUTS] = { .name = "inputs", .type = CLOPT_LIST, .flags = CLOPT_COMMA },
		[O_OUTPUT] = { .name = "output", .type = CLOPT_LIST, .flags = 0 },
		[O_OUTPUTS] = { .name = "outputs", .type = CLOPT_LIST, .flags = CLOPT_COMMA },
		[O_TARGETS] = { .name = "targets", .type = CLOPT_LIST, .flags = CLOPT_COMMA },
		[O_UNBUNDLE] = { .name = "unbundle", .type = CLOPT_BOOL, .flags = 0 },
		[O_LIST] = { .name = "list", .type = CLOPT_BOOL, .flags = 0 },
		[O_PRINT_CMDS] = { .name = "###", .type = CLOPT_BOOL, .flags = 0 },
		[O_ALLOW_MISSING] = { .name = "allow-missing-bundles", .type = CLOPT_BOOL, .flags = 0 },
		[O_ALIGN] = { .name = "bundle-align", .type = CLOPT_UINT, .flags = 0 },
		[O_CHECK_ARCHIVE] = { .name = "check-input-archive", .type = CLOPT_BOOL, .flags = 0 },
		[O_HIP_OPENMP] = { .name = "hip-openmp-compatible", .type = CLOPT_BOOL, .flags = 0 },
		[O_COMPRESS] = { .name = "compress", .type = CLOPT_BOOL, .flags = 0 },
		[O_VERBOSE] = { .name = "verbose", .type = CLOPT_BOOL, .flags = 0 },
		[O_LEVEL] = { .name = "compression-level", .type = CLOPT_INT, .flags = 0 },
		[O_H] = { .name = "h", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST | CLOPT_GROUPING },
		[O_HELP] = { .name = "help", .type = CLOPT_ACTION, .flags = 0 },
		[O_HELP_HIDDEN] = { .name = "help-hidden", .type = CLOPT_ACTION, .flags = 0 },
		[O_HELP_LIST] = { .name = "help-list", .type = CLOPT_ACTION, .flags = 0 },
		[O_HELP_LIST_HIDDEN] = { .name = "help-list-hidden", .type = CLOPT_ACTION, .flags = 0 },
		[O_VERSION] = { .name = "version", .type = CLOPT_ACTION, .flags = 0 },
		[O_PRINT_OPTIONS] = { .name = "print-options", .type = CLOPT_BOOL, .flags = 0 },
		[O_PRINT_ALL_OPTIONS] = { .name = "print-all-options", .type = CLOPT_BOOL, .flags = 0 },
		[O_COLOR] = { .name = "color", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		[O_DISABLE_SYMBOLICATION] = { .name = "disable-symbolication", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		[O_INFO_OUTPUT_FILE] = { .name = "info-output-file", .type = CLOPT_STRING, .flags = CLOPT_NO_SUGGEST },
		[O_RNG_SEED] = { .name = "rng-seed", .type = CLOPT_STRING, .flags = CLOPT_NO_SUGGEST },
		[O_STATS] = { .name = "stats", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		[O_STATS_JSON] = { .name = "stats-json", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		[O_TIME_PASSES] = { .name = "time-passes", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		[O_TRACK_MEMORY] = { .name = "track-memory", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
	};

	memcpy(o, proto, sizeof(proto));
	o[O_ALIGN].u = 1;
}

/* ---- messages ---- */

static const char *argv0;
static int color = -1;	/* --color's value; -1: when stderr is a terminal */

static void report(const char *kind, const char *fmt, va_list ap)
{
	llvm_report(argv0, kind, color < 0 ? isatty(2) : color, fmt, ap);
}

/* While deferring, the first failure is kept, not printed. */
static bool deferring;
static char *deferred;

void bundler_defer(bool on)
{
	deferring = on;
}

int bundler_deferred(void)
{
	if (!deferred)
		return 0;
	deferring = false;
	bundler_fail("%s", deferred);
	free(deferred);
	deferred = NULL;
	return 1;
}

void bundler_deferred_drop(void)
{
	free(deferred);
	deferred = NULL;
}

int bundler_fail(const char *fmt, ...)
{
	const char *cut = io_input_cut();
	va_list ap;

	if (deferring) {
		if (!deferred) {
			va_start(ap, fmt);
			if (vasprintf(&deferred, fmt, ap) < 0)
				deferred = strdup("out of memory");
			va_end(ap);
		}
		return 1;
	}

	/* Whatever failed, it failed on the zeros read where an input was
	 * cut short under us (core/io.c): that is the error. */
	if (cut) {
		io_input_cut_clear();
		return bundler_fail("'%s': file changed size while being read",
				    cut);
	}
	va_start(ap, fmt);
	report("error", fmt, ap);
	va_end(ap);
	return 1;
}

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning", fmt, ap);
	va_end(ap);
}

/* ---- configuration ---- */


/* The environment, read as LLVM's OffloadBundlerConfig reads it. */
static void read_env(struct config *c)
{
	const char *v;

	v = getenv("OFFLOAD_BUNDLER_IGNORE_ENV_VAR");
	if (v && !strcmp(v, "1"))
		return;
	if ((v = getenv("OFFLOAD_BUNDLER_VERBOSE")))
		c->verbose = !strcmp(v, "1");
	if ((v = getenv("OFFLOAD_BUNDLER_COMPRESS")))
		c->compress = !strcmp(v, "1");
	if ((v = getenv("OFFLOAD_BUNDLER_COMPRESSION_LEVEL"))) {
		/* LLVM's getAsInteger(10): an optional '-', digits, an int. */
		const char *d = v + (*v == '-');
		long long n = strtoll(v, NULL, 10);
		bool ok = *d && strspn(d, "0123456789") == strlen(d) &&
			  strlen(d) < 12 && n >= INT_MIN && n <= INT_MAX;

		if (!ok)
			fprintf(stderr, "Warning: Invalid value for "
				"OFFLOAD_BUNDLER_COMPRESSION_LEVEL: %s. "
				"Ignoring it.\n", v);
		else
			c->level = (int)n;
	}
	if ((v = getenv("COMPRESSED_BUNDLE_FORMAT_VERSION"))) {
		bool digits = *v && strspn(v, "0123456789") == strlen(v);
		unsigned long n = digits && strlen(v) < 8 ? strtoul(v, NULL, 10)
							 : 70000;

		if (!digits || n > 65535)
			fprintf(stderr, "Warning: Invalid value for "
				"COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Using "
				"default version 3.\n", v);
		else if (n != 2 && n != 3)
			fprintf(stderr, "Warning: Invalid value for "
				"COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Valid "
				"values are 2 or 3. Using default version 3.\n",
				v);
		else
			c->ccob_version = (unsigned)n;
	}
}

struct keyed_id {
	const char *key, *tid;
};

static int by_key_then_id(const void *a, const void *b)
{
	const struct keyed_id *x = a, *y = b;
	int k = strcmp(x->key, y->key);

	return k ? k : strcmp(x->tid, y->tid);
}

/* LLVM groups target IDs by "<kind>-<triple as spelled>" in a sorted map of
 * sorted sets, and reports the first conflicting pair of the first group. */
static int check_conflicts(char **key, char **tid, size_t n)
{
	struct keyed_id *all = calloc(n + 1, sizeof(*all));
	const char **ids = calloc(n + 1, sizeof(*ids));
	int rc = 0;

	if (!all || !ids) {
		free(all);
		free(ids);
		return bundler_fail("out of memory");
	}
	for (size_t i = 0; i < n; i++)
		all[i] = (struct keyed_id){ key[i], tid[i] };
	qsort(all, n, sizeof(*all), by_key_then_id);
	for (size_t i = 0; i < n && !rc;) {
		size_t j = i, m = 0, a, b;

		for (; j < n && !strcmp(all[j].key, all[i].key); j++)
			if (!m || strcmp(ids[m - 1], all[j].tid))
				ids[m++] = all[j].tid;
		/* An ID with a malformed feature is undefined behaviour in
		 * LLVM 22 (it crashes on some sets, accepts others): accept. */
		if (targetid_conflict(ids, m, &a, &b))
			rc = bundler_fail("Cannot bundle inputs with conflicting "
				  "targets: '%s-%s' and '%s-%s'", all[i].key,
				  ids[a], all[i].key, ids[b]);
		i = j;
	}
	free(all);
	free(ids);
	return rc;
}

/* Our own knobs for reading CCOBs (LLVM has none): how large a declared
 * uncompressed size is believed. */
static int ccob_limits_from_env(struct ccob_limits *lim)
{
	struct err e;

	if (env_positive_u64("OFFLOAD_CCOB_MAX_SIZE", &lim->max_size, &e) < 0 ||
	    env_positive_u64("OFFLOAD_CCOB_MAX_RATIO", &lim->max_ratio, &e) < 0)
		return -bundler_fail("%s", e.msg);
	return 0;
}

/* Validate -targets in order, as LLVM does, and standardise them. */
static int check_targets(struct config *c)
{
	struct strmap seen = { 0 };
	char **group_key = NULL, **group_tid = NULL;
	int host_count = 0, rc = 1;

	c->std_targets = calloc(c->ntargets + 1, sizeof(char *));
	group_key = calloc(c->ntargets + 1, sizeof(char *));
	group_tid = calloc(c->ntargets + 1, sizeof(char *));
	if (!c->std_targets || !group_key || !group_tid)
		goto nomem;
	c->host_index = -1;
	c->hip_only = true;
	for (size_t i = 0; i < c->ntargets; i++) {
		const char *raw = c->targets[i];
		struct target tg;
		bool kind_ok, triple_ok;

		if (strmap_find(&seen, raw, strlen(raw)) != seen.nb) {
			bundler_fail("Duplicate targets are not allowed");
			goto out;
		}
		if (strmap_set(&seen, raw, strlen(raw), i) < 0)
			goto nomem;
		if (target_parse(&tg, raw, strlen(raw)) < 0) {
			bundler_fail("Targets need to follow the format '<offload kind>-<target triple>', where '<target triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.");
			goto out;
		}
		kind_ok = target_kind_valid(&tg);
		triple_ok = target_triple_valid(&tg);
		if (!kind_ok || !triple_ok) {
			const char *k = kind_ok ? "" : "'";
			const char *t = triple_ok ? "" : "'";

			bundler_fail("invalid target '%s'%s%s%s%s%s%s", raw,
				     kind_ok ? "" : ", unknown offloading kind '",
				     kind_ok ? "" : tg.kind, k,
				     triple_ok ? "" : ", unknown target triple '",
				     triple_ok ? "" : tg.triple, t);
			target_free(&tg);
			goto out;
		}
		c->std_targets[i] = target_standard(&tg);
		/* Conflicts are looked for per "<kind>-<triple as spelled>". */
		group_key[i] = malloc(strlen(tg.kind) + strlen(tg.triple) + 2);
		group_tid[i] = strdup(tg.tid);
		if (!c->std_targets[i] || !group_key[i] || !group_tid[i]) {
			target_free(&tg);
			goto nomem;
		}
		sprintf(group_key[i], "%s-%s", tg.kind, tg.triple);
		if (target_is_host(&tg)) {
			host_count++;
			c->host_index = (long)i;
		}
		if (!target_is_hip(&tg))
			c->hip_only = false;
		target_free(&tg);
	}
	if (check_conflicts(group_key, group_tid, c->ntargets))
		goto out;
	if ((c->unbundle && host_count > 1) ||
	    (!c->unbundle && host_count != 1 && !c->hip_only)) {
		bundler_fail("expecting exactly one host target but got %d", host_count);
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	bundler_fail("out of memory");
out:
	for (size_t i = 0; i < c->ntargets; i++) {
		free(group_key ? group_key[i] : NULL);
		free(group_tid ? group_tid[i] : NULL);
	}
	free(group_key);
	free(group_tid);
	strmap_free(&seen);
	return rc;
}

/* ---- main ---- */

static void print_version(void)
{
	printf("offload clang-offload-bundler version %s (offload %s)\n",
	       LLVM_COMPAT_VERSION, OFFLOAD_VERSION);
}

static int run(struct config *c, struct clopt *o)
{
	if (o[O_INPUT].count && o[O_INPUTS].count)
		return bundler_fail("-inputs and -input cannot be used together, use "
			    "only -input instead");
	if (o[O_INPUTS].nlist)
		warn("-inputs is deprecated, use -input instead");
	if (o[O_OUTPUT].count && o[O_OUTPUTS].count)
		return bundler_fail("-outputs and -output cannot be used together, use "
			    "only -output instead");
	if (o[O_OUTPUTS].nlist)
		warn("-outputs is deprecated, use -output instead");

	if (o[O_LIST].b) {
		if (c->unbundle)
			return bundler_fail("-unbundle and -list cannot be used together");
		if (c->ninputs != 1)
			return bundler_fail("only one input file supported for -list");
		if (c->noutputs)
			return bundler_fail("-outputs option is invalid for -list");
		if (c->ntargets)
			return bundler_fail("-targets option is invalid for -list");
		return bundler_list(c);
	}
	if (o[O_CHECK_ARCHIVE].b) {
		if (!c->unbundle)
			return bundler_fail("-check-input-archive cannot be used while "
				    "bundling");
		if (strcmp(c->type, "a"))
			return bundler_fail("-check-input-archive can only be used for "
				    "unbundling archives (-type=a)");
	}
	if (!c->noutputs)
		return bundler_fail("no output file specified!");
	if (!o[O_TARGETS].count)
		return bundler_fail("for the --targets option: must be specified at "
			    "least once!");
	if (c->unbundle) {
		if (c->ninputs != 1)
			return bundler_fail("only one input file supported in "
				    "unbundling mode");
		if (c->noutputs != c->ntargets)
			return bundler_fail("number of output files and targets should "
				    "match in unbundling mode");
	} else {
		if (!strcmp(c->type, "a"))
			return bundler_fail("Archive files are only supported for "
				    "unbundling");
		if (c->noutputs != 1)
			return bundler_fail("only one output file supported in bundling "
				    "mode");
		if (c->ninputs != c->ntargets)
			return bundler_fail("number of input files and targets should "
				    "match in bundling mode");
	}
	if (check_targets(c))
		return 1;
	if (c->unbundle && !strcmp(c->type, "a"))
		return bundler_unbundle_archive(c);
	return c->unbundle ? bundler_unbundle(c) : bundler_bundle(c);
}

/* -inputs/-outputs lists come after -input/-output ones, as in LLVM. */
static const char **joined(const struct clopt *a, const struct clopt *b,
			   size_t *n)
{
	const char **all = calloc(a->nlist + b->nlist + 1, sizeof(*all));

	*n = 0;
	if (!all)
		return NULL;
	for (size_t i = 0; i < a->nlist; i++)
		all[(*n)++] = a->list[i];
	for (size_t i = 0; i < b->nlist; i++)
		all[(*n)++] = b->list[i];
	return all;
}

int bundler_main(int argc, char **argv)
{
	struct clopt o[O_COUNT];
	struct clopt_result res;
	struct config c = { 0 };
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1
						 : argv[0];
	int rc = 1;

	argv0 = argv[0];
	init_options(o);
	if (clopt_parse(o, O_COUNT, prog, argc, argv, &res) < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	if (o[O_COLOR].count)
		color = o[O_COLOR].b;
	fwrite(res.errors ? res.errors : "", 1, res.errors_len, stderr);
	if (res.action) {
		if (res.action == &o[O_VERSION])
			print_version();
		else
			print_help(res.action == &o[O_HELP] ? H :
				   res.action == &o[O_HELP_HIDDEN] ? HH :
				   res.action == &o[O_HELP_LIST] ? L : LH);
		rc = 0;
		goto out;
	}
	if (res.failed)
		goto out;
	if (o[O_H].b) {
		print_help(L);
		rc = 0;
		goto out;
	}

	c.level = 3;
	c.ccob_version = 3;
	c.limits = (struct ccob_limits){ .max_ratio = CCOB_DEFAULT_MAX_RATIO,
					 .max_size = CCOB_DEFAULT_MAX_SIZE };
	read_env(&c);
	if (ccob_limits_from_env(&c.limits) < 0) {
		rc = 1;
		goto out;
	}
	if (o[O_LEVEL].count)
		c.level = (int)o[O_LEVEL].i;
	if (o[O_COMPRESS].count)
		c.compress = o[O_COMPRESS].b;
	if (o[O_VERBOSE].count)
		c.verbose = o[O_VERBOSE].b;
	c.type = o[O_TYPE].s;
	c.unbundle = o[O_UNBUNDLE].b;
	c.print_cmds = o[O_PRINT_CMDS].b;
	c.check_archive = o[O_CHECK_ARCHIVE].b;
	c.argv0 = argv[0];
	c.allow_missing = o[O_ALLOW_MISSING].b;
	c.hip_openmp = o[O_HIP_OPENMP].b;
	c.align = o[O_ALIGN].u;
	c.inputs = joined(&o[O_INPUT], &o[O_INPUTS], &c.ninputs);
	c.outputs = joined(&o[O_OUTPUT], &o[O_OUTPUTS], &c.noutputs);
	c.targets = o[O_TARGETS].list;
	c.ntargets = o[O_TARGETS].nlist;
	if (!c.inputs || !c.outputs)
		rc = bundler_fail("out of memory");
	else
		rc = run(&c, o);
out:
	for (size_t i = 0; c.std_targets && i < c.ntargets; i++)
		free(c.std_targets[i]);
	free(c.std_targets);
	free(c.inputs);
	free(c.outputs);
	clopt_free(o, O_COUNT);
	clopt_result_free(&res);
	return rc;
}
