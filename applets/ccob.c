/* ccob: compress files into compressed offload bundles (CCOB), decompress
 * them, or describe them, with the options zstd and gzip users know. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applets.h"
#include "messages.h"
#include "opts.h"
#include "progress.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/io_scratch.h"
#include "../ops/ccob_write.h"
#include "../ops/inspect.h"
#include "../formats/ccob_decode.h"
#include "../ops/ccob_read.h"

static const char usage[] =
	"Usage: offload ccob [-d|-l] [OPTIONS] [FILE]...\n"
	"Compress each FILE into a compressed offload bundle (CCOB) as LLVM's\n"
	"clang-offload-bundler --compress does, decompress CCOBs, or describe them.\n"
	"With no FILE, or when FILE is -, read standard input.\n"
	"\n";

enum mode { COMPRESS, DECOMPRESS, LIST };

struct options {
	enum mode mode;
	const char *output;
	bool to_stdout, quiet;
	bool level_set;
	int level;
	unsigned method, version;
	struct ccob_limits limits;
};

#define fail(what, file, ...) applet_fail("ccob", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("ccob", __VA_ARGS__)

/* ---- the jobs ---- */

/* Where a job's output goes: -o, -c, or a name made from the input. */
static char *output_name(const struct options *o, const char *in)
{
	size_t n = strlen(in);

	if (o->output)
		return strdup(o->output);
	if (o->to_stdout || !strcmp(in, "-"))
		return strdup("-");
	if (o->mode == COMPRESS) {
		char *out = malloc(n + 6);

		if (out)
			snprintf(out, n + 6, "%s.ccob", in);
		return out;
	}
	if (n > 5 && !strcmp(in + n - 5, ".ccob"))
		return strndup(in, n - 5);
	return NULL;
}

/* One rule for every applet that writes files: an existing output is
 * replaced (atomically), never an input. */
static int open_output(const char *in, const char *name, struct io_out *out)
{
	struct stat st_out, st_in;
	struct err e;

	if (strcmp(name, "-") && stat(name, &st_out) == 0 &&
	    S_ISREG(st_out.st_mode)) {
		if (strcmp(in, "-") && stat(in, &st_in) == 0 &&
		    st_in.st_dev == st_out.st_dev && st_in.st_ino == st_out.st_ino)
			return fail("cannot write", name, "it is the input");
	}
	if (io_out_open_replace(out, name, &e) < 0)
		return applet_fail_err("ccob", "cannot write", name, 1, &e);
	return 0;
}

static int compress_one(const struct options *o, const char *in_name,
			const struct io_in *in, const char *name)
{
	struct io_out out = { .fd = -1 };
	struct ccob_stats st;
	struct err e;
	struct ccob_write_opts w = {
		.version = o->version, .method = o->method,
		.level = o->level_set ? o->level :
			 o->method == CCOB_ZSTD ? 3 : 6,
		.progress = progress_on() ? progress_callback : NULL,
	};

	if (open_output(in_name, name, &out))
		return 1;
	progress_name(in_name);
	if (ccob_write(in, &out, &w, &st, &e) < 0) {
		progress_end();
		io_out_discard(&out);
		/* The output failed, or the input (read while compressed),
		 * or the compressor. */
		if (e.path[0])
			return applet_fail_io("ccob", name, &e);
		return fail("cannot compress", in_name, "%s", e.msg);
	}
	progress_end();
	if (io_out_commit(&out, &e) < 0)
		return applet_fail_err("ccob", "cannot write", name, 1, &e);
	/* Data that does not compress (already compressed, or tiny) grows
	 * by the header at least: worth saying. */
	if (st.total_size > in->len)
		fprintf(stderr, "offload ccob: warning: '%s': the CCOB (%llu "
			"bytes) is larger than its input (%zu bytes)\n",
			strcmp(name, "-") ? name : "standard output",
			(unsigned long long)st.total_size, in->len);
	return 0;
}

/* Where a CCOB's bytes go as they are inflated: to an output, or nowhere
 * (a listing needs only their hash).  Memory stays flat either way. */
struct sink {
	struct io_out *out;
	const char *out_name;
	bool failed;		/* the output's write failed (e says why) */
	const struct io_in *in;	/* what is read: its pages may leave */
};

static int to_sink(void *ctx, const void *p, size_t n, struct err *e)
{
	struct sink *k = ctx;

	if (!k->out || io_out_write(k->out, p, n, e) == 0)
		return 0;
	k->failed = true;
	return -1;
}

/* Walk the CCOBs of a file: each is inflated into k (so its hash is known)
 * and handed to fn.  Zero bytes before, between and after them are padding
 * (as in a .hip_fatbin section of several translation units); anything
 * else that is not a CCOB where one should start is an error. */
typedef int ccob_fn(void *ctx, size_t off, const struct ccob_header *h,
		    uint64_t hash, size_t used);

static int each_ccob_at(const struct options *o, const char *in_name,
			const uint8_t *data, size_t len, size_t base,
			struct sink *k, ccob_fn *fn, void *ctx);

static int each_ccob(const struct options *o, const char *in_name,
		     const struct io_in *in, struct sink *k, ccob_fn *fn,
		     void *ctx)
{
	if (!in->len)
		return fail("cannot read", in_name, "empty file, not a CCOB");
	if (ccob_skip_padding(in->data, in->len, 0) == in->len)
		return fail("cannot read", in_name, "only zero bytes, no CCOB");
	k->in = in;
	return each_ccob_at(o, in_name, in->data, in->len, 0, k, fn, ctx);
}

/* The CCOBs at data[0, len), which is at base in the file. */
static int each_ccob_at(const struct options *o, const char *in_name,
			const uint8_t *data, size_t len, size_t base,
			struct sink *k, ccob_fn *fn, void *ctx)
{
	size_t off = 0;

	while ((off = ccob_skip_padding(data, len, off)) < len) {
		struct ccob_header h;
		uint64_t hash;
		size_t used;
		struct err e;
		int rc;

		if (!ccob_is(data + off, len - off))
			return fail("cannot read", in_name,
				    "no CCOB at offset %zu", base + off);
		if (ccob_parse_header(data + off, len - off, &h, &e) < 0 ||
		    ccob_read_stream(k->in, data + off, len - off, &h,
				     &o->limits, to_sink, k, &used, &hash,
				     &e) < 0) {
			if (k->failed)
				return applet_fail_err("ccob", "cannot write",
						       k->out_name, 1, &e);
			return fail("cannot decompress", in_name,
				    "CCOB at offset %zu: %s", base + off, e.msg);
		}
		rc = fn(ctx, base + off, &h, hash, used);
		if (rc)
			return rc;
		off += used;
	}
	return 0;
}

static int check_hash(void *ctx, size_t off, const struct ccob_header *h,
		      uint64_t hash, size_t used)
{
	(void)used;
	if (hash != h->hash)
		return fail("cannot decompress", (const char *)ctx,
			    "CCOB at offset %zu: hash mismatch", off);
	return 0;
}

static int decompress_one(const struct options *o, const char *in_name,
			  const struct io_in *in, const char *name)
{
	struct io_out out = { .fd = -1 };
	struct sink k = { &out, name, false, NULL };
	struct err e;
	int rc;

	if (open_output(in_name, name, &out))
		return 1;
	progress_name(in_name);
	rc = each_ccob(o, in_name, in, &k, check_hash, (void *)in_name);
	progress_end();
	if (rc) {
		io_out_discard(&out);
		return 1;
	}
	if (io_out_commit(&out, &e) < 0)
		return applet_fail_err("ccob", "cannot write", name, 1, &e);
	return 0;
}

static int list_row(void *ctx, size_t off, const struct ccob_header *h,
		    uint64_t hash, size_t used)
{
	uint64_t comp = used - h->header_size;

	/* The progress line of this CCOB goes before its row is printed. */
	progress_end();
	printf("%10zu %4u  %-6s %12llu %13llu %7.2f%%  0x%016llx  %-5s  %s\n",
	       off, h->version, h->method == CCOB_ZSTD ? "zstd" : "zlib",
	       (unsigned long long)comp, (unsigned long long)h->raw_size,
	       h->raw_size ? 100.0 * (double)comp / (double)h->raw_size : 0.0,
	       (unsigned long long)h->hash, hash == h->hash ? "ok" : "BAD",
	       (const char *)ctx);
	return 0;
}

/* ccob -l on a file that is not a CCOB but holds some (an object, a
 * program, a library, an archive, a bundle): the CCOBs in it, found as
 * offload ls finds them. */
struct spots {
	size_t (*at)[2];
	size_t n;
};

static int note_ccob(void *ctx, const struct inspect_node *n)
{
	struct spots *sp = ctx;
	size_t (*grown)[2];

	if (n->kind != INSPECT_CONTAINER || n->container != FATBIN_CCOB ||
	    !n->in_file)
		return 0;
	if (!(grown = realloc(sp->at, (sp->n + 1) * sizeof(*grown))))
		return -1;	/* out of memory: the walk says so */
	sp->at = grown;
	sp->at[sp->n][0] = (size_t)n->offset;
	sp->at[sp->n++][1] = (size_t)n->size;
	return 0;
}

static int list_inside(const struct options *o, const char *in_name,
		       const struct io_in *in)
{
	struct inspect_opts walk = { .accept_other = true, .ccob = o->limits,
				     .package = {
					     .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
					     .max_size = PACKAGE_DEFAULT_MAX_SIZE } };
	struct spots sp = { 0 };
	struct err e;
	int rc = 0;

	walk.ccob.progress = NULL;
	if (inspect_walk(in->data, in->len, &walk, note_ccob, &sp, &e) != 0) {
		rc = fail("cannot read", in_name, "%s", e.msg);
	} else if (!sp.n) {
		rc = fail("cannot read", in_name, "no CCOB in it (offload ls "
			  "lists the device code a file holds)");
	}
	for (size_t i = 0; !rc && i < sp.n; i++) {
		struct sink none = { .in = in };

		rc = each_ccob_at(o, in_name, in->data + sp.at[i][0],
				  sp.at[i][1], sp.at[i][0], &none, list_row,
				  (void *)in_name);
	}
	free(sp.at);
	return rc;
}

static int run_one(const struct options *o, const char *in_name)
{
	struct io_in in;
	struct err e;
	char *name = NULL;
	int rc;

	/* Compressed, a pipe is read once, whole: it waits in a scratch
	 * file, not in memory. */
	if ((o->mode == COMPRESS ? io_scratch_open_input(&in, in_name, &e)
				 : io_in_open(&in, in_name, &e)) < 0)
		return applet_fail_err("ccob", "cannot read", in_name, 0, &e);
	if (o->mode == LIST && in.len &&
	    ccob_skip_padding(in.data, in.len, 0) < in.len &&
	    !ccob_is(in.data + ccob_skip_padding(in.data, in.len, 0),
		     in.len - ccob_skip_padding(in.data, in.len, 0))) {
		progress_name(in_name);
		rc = list_inside(o, in_name, &in);
		progress_end();
	} else if (o->mode == LIST) {
		struct sink none = { 0 };

		progress_name(in_name);
		rc = each_ccob(o, in_name, &in, &none, list_row,
			       (void *)in_name);
		progress_end();
	} else if (!(name = output_name(o, in_name))) {
		rc = fail("cannot decompress", in_name,
			  "no .ccob suffix to remove (use -o or -c)");
	} else if (o->mode == COMPRESS) {
		rc = compress_one(o, in_name, &in, name);
	} else {
		rc = decompress_one(o, in_name, &in, name);
	}
	free(name);
	io_in_close(&in);
	return rc;
}

/* ---- options ---- */

static bool parse_number(const char *s, long long min, long long max,
			 long long *out)
{
	char *end;
	long long v;

	if (!*s)
		return false;
	v = strtoll(s, &end, 10);
	if (*end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* -19, -3: a level, as in zstd and gzip; taken out of argv before the
 * options are parsed. */
static void take_levels(int *argc, char **argv, struct options *o)
{
	long long n;

	for (int i = 1; i < *argc && strcmp(argv[i], "--");)
		if (argv[i][0] == '-' && argv[i][1] >= '0' && argv[i][1] <= '9' &&
		    parse_number(argv[i] + 1, 0, 22, &n)) {
			o->level = (int)n;
			o->level_set = true;
			memmove(&argv[i], &argv[i + 1],
				(size_t)(*argc - i) * sizeof(*argv));
			(*argc)--;
		} else {
			i++;
		}
}

/* ---- options ---- */

static int set_level(void *options, const char *value)
{
	struct options *o = options;
	long long n;

	if (!parse_number(value, -131072, 22, &n))
		return usage_error("invalid level '%s'", value);
	o->level = (int)n;
	o->level_set = true;
	return 0;
}

static const struct opt_choice methods[] = {
	{ "zstd", CCOB_ZSTD }, { "zlib", CCOB_ZLIB }, { NULL, 0 },
};

static int set_format_version(void *options, const char *value)
{
	long long n;

	if (!parse_number(value, 1, 3, &n))
		return usage_error("invalid format version '%s' (1, 2 or 3)",
				   value);
	((struct options *)options)->version = (unsigned)n;
	return 0;
}

/* A limit: a positive number. */
static int set_limit(uint64_t *limit, const char *value)
{
	long long n;

	if (!parse_number(value, 1, INT64_MAX, &n))
		return usage_error("invalid number '%s'", value);
	*limit = (uint64_t)n;
	return 0;
}

static int set_max_size(void *options, const char *value)
{
	return set_limit(&((struct options *)options)->limits.max_size, value);
}

static int set_max_ratio(void *options, const char *value)
{
	return set_limit(&((struct options *)options)->limits.max_ratio, value);
}

#define AT(member) offsetof(struct options, member)

static const struct opt rows[] = {
	OPT_SET_INT('z', "compress", "compress FILE to FILE.ccob (the default)",
		    AT(mode), COMPRESS),
	OPT_SET_INT('d', "decompress", "decompress every CCOB in FILE, in order, to FILE\n"
		    "without its .ccob suffix", AT(mode), DECOMPRESS),
	OPT_SET_INT('l', "list", "describe each CCOB: offset, version, method, sizes,\n"
		    "ratio, hash and whether the hash matches", AT(mode), LIST),
	OPT_STRING('o', "output", "FILE", "write to FILE (- for standard output)",
		   AT(output)),
	OPT_FLAG('c', "stdout", "write to standard output", AT(to_stdout)),
	OPT_IGNORED('f', "force", "no effect: an existing output is replaced (never\n"
		    "an input); kept for scripts written for gzip"),
	OPT_CALLBACK(0, "level", OPT_VALUE, "N",
		     "compression level (zstd: 3, zlib: 6 by default);\n"
		     "-N (-1 ... -22) is the same", set_level),
	OPT_CHOICE(0, "method", "METHOD", "zstd (the default) or zlib",
		   AT(method), methods, "unknown method '%s' (zstd or zlib)"),
	OPT_CALLBACK(0, "format-version", OPT_VALUE, "V",
		     "CCOB version to write: 1, 2 or 3 (the default)",
		     set_format_version),
	OPT_CALLBACK(0, "max-size", OPT_VALUE, "BYTES",
		     "largest uncompressed size a header is believed\n"
		     "to declare (default 34359738368; environment:\n"
		     "OFFLOAD_CCOB_MAX_SIZE)", set_max_size),
	OPT_CALLBACK(0, "max-ratio", OPT_VALUE, "N",
		     "largest declared ratio believed (default 65536;\n"
		     "environment: OFFLOAD_CCOB_MAX_RATIO)", set_max_ratio),
	OPT_FLAG('q', "quiet", "no progress line", AT(quiet)),
};

static const struct opts table = {
	.applet = "ccob", .usage = usage, .column = 26, OPTS_ROWS(rows),
	.ccob_env = true, .ccob_at = AT(limits),
};

/* The nfiles inputs at files (standard input when none), after the
 * header of a listing. */
static int run_all(struct options *o, int nfiles, char **files)
{
	int rc = 0;

	progress_init("ccob", o->quiet);
	if (progress_on())
		o->limits.progress = progress_callback;
	/* Nothing goes out over an input (the header would). */
	for (int i = 0; i < nfiles; i++) {
		struct err e;

		if (io_in_check_stdout(files[i], &e) < 0)
			return applet_fail_err("ccob", "cannot read", files[i],
					       0, &e);
	}
	if (o->mode == LIST)
		printf("%10s %4s  %-6s %12s %13s %8s  %-18s  %-5s  %s\n", "Offset",
		       "Ver", "Method", "Compressed", "Uncompressed", "Ratio",
		       "Hash", "Check", "File");
	if (!nfiles)
		return run_one(o, "-");
	for (int i = 0; i < nfiles; i++)
		rc |= run_one(o, files[i]);
	return rc;
}

int ccob_main(int argc, char **argv)
{
	struct options o = {
		.mode = COMPRESS, .method = CCOB_ZSTD, .version = 3,
		.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			    .max_size = CCOB_DEFAULT_MAX_SIZE },
	};
	int rc, nfiles, first;

	take_levels(&argc, argv, &o);
	if ((rc = opts_parse(&table, &o, argc, argv, &first)) >= 0)
		return rc;
	nfiles = argc - first;
	if (o.output && nfiles > 1 && o.mode != LIST)
		return usage_error("-o takes one input file");
	if (o.level_set && o.method == CCOB_ZLIB &&
	    (o.level < -1 || o.level > 9))
		return usage_error("zlib levels run from 0 to 9");
	return run_all(&o, nfiles, argv + first);
}
