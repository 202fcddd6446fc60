/* bundler: clang-offload-bundler, drop-in exact for LLVM 22. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applets.h"
#include "llvmtool.h"
#include "bundler_archive.h"
#include "bundler_config.h"
#include "bundler_jobs.h"
#include "bundler_read.h"
#include "../core/clopt.h"
#include "../core/env.h"
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

/* The options, in the order LLVM's option map iterates them: that order
 * breaks ties between equally close "Did you mean" suggestions.  It was
 * measured from LLVM 22's suggestions, since it depends on every option
 * libLLVM registers, not just these. */
enum {
	O_HELP, O_LIST, O_CHECK_ARCHIVE, O_HELP_HIDDEN, O_OUTPUT, O_UNBUNDLE,
	O_VERSION, O_PRINT_CMDS, O_LEVEL, O_HELP_LIST, O_ALLOW_MISSING, O_TYPE,
	O_HELP_LIST_HIDDEN, O_INPUTS, O_TARGETS, O_VERBOSE, O_PRINT_OPTIONS,
	O_OUTPUTS, O_INPUT, O_ALIGN, O_HIP_OPENMP, O_PRINT_ALL_OPTIONS,
	O_COMPRESS, O_TAIL, O_COUNT = O_TAIL + LLVM_TAIL_COUNT
};

/* The tool's own options, a row each: how LLVM's cl parses it and what
 * its help listings say (in LLVM's words, listed by name). */
static void init_options(const struct llvm_tool *t)
{
	static const struct { int at; struct clopt o; } own[] = {
		{ O_TYPE, { .name = "type", .type = CLOPT_STRING, .flags = CLOPT_REQUIRED,
		  .value_desc = "<string>", .desc = "Type of the files to be bundled/unbundled.\n"
		  "Current supported types are:\n"
		  "  i    - cpp-output\n"
		  "  ii   - c++-cpp-output\n"
		  "  cui  - cuda-cpp-output\n"
		  "  hipi - hip-cpp-output\n"
		  "  d    - dependency\n"
		  "  ll   - llvm\n"
		  "  bc   - llvm-bc\n"
		  "  s    - assembler\n"
		  "  o    - object\n"
		  "  a    - archive of objects\n"
		  "  gch  - precompiled-header\n"
		  "  ast  - clang AST file" } },
		{ O_INPUT, { .name = "input", .type = CLOPT_LIST, .value_desc = "<string>",
		  .desc = "Input file. Can be specified multiple times for multiple input files." } },
		{ O_INPUTS, { .name = "inputs", .type = CLOPT_LIST, .flags = CLOPT_COMMA,
		  .value_desc = "<string>", .desc = "[<input file>,...] (deprecated)" } },
		{ O_OUTPUT, { .name = "output", .type = CLOPT_LIST, .value_desc = "<string>",
		  .desc = "Output file. Can be specified multiple times for multiple output files." } },
		{ O_OUTPUTS, { .name = "outputs", .type = CLOPT_LIST, .flags = CLOPT_COMMA,
		  .value_desc = "<string>", .desc = "[<output file>,...] (deprecated)" } },
		{ O_TARGETS, { .name = "targets", .type = CLOPT_LIST, .flags = CLOPT_COMMA,
		  .value_desc = "<string>", .desc = "[<offload kind>-<target triple>,...]" } },
		{ O_UNBUNDLE, { .name = "unbundle", .type = CLOPT_BOOL,
		  .desc = "Unbundle bundled file into several output files." } },
		{ O_LIST, { .name = "list", .type = CLOPT_BOOL,
		  .desc = "List bundle IDs in the bundled file." } },
		{ O_PRINT_CMDS, { .name = "###", .type = CLOPT_BOOL,
		  .desc = "Print any external commands that are to be executed instead of actually executing them - for testing purposes." } },
		{ O_ALLOW_MISSING, { .name = "allow-missing-bundles", .type = CLOPT_BOOL,
		  .desc = "Create empty files if bundles are missing when unbundling." } },
		{ O_ALIGN, { .name = "bundle-align", .type = CLOPT_UINT, .u = 1,
		  .value_desc = "<uint>", .desc = "Alignment of bundle for binary files" } },
		{ O_CHECK_ARCHIVE, { .name = "check-input-archive", .type = CLOPT_BOOL,
		  .desc = "Check if input heterogeneous archive is valid in terms of TargetID rules." } },
		{ O_HIP_OPENMP, { .name = "hip-openmp-compatible", .type = CLOPT_BOOL,
		  .desc = "Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa." } },
		{ O_COMPRESS, { .name = "compress", .type = CLOPT_BOOL,
		  .desc = "Compress output file when bundling." } },
		{ O_VERBOSE, { .name = "verbose", .type = CLOPT_BOOL,
		  .desc = "Print debug information." } },
		{ O_LEVEL, { .name = "compression-level", .type = CLOPT_INT,
		  .value_desc = "<n>", .desc = "Specify the compression level (integer)" } },
	};

	memset(t->o, 0, t->n * sizeof(*t->o));
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		t->o[own[i].at] = own[i].o;
	llvm_generic_options(t);
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
		return llvm_fail("out of memory");
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
			rc = llvm_fail("Cannot bundle inputs with conflicting "
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
		return -llvm_fail("%s", e.msg);
	return 0;
}

/* Validate -targets in order, as LLVM does, and standardise them. */
static int check_targets(struct config *c)
{
	struct strmap seen = { 0 };
	struct err e;
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
			llvm_fail("Duplicate targets are not allowed");
			goto out;
		}
		if (strmap_set(&seen, raw, strlen(raw), i) < 0)
			goto nomem;
		if (target_parse(&tg, raw, strlen(raw), c->llvm) < 0) {
			llvm_fail("Targets need to follow the format '<offload kind>-<target triple>', where '<target triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.");
			goto out;
		}
		kind_ok = target_kind_valid(&tg);
		triple_ok = target_triple_valid(&tg);
		if (!kind_ok || !triple_ok) {
			const char *k = kind_ok ? "" : "'";
			const char *t = triple_ok ? "" : "'";

			llvm_fail("invalid target '%s'%s%s%s%s%s%s", raw,
				     kind_ok ? "" : ", unknown offloading kind '",
				     kind_ok ? "" : tg.kind, k,
				     triple_ok ? "" : ", unknown target triple '",
				     triple_ok ? "" : tg.triple, t);
			target_free(&tg);
			goto out;
		}
		c->std_targets[i] = target_standard(&tg, &e);
		if (!c->std_targets[i] && e.code == ERR_FATAL) {
			/* LLVM's report_fatal_error: its line, exit 1. */
			fprintf(stderr, "LLVM ERROR: %s\n", e.why);
			target_free(&tg);
			goto out;
		}
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
		llvm_fail("expecting exactly one host target but got %d", host_count);
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	llvm_fail("out of memory");
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

static int run(struct config *c, struct clopt *o)
{
	if (o[O_INPUT].count && o[O_INPUTS].count)
		return llvm_fail("-inputs and -input cannot be used together, use "
			    "only -input instead");
	if (o[O_INPUTS].nlist)
		llvm_warn("-inputs is deprecated, use -input instead");
	if (o[O_OUTPUT].count && o[O_OUTPUTS].count)
		return llvm_fail("-outputs and -output cannot be used together, use "
			    "only -output instead");
	if (o[O_OUTPUTS].nlist)
		llvm_warn("-outputs is deprecated, use -output instead");

	if (o[O_LIST].b) {
		if (c->unbundle)
			return llvm_fail("-unbundle and -list cannot be used together");
		if (c->ninputs != 1)
			return llvm_fail("only one input file supported for -list");
		if (c->noutputs)
			return llvm_fail("-outputs option is invalid for -list");
		if (c->ntargets)
			return llvm_fail("-targets option is invalid for -list");
		return bundler_list(c);
	}
	if (o[O_CHECK_ARCHIVE].b) {
		if (!c->unbundle)
			return llvm_fail("-check-input-archive cannot be used while "
				    "bundling");
		if (strcmp(c->type, "a"))
			return llvm_fail("-check-input-archive can only be used for "
				    "unbundling archives (-type=a)");
	}
	if (!c->noutputs)
		return llvm_fail("no output file specified!");
	if (!o[O_TARGETS].count)
		return llvm_fail("for the --targets option: must be specified at "
			    "least once!");
	if (c->unbundle) {
		if (c->ninputs != 1)
			return llvm_fail("only one input file supported in "
				    "unbundling mode");
		if (c->noutputs != c->ntargets)
			return llvm_fail("number of output files and targets should "
				    "match in unbundling mode");
	} else {
		if (!strcmp(c->type, "a"))
			return llvm_fail("Archive files are only supported for "
				    "unbundling");
		if (c->noutputs != 1)
			return llvm_fail("only one output file supported in bundling "
				    "mode");
		if (c->ninputs != c->ntargets)
			return llvm_fail("number of input files and targets should "
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

int bundler_main(int argc, char **argv, enum llvm_release llvm)
{
	struct clopt o[O_COUNT];
	struct llvm_tool t = {
		.name = "clang-offload-bundler", .overview = overview,
		.o = o, .n = O_COUNT, .release = llvm,
	};
	struct clopt_result res;
	struct config c = { .llvm = llvm };
	int rc;

	init_options(&t);
	/* LLVM 23's StringMap probes linearly: its maps' orders are ours. */
	strmap_linear_probing(llvm >= LLVM_23);
	rc = llvm_tool_parse(&t, argc, argv, &res);
	if (rc >= 0)
		goto out;
	if (o[O_TAIL + LLVM_TAIL_H].b) {
		llvm_tool_help(&t, llvm_path_filename(argv[0]), L);
		rc = 0;
		goto out;
	}

	c.level = 3;
	c.ccob_version = 3;
	c.limits = (struct ccob_limits){ .max_ratio = CCOB_DEFAULT_MAX_RATIO,
					 .max_size = CCOB_DEFAULT_MAX_SIZE,
					 .uncompress_words =
						 llvm < LLVM_23 };
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
		rc = llvm_fail("out of memory");
	else
		rc = run(&c, o);
	/* LLVM 23 reports its timers (-verbose's) at exit. */
	llvm_timers_print("Timer group for offload bundler");
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
