/* bundler: clang-offload-bundler, drop-in exact for LLVM 22. */
#include <limits.h>
#include <stdarg.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applets.h"
#include "write_ccob.h"
#include "../core/clopt.h"
#include "../core/env.h"
#include "../core/io.h"
#include "../core/strmap.h"
#include "../core/target.h"
#include "../core/targetid.h"
#include "../formats/bundle.h"
#include "../formats/ccob.h"
#include "../formats/magic.h"

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
enum { H = 1, HH = 2, L = 4, LH = 8, ALL = H | HH | L | LH };

static const struct help_line {
	const char *text;
	int generic;
	int show;
} help_lines[] = {
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
	if (which & (L | LH)) {
		for (size_t i = 0; i < n; i++)
			if (help_lines[i].show & which)
				fputs(help_lines[i].text, stdout);
		return;
	}
	fputs("\nGeneric Options:\n\n", stdout);
	for (size_t i = 0; i < n; i++)
		if (help_lines[i].generic && (help_lines[i].show & which))
			fputs(help_lines[i].text, stdout);
	fputs("\nclang-offload-bundler options:\n\n", stdout);
	for (size_t i = 0; i < n; i++)
		if (!help_lines[i].generic && (help_lines[i].show & which))
			fputs(help_lines[i].text, stdout);
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

static void report(const char *kind, const char *color, const char *fmt,
		   va_list ap)
{
	bool tty = isatty(2);

	fprintf(stderr, "%s: %s%s:%s ", argv0, tty ? color : "", kind,
		tty ? "\033[0m" : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("error", "\033[0;1;31m", fmt, ap);
	va_end(ap);
	return 1;
}

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning", "\033[0;1;35m", fmt, ap);
	va_end(ap);
}

/* ---- configuration ---- */

struct config {
	const char *type;
	const char **inputs, **outputs, **targets;
	size_t ninputs, noutputs, ntargets;
	char **std_targets;	/* standardised, as written and matched */
	long host_index;	/* last host target, -1 if none */
	bool hip_only, unbundle, allow_missing, hip_openmp, compress, verbose;
	unsigned long long align;
	int level;			/* compression level */
	unsigned ccob_version;		/* CCOB version written */
	struct ccob_limits limits;	/* for reading CCOBs */
};

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
		return fail("out of memory");
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
			rc = fail("Cannot bundle inputs with conflicting "
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
		return -fail("%s", e.msg);
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
			fail("Duplicate targets are not allowed");
			goto out;
		}
		if (strmap_set(&seen, raw, strlen(raw), i) < 0)
			goto nomem;
		if (target_parse(&tg, raw, strlen(raw)) < 0) {
			fail("Targets need to follow the format '<offload kind>-<target triple>', where '<target triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.");
			goto out;
		}
		kind_ok = target_kind_valid(&tg);
		triple_ok = target_triple_valid(&tg);
		if (!kind_ok || !triple_ok) {
			fprintf(stderr, "%s: %serror:%s invalid target '%s'",
				argv0, isatty(2) ? "\033[0;1;31m" : "",
				isatty(2) ? "\033[0m" : "", raw);
			if (!kind_ok)
				fprintf(stderr, ", unknown offloading kind '%s'",
					tg.kind);
			if (!triple_ok)
				fprintf(stderr, ", unknown target triple '%s'",
					tg.triple);
			fputc('\n', stderr);
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
		fail("expecting exactly one host target but got %d", host_count);
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	fail("out of memory");
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

/* ---- the three jobs ---- */

enum handler { H_TEXT, H_BINARY, H_OBJECT, H_INVALID };

/* LLVM picks the layout from -type, and for o and a from the reference
 * input: an object file gets object bundles, anything else binary ones. */
static enum handler pick_handler(const char *type, const struct io_in *ref,
				 const char **comment)
{
	static const struct { const char *type, *comment; } text[] = {
		{ "i", "//" }, { "ii", "//" }, { "cui", "//" },
		{ "hipi", "//" }, { "d", "#" }, { "ll", ";" }, { "s", "#" },
	};

	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		if (!strcmp(type, text[i].type)) {
			*comment = text[i].comment;
			return H_TEXT;
		}
	if (!strcmp(type, "bc") || !strcmp(type, "gch") || !strcmp(type, "ast"))
		return H_BINARY;
	if (!strcmp(type, "o") || !strcmp(type, "a"))
		return magic_is_object(ref->data, ref->len) ? H_OBJECT : H_BINARY;
	return H_INVALID;
}

static int handler_error(enum handler h, const char *type, const char *path)
{
	if (h == H_INVALID)
		return fail("'%s': invalid file type specified", type);
	return fail("'%s': object bundles (-type=%s with an object file) are "
		    "not supported yet", path, type);
}

/* What --list and --unbundle read: the input itself, or the bundles its
 * CCOBs hold, one after the other (LLVM 22 reads only a lone CCOB). */
struct source {
	const struct config *c;
	struct io_in file;
	struct io_in seg;	/* the bundle now read: file's bytes or a copy */
	size_t pos;		/* where the next CCOB starts in file */
	unsigned method;	/* of the last CCOB */
	int nseg;
	bool compressed;
};

static int decompress_next(struct source *s, const char *path)
{
	const uint8_t *at = s->file.data + s->pos;
	size_t left = s->file.len - s->pos, used;
	struct ccob_header h;
	struct ccob_stats st = { 0 };
	struct timespec t0, t1;
	uint8_t *raw;
	struct err e;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ccob_parse_header(at, left, &h, &e) < 0)
		return fail("Failed to decompress input: %s", e.msg);
	if (ccob_decompress(at, left, &h, &s->c->limits, &raw, &used, &e) < 0) {
		/* LLVM's own messages keep LLVM's form; ours name the file. */
		if (!strncmp(e.msg, "Could not", 9))
			return fail("Failed to decompress input: %s", e.msg);
		return fail("'%s': Failed to decompress input: %s", path, e.msg);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->pos += used;
	s->method = h.method;
	io_in_close(&s->seg);
	s->seg.data = s->seg.heap = raw;
	s->seg.len = (size_t)h.raw_size;
	st = (struct ccob_stats){
		.version = h.version, .method = h.method,
		.total_size = h.total_size, .raw_size = h.raw_size,
		/* LLVM counts every byte after the header; so do we unless
		 * another CCOB follows. */
		.compressed_size = (used < left && ccob_is(at + used, left - used)
				    ? used : left) - h.header_size,
		.stored_hash = h.hash,
		.computed_hash = ccob_hash(raw, s->seg.len),
		.seconds = (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	};
	if (s->c->verbose) {
		char report[1024];

		ccob_report_decompress(report, sizeof(report), &st);
		fputs(report, stderr);
	}
	/* LLVM never checks the hash; a mismatch means a damaged file. */
	if (st.stored_hash != st.computed_hash)
		return fail("'%s': compressed bundle hash mismatch: stored "
			    "0x%016llx, computed 0x%016llx", path,
			    (unsigned long long)st.stored_hash,
			    (unsigned long long)st.computed_hash);
	return 0;
}

static int source_open(const struct config *c, struct source *s)
{
	struct err e;

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->file.fd = s->seg.fd = -1;
	if (io_in_open(&s->file, c->inputs[0], &e) < 0)
		return fail("%s", e.msg);
	/* Fewer than 8 bytes are never a CCOB, as in LLVM. */
	s->compressed = s->file.len >= 8 && ccob_is(s->file.data, s->file.len);
	return 0;
}

/* Open the next bundle for reading: 1 when r is ready, 0 at the end. */
static int source_next(struct source *s, struct bundle_reader *r)
{
	const struct config *c = s->c;
	const char *path = c->inputs[0], *comment = NULL;
	enum handler h;
	struct err e;

	bundle_close(r);
	if (!s->compressed) {
		if (s->nseg++)
			return 0;
		/* A borrowed view: source_close frees only a heap copy. */
		s->seg = s->file;
		s->seg.map = NULL;
		s->seg.heap = NULL;
		if (c->verbose && s->file.len >= 8)
			fputs("Uncompressed bundle.\n", stderr);
	} else {
		size_t left = s->file.len - s->pos;

		if (s->nseg && !left)
			return 0;
		if (s->nseg && !ccob_is(s->file.data + s->pos, left)) {
			/* Bytes after the last CCOB: zlib ignores them, zstd
			 * does not (LLVM's own message). */
			if (s->method == CCOB_ZLIB)
				return 0;
			return -fail("Failed to decompress input: Could not "
				     "decompress embedded file contents: Src size "
				     "is incorrect");
		}
		if (decompress_next(s, path))
			return -1;
		s->nseg++;
	}
	h = pick_handler(c->type, &s->seg, &comment);
	if (h == H_TEXT) {
		bundle_open_text(r, comment, s->seg.data, s->seg.len);
		return 1;
	}
	if (h != H_BINARY)
		return -handler_error(h, c->type, path);
	if (bundle_open_binary(r, s->seg.data, s->seg.len, &e) < 0)
		return -fail("'%s': %s", path, e.msg);
	return 1;
}

static void source_close(struct source *s)
{
	if (!s->c)
		return;
	if (s->seg.heap)
		io_in_close(&s->seg);
	io_in_close(&s->file);
}

/* IDs are printed only once the whole input has been read, so a damaged
 * later CCOB does not leave half a list on stdout. */
static int do_list(const struct config *c)
{
	struct source src = { 0 };
	struct bundle_reader r = { 0 };
	struct bundle_entry ent;
	char *text = NULL;
	size_t text_len = 0;
	FILE *list = open_memstream(&text, &text_len);
	int rc = list ? source_open(c, &src) : fail("out of memory"), more = 0;

	while (!rc && (more = source_next(&src, &r)) == 1) {
		while (bundle_next(&r, &ent) == 1) {
			fwrite(ent.id, 1, ent.id_len, list);
			putc('\n', list);
			bundle_skip(&r);
		}
	}
	if (!rc && more < 0)
		rc = 1;
	if (list && fclose(list) == 0 && !rc)
		fwrite(text, 1, text_len, stdout);
	free(text);
	bundle_close(&r);
	source_close(&src);
	return rc;
}

static int emit_plan(const struct bundle_plan *plan, struct io_in *inputs,
		     struct io_out *out)
{
	struct err e;

	for (size_t i = 0; i < plan->n; i++) {
		const struct bundle_piece *p = &plan->piece[i];

		if (io_out_write(out, p->lit, p->lit_len, &e) < 0 ||
		    io_out_zeros(out, p->pad, &e) < 0 ||
		    (p->input >= 0 &&
		     io_out_copy(out, &inputs[p->input], 0,
				 inputs[p->input].len, &e) < 0))
			return fail("%s", e.msg);
	}
	return 0;
}

/* The bundle as one CCOB, and LLVM's report of it under -verbose. */
static int emit_compressed(const struct config *c,
			   const struct bundle_plan *plan,
			   const struct io_in *inputs, struct io_out *out)
{
	struct io_out scratch = { .fd = -1 };
	struct io_in whole;
	struct ccob_stats st;
	struct err e;

	if (write_ccob_gather(plan, inputs, &scratch, &whole, &e) < 0 ||
	    write_ccob(&whole, out, c->ccob_version, CCOB_ZSTD, c->level, &st,
		       &e) < 0) {
		io_out_discard(&scratch);
		return fail("%s", e.msg);
	}
	io_out_discard(&scratch);
	if (c->verbose) {
		char report[1024];

		ccob_report_compress(report, sizeof(report), &st);
		fputs(report, stderr);
	}
	return 0;
}

static int do_bundle(const struct config *c)
{
	struct io_in *inputs = calloc(c->ninputs + 1, sizeof(*inputs));
	uint64_t *sizes = calloc(c->ninputs + 1, sizeof(*sizes));
	struct bundle_plan plan = { 0 };
	struct io_out out = { .fd = -1 };
	const char *comment = NULL;
	enum handler h;
	struct err e;
	size_t opened = 0;
	int rc = 1;

	if (!inputs || !sizes) {
		fail("out of memory");
		goto out;
	}
	for (; opened < c->ninputs; opened++) {
		if (io_in_open(&inputs[opened], c->inputs[opened], &e) < 0) {
			fail("%s", e.msg);
			goto out;
		}
		sizes[opened] = inputs[opened].len;
	}
	h = pick_handler(c->type, &inputs[c->hip_only ? 0 : c->host_index],
			 &comment);
	if (h != H_TEXT && h != H_BINARY) {
		handler_error(h, c->type,
			      c->inputs[c->hip_only ? 0 : c->host_index]);
		goto out;
	}
	if (h == H_BINARY && !c->align) {
		fail("invalid -bundle-align=0: the alignment must be at least 1");
		goto out;
	}
	if ((h == H_TEXT ? bundle_plan_text(comment,
					    (const char *const *)c->std_targets,
					    sizes, c->ntargets, &plan, &e)
			 : bundle_plan_binary((const char *const *)c->std_targets,
					      sizes, c->ntargets, c->align,
					      &plan, &e)) < 0) {
		fail("%s", e.msg);
		goto out;
	}
	if (io_out_open(&out, c->outputs[0], &e) < 0) {
		fail("%s", e.msg);
		goto out;
	}
	if (c->compress ? emit_compressed(c, &plan, inputs, &out)
			: emit_plan(&plan, inputs, &out))
		goto out;
	if (io_out_commit(&out, &e) < 0) {
		fail("%s", e.msg);
		goto out;
	}
	rc = 0;
out:
	io_out_discard(&out);
	bundle_plan_free(&plan);
	for (size_t i = 0; i < opened; i++)
		io_in_close(&inputs[i]);
	free(inputs);
	free(sizes);
	return rc;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "Can't find bundles for A", "A and B", "A, B, and C": sorted names. */
static void missing_error(const struct strmap *work)
{
	const char **names = calloc(work->items + 1, sizeof(*names));
	size_t n = 0, len = 64;
	char *msg;

	if (!names) {
		fail("out of memory");
		return;
	}
	for (uint32_t b = strmap_next(work, 0); b < work->nb;
	     b = strmap_next(work, b + 1)) {
		names[n++] = work->b[b].key;
		len += work->b[b].len + 8;
	}
	qsort(names, n, sizeof(*names), by_string);
	msg = malloc(len);
	if (msg) {
		strcpy(msg, "Can't find bundles for");
		for (size_t i = 0; i < n; i++) {
			if (i && n > 2)
				strcat(msg, ",");
			strcat(msg, " ");
			if (i && i == n - 1)
				strcat(msg, "and ");
			strcat(msg, names[i]);
		}
		fail("%s", msg);
	} else {
		fail("out of memory");
	}
	free(msg);
	free(names);
}

/* Outputs are opened as LLVM opens them, and all renamed into place only
 * when the whole unbundle succeeds. */
struct outset {
	struct io_out *out;
	size_t *order, n;
};

static struct io_out *outset_open(struct outset *s, const struct config *c,
				  size_t k)
{
	struct err e;

	if (io_out_open(&s->out[k], c->outputs[k], &e) < 0) {
		fail("%s", e.msg);
		return NULL;
	}
	s->order[s->n++] = k;
	return &s->out[k];
}

static int outset_commit(struct outset *s)
{
	struct err e;

	for (size_t i = 0; i < s->n; i++)
		if (io_out_commit(&s->out[s->order[i]], &e) < 0)
			return fail("%s", e.msg);
	return 0;
}

/* The next entry of the input, moving on to the next bundle as each ends:
 * 1 found, 0 no more, -1 error (reported). */
static int next_entry(struct source *src, struct bundle_reader *r,
		      struct bundle_entry *ent)
{
	for (;;) {
		int more;

		if (src->nseg && bundle_next(r, ent) == 1)
			return 1;
		more = source_next(src, r);
		if (more <= 0)
			return more;
	}
}

static int do_unbundle(const struct config *c)
{
	struct source src = { 0 };
	struct bundle_reader r = { 0 };
	struct strmap work = { 0 };
	struct target *req = calloc(c->ntargets + 1, sizeof(*req));
	struct outset outs = {
		calloc(c->ntargets + 1, sizeof(struct io_out)),
		calloc(c->ntargets + 1, sizeof(size_t)), 0
	};
	bool found_host = false;
	int more = 1;
	struct bundle_entry ent;
	struct err e;
	int rc = 1;

	if (!req || !outs.out || !outs.order) {
		fail("out of memory");
		goto out;
	}
	if (source_open(c, &src))
		goto out;
	for (size_t i = 0; i < c->ntargets; i++) {
		const char *t = c->std_targets[i];

		if (target_parse(&req[i], t, strlen(t)) < 0 ||
		    strmap_set(&work, t, strlen(t), i) < 0) {
			fail("invalid bundle id from bundle config");
			goto out;
		}
	}

	while (work.items && (more = next_entry(&src, &r, &ent)) == 1) {
		struct target got;
		bool is_host;
		uint32_t b;
		uint64_t off, size;
		struct io_out *o;

		if (target_parse(&got, ent.id, ent.id_len) < 0) {
			fail("invalid bundle id read from the bundle");
			goto out;
		}
		for (b = strmap_next(&work, 0); b < work.nb;
		     b = strmap_next(&work, b + 1))
			if (target_compatible(&got, &req[work.b[b].value],
					      c->hip_openmp))
				break;
		if (b == work.nb) {
			target_free(&got);
			continue;
		}
		is_host = target_is_host(&got);
		target_free(&got);
		o = outset_open(&outs, c, work.b[b].value);
		if (!o)
			goto out;
		if (bundle_content(&r, &off, &size, &e) < 0) {
			fail("'%s': %s", c->inputs[0], e.msg);
			goto out;
		}
		if (io_out_copy(o, &src.seg, off, size, &e) < 0) {
			fail("%s", e.msg);
			goto out;
		}
		strmap_erase(&work, b);
		found_host |= is_host;
	}

	if (more < 0)
		goto out;
	if (!c->allow_missing && work.items) {
		missing_error(&work);
		goto out;
	}
	if (work.items == c->ntargets) {
		/* Nothing found: the input is taken to be the host's. */
		for (uint32_t b = strmap_next(&work, 0); b < work.nb;
		     b = strmap_next(&work, b + 1)) {
			size_t k = work.b[b].value;
			struct io_out *o = outset_open(&outs, c, k);

			if (!o)
				goto out;
			if (target_is_host(&req[k]) &&
			    io_out_copy(o, &src.seg, 0, src.seg.len, &e) < 0) {
				fail("%s", e.msg);
				goto out;
			}
		}
	} else {
		if (!found_host && c->host_index >= 0 && !c->allow_missing) {
			fail("Can't find bundle for the host target");
			goto out;
		}
		for (uint32_t b = strmap_next(&work, 0); b < work.nb;
		     b = strmap_next(&work, b + 1))
			if (!outset_open(&outs, c, work.b[b].value))
				goto out;
	}
	rc = outset_commit(&outs);
out:
	for (size_t i = 0; outs.out && i < c->ntargets; i++)
		io_out_discard(&outs.out[i]);
	for (size_t i = 0; req && i < c->ntargets; i++)
		target_free(&req[i]);
	free(req);
	free(outs.out);
	free(outs.order);
	strmap_free(&work);
	bundle_close(&r);
	source_close(&src);
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
		return fail("-inputs and -input cannot be used together, use "
			    "only -input instead");
	if (o[O_INPUTS].nlist)
		warn("-inputs is deprecated, use -input instead");
	if (o[O_OUTPUT].count && o[O_OUTPUTS].count)
		return fail("-outputs and -output cannot be used together, use "
			    "only -output instead");
	if (o[O_OUTPUTS].nlist)
		warn("-outputs is deprecated, use -output instead");

	if (o[O_LIST].b) {
		if (c->unbundle)
			return fail("-unbundle and -list cannot be used together");
		if (c->ninputs != 1)
			return fail("only one input file supported for -list");
		if (c->noutputs)
			return fail("-outputs option is invalid for -list");
		if (c->ntargets)
			return fail("-targets option is invalid for -list");
		return do_list(c);
	}
	if (o[O_CHECK_ARCHIVE].b) {
		if (!c->unbundle)
			return fail("-check-input-archive cannot be used while "
				    "bundling");
		if (strcmp(c->type, "a"))
			return fail("-check-input-archive can only be used for "
				    "unbundling archives (-type=a)");
	}
	if (!c->noutputs)
		return fail("no output file specified!");
	if (!o[O_TARGETS].count)
		return fail("for the --targets option: must be specified at "
			    "least once!");
	if (c->unbundle) {
		if (c->ninputs != 1)
			return fail("only one input file supported in "
				    "unbundling mode");
		if (c->noutputs != c->ntargets)
			return fail("number of output files and targets should "
				    "match in unbundling mode");
	} else {
		if (!strcmp(c->type, "a"))
			return fail("Archive files are only supported for "
				    "unbundling");
		if (c->noutputs != 1)
			return fail("only one output file supported in bundling "
				    "mode");
		if (c->ninputs != c->ntargets)
			return fail("number of input files and targets should "
				    "match in bundling mode");
	}
	if (check_targets(c))
		return 1;
	if (c->unbundle && !strcmp(c->type, "a"))
		return fail("'%s': unbundling archives (-type=a) is not "
			    "supported yet", c->inputs[0]);
	return c->unbundle ? do_unbundle(c) : do_bundle(c);
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
	c.limits = (struct ccob_limits){ CCOB_DEFAULT_MAX_RATIO,
					 CCOB_DEFAULT_MAX_SIZE };
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
	c.allow_missing = o[O_ALLOW_MISSING].b;
	c.hip_openmp = o[O_HIP_OPENMP].b;
	c.align = o[O_ALIGN].u;
	c.inputs = joined(&o[O_INPUT], &o[O_INPUTS], &c.ninputs);
	c.outputs = joined(&o[O_OUTPUT], &o[O_OUTPUTS], &c.noutputs);
	c.targets = o[O_TARGETS].list;
	c.ntargets = o[O_TARGETS].nlist;
	if (!c.inputs || !c.outputs)
		rc = fail("out of memory");
	else
		rc = run(&c, o);
out:
	fflush(stdout);
	if (ferror(stdout) && !rc)
		rc = fail("error writing to standard output");
	for (size_t i = 0; c.std_targets && i < c.ntargets; i++)
		free(c.std_targets[i]);
	free(c.std_targets);
	free(c.inputs);
	free(c.outputs);
	clopt_free(o, O_COUNT);
	clopt_result_free(&res);
	return rc;
}
