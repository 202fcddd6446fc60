/* packager: llvm-offload-binary (and clang-offload-packager), drop-in exact
 * for LLVM 22: package device images into offload binaries, and extract
 * them again from packages and ELF objects. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applets.h"
#include "llvmtool.h"
#include "packager.h"
#include "../core/env.h"
#include "../core/io.h"
#include "../formats/magic.h"

static const char overview[] =
	"OVERVIEW: A utility for bundling several object files into a single binary.\n"
	"The output binary can then be embedded into the host section table\n"
	"to create a fatbinary containing offloading code.\n"
	"\n"
	"USAGE: %s [options] Extract from <file>.\n"
	"\n"
	"OPTIONS:\n";

/* One line of --help each; `show` says in which of LLVM's four help listings
 * the line appears (categorised or flat list, plain or hidden). */
static const struct help_line help_lines[] = {
	{ "  --archive                   - Write extracted files to a static archive\n", 0, ALL },
	{ "  --help                      - Display available options (--help-hidden for more)\n", 1, ALL },
	{ "  --help-hidden               - Display all available options\n", 1, HH | LH },
	{ "  --help-list                 - Display list of available options (--help-list-hidden for more)\n", 1, H | HH | LH },
	{ "  --help-list-hidden          - Display list of all available options\n", 1, HH | LH },
	{ "  --image=<<key>=<value>,...> - List of key and value arguments. Required keywords are 'file' and 'triple'.\n", 0, ALL },
	{ "  -o <file>                   - Write output to <file>.\n", 0, ALL },
	{ "  --print-all-options         - Print all option values after command line parsing\n", 1, HH | LH },
	{ "  --print-options             - Print non-default options after command line parsing\n", 1, HH | LH },
	{ "  --version                   - Display the version of this program\n", 1, ALL },
};

static void print_help(const char *prog, int which)
{
	size_t n = sizeof(help_lines) / sizeof(help_lines[0]);

	printf(overview, prog);
	llvm_print_help(help_lines, n, which, "llvm-offload-binary");
}

/* The options in the order LLVM 22's option map iterates them, which breaks
 * ties between equally close "Did you mean" suggestions (measured from its
 * suggestions; -o and --help-list-hidden never tie alone). */
enum {
	O_HELP, O_ARCHIVE, O_HELP_HIDDEN, O_VERSION, O_HELP_LIST,
	O_HELP_LIST_HIDDEN, O_O, O_IMAGE, O_PRINT_OPTIONS, O_PRINT_ALL_OPTIONS,
	O_INPUT,
	/* Options LLVM hides from everything but use (-h), and libLLVM's own
	 * generic ones, accepted and ignored but for --color, never
	 * suggested. */
	O_H, O_COLOR, O_DISABLE_SYMBOLICATION, O_INFO_OUTPUT_FILE, O_RNG_SEED,
	O_STATS, O_STATS_JSON, O_TIME_PASSES, O_TRACK_MEMORY, O_COUNT
};

static void init_options(struct clopt *o)
{
	static const struct clopt proto[O_COUNT] = {
		[O_HELP] = { .name = "help", .type = CLOPT_ACTION },
		[O_ARCHIVE] = { .name = "archive", .type = CLOPT_BOOL },
		[O_HELP_HIDDEN] = { .name = "help-hidden", .type = CLOPT_ACTION },
		[O_VERSION] = { .name = "version", .type = CLOPT_ACTION },
		[O_HELP_LIST] = { .name = "help-list", .type = CLOPT_ACTION },
		[O_HELP_LIST_HIDDEN] = { .name = "help-list-hidden", .type = CLOPT_ACTION },
		[O_O] = { .name = "o", .type = CLOPT_STRING, .flags = CLOPT_GROUPING },
		[O_IMAGE] = { .name = "image", .type = CLOPT_LIST },
		[O_PRINT_OPTIONS] = { .name = "print-options", .type = CLOPT_BOOL },
		[O_PRINT_ALL_OPTIONS] = { .name = "print-all-options", .type = CLOPT_BOOL },
		[O_INPUT] = { .name = "<file>", .type = CLOPT_POSITIONAL },
		[O_H] = { .name = "h", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST | CLOPT_GROUPING },
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
}

/* ---- messages ---- */

static const char *argv0;
static bool color;

int packager_fail(const char *fmt, ...)
{
	const char *cut = io_input_cut();
	va_list ap;

	/* Whatever failed, it failed on the zeros read where an input was
	 * cut short under us (core/io.c): that is the error. */
	if (cut) {
		io_input_cut_clear();
		return packager_fail("'%s': file changed size while being "
				     "read", cut);
	}
	va_start(ap, fmt);
	llvm_report(argv0, "error", color, fmt, ap);
	va_end(ap);
	return 1;
}

void packager_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	llvm_report(argv0, "warning", color, fmt, ap);
	va_end(ap);
}

void packager_warn_plain(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	llvm_report(NULL, "warning", color, fmt, ap);
	va_end(ap);
}

/* LLVM prints a failed system call on a file it names as the reason
 * alone; anything else of ours (a stream past its limit, an input cut
 * short) names the file. */
const char *packager_why(const struct err *e, const char *path)
{
	return e->code == ERR_SYSTEM && !strcmp(e->path, path) ? e->why
							       : e->msg;
}

/* ---- paths, as LLVM's sys::path sees them ---- */

static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The extension without its dot, or NULL when there is none. */
static const char *extension(const char *path)
{
	const char *name = file_name(path), *dot = strrchr(name, '.');

	if (!dot || !strcmp(name, ".") || !strcmp(name, ".."))
		return NULL;
	return dot + 1;
}

char *packager_stem(const char *path)
{
	const char *name = file_name(path), *dot = strrchr(name, '.');

	if (!dot || !strcmp(name, ".") || !strcmp(name, ".."))
		return strdup(name);
	return strndup(name, (size_t)(dot - name));
}

/* ---- --image=<key>=<value>,... ---- */

void packager_args_free(struct image_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].value);
	free(a->v);
	densemap_free(&a->map);
	*a = (struct image_args){ 0 };
}

int packager_args_parse(const char *spec, struct image_args *a)
{
	const char *tok = spec;

	*a = (struct image_args){ 0 };
	for (;;) {
		const char *end = strchr(tok, ','), *eq;
		size_t len = end ? (size_t)(end - tok) : strlen(tok);
		size_t klen, vlen;
		uint32_t b;

		eq = memchr(tok, '=', len);
		klen = eq ? (size_t)(eq - tok) : len;
		vlen = eq ? len - klen - 1 : 0;
		b = densemap_find(&a->map, tok, klen);
		if (b != a->map.nb) {
			struct image_arg *arg = &a->v[a->map.b[b].value];
			char *joined = realloc(arg->value, arg->value_len + vlen + 2);

			if (!joined)
				return -1;
			joined[arg->value_len] = ',';
			memcpy(joined + arg->value_len + 1, eq ? eq + 1 : "", vlen);
			arg->value_len += vlen + 1;
			joined[arg->value_len] = 0;
			arg->value = joined;
			arg->no_value = false;
		} else {
			struct image_arg *v = realloc(a->v, (a->n + 1) * sizeof(*v));
			char *value = strndup(eq ? eq + 1 : "", vlen);

			if (v)
				a->v = v;
			if (!v || !value ||
			    densemap_insert(&a->map, tok, klen, a->n) < 0) {
				free(value);
				return -1;
			}
			a->v[a->n++] = (struct image_arg){ tok, klen, value, vlen,
							   !eq };
		}
		if (!end)
			return 0;
		tok = end + 1;
	}
}

const struct image_arg *packager_arg(const struct image_args *a,
				     const char *key)
{
	uint32_t b = densemap_find(&a->map, key, strlen(key));

	return b == a->map.nb ? NULL : &a->v[a->map.b[b].value];
}

bool packager_is_key(const struct image_arg *arg, const char *key)
{
	return arg->key_len == strlen(key) && !memcmp(arg->key, key, arg->key_len);
}

/* ---- packaging ---- */

/* One image to package: its file and metadata.  Files are opened once to
 * check them (so errors come in LLVM's order, before any output) and again
 * to copy them, so no more than one is open at a time; stdin is read once
 * and kept. */
struct to_package {
	char *path;
	uint16_t image_kind, offload_kind;
	struct package_string *strings;
	size_t nstrings;
	struct io_in stdin_data;
	bool from_stdin;
};

static int plan_image(const struct image_args *a, char *path,
		      struct to_package *p)
{
	struct io_in in;
	struct err e;
	const struct image_arg *kind = packager_arg(a, "kind");
	const char *ext;

	*p = (struct to_package){ .path = path };
	p->stdin_data.fd = -1;
	if (io_in_open(&in, path, &e) < 0)
		return packager_fail("%s", packager_why(&e, path));
	/* Clang names LTO bitcode .o: the magic wins over the extension. */
	if (magic_is_bitcode(in.data, in.len))
		p->image_kind = PACKAGE_IMG_BITCODE;
	else if ((ext = extension(path)) != NULL)
		p->image_kind = package_image_kind_from_ext(ext, strlen(ext));
	if (kind)
		p->offload_kind = package_offload_kind_from_name(kind->value,
								 kind->value_len);
	if (!strcmp(path, "-")) {
		p->stdin_data = in;
		p->from_stdin = true;
	} else {
		io_in_close(&in);
	}
	p->strings = calloc(a->n + 1, sizeof(*p->strings));
	if (!p->strings)
		return packager_fail("out of memory");
	for (uint32_t b = 0; b < a->map.nb; b++) {
		const struct image_arg *arg;

		if (!a->map.b[b].used)
			continue;
		arg = &a->v[a->map.b[b].value];
		if (packager_is_key(arg, "file") || packager_is_key(arg, "kind"))
			continue;
		p->strings[p->nstrings++] = (struct package_string){
			arg->key, arg->value, arg->key_len, arg->value_len };
	}
	return 0;
}

static int write_image(struct io_out *out, const struct to_package *p)
{
	struct package_meta meta = { p->image_kind, p->offload_kind,
				     p->strings, p->nstrings };
	struct io_in in;
	struct err e;
	uint8_t *head = NULL;
	size_t head_len, tail;
	int rc = 1;

	if (p->from_stdin)
		in = p->stdin_data;
	else if (io_in_open(&in, p->path, &e) < 0)
		return packager_fail("%s", packager_why(&e, p->path));
	if (package_write_head(&meta, in.len, &head, &head_len, &tail, &e) < 0 ||
	    io_out_write(out, head, head_len, &e) < 0 ||
	    io_out_copy(out, &in, 0, in.len, &e) < 0 ||
	    io_out_zeros(out, tail, &e) < 0)
		packager_fail("%s", packager_why(&e, out->path));
	else
		rc = 0;
	free(head);
	if (!p->from_stdin)
		io_in_close(&in);
	return rc;
}

static int package(const char *output, const struct clopt *images)
{
	struct image_args *args = calloc(images->nlist + 1, sizeof(*args));
	struct to_package *todo = NULL;
	size_t ntodo = 0, cap = 0;
	struct io_out out = { .fd = -1 };
	struct err e;
	int rc = 1;

	if (!args)
		return packager_fail("out of memory");
	for (size_t i = 0; i < images->nlist; i++) {
		const struct image_arg *file;
		const char *name;

		if (packager_args_parse(images->list[i], &args[i]) < 0) {
			packager_fail("out of memory");
			goto out;
		}
		file = packager_arg(&args[i], "file");
		if (!file) {
			packager_fail("'file' is a required image arguments");
			goto out;
		}
		/* file=a,file=b (joined "a,b") is one image per name; a
		 * lone "file" without '=' none (LLVM 22: exit 0, and an
		 * empty output when no other image is named). */
		for (name = file->value; !file->no_value;
		     name = strchr(name, ',') + 1) {
			size_t len = strcspn(name, ",");
			char *path = strndup(name, len);

			if (ntodo == cap) {
				size_t ncap = cap ? 2 * cap : 8;
				struct to_package *t = realloc(todo, ncap * sizeof(*t));

				if (t) {
					todo = t;
					cap = ncap;
				}
			}
			if (!path || ntodo == cap) {
				free(path);
				packager_fail("out of memory");
				goto out;
			}
			if (plan_image(&args[i], path, &todo[ntodo++]) != 0)
				goto out;
			if (!name[len])
				break;
		}
	}
	if (io_out_open(&out, output, &e) < 0) {
		packager_fail("%s", packager_why(&e, output));
		goto out;
	}
	for (size_t i = 0; i < ntodo; i++)
		if (write_image(&out, &todo[i]) != 0)
			goto out;
	if (io_out_commit(&out, &e) < 0) {
		packager_fail("%s", packager_why(&e, output));
		goto out;
	}
	rc = 0;
out:
	io_out_discard(&out);
	for (size_t i = 0; i < ntodo; i++) {
		free(todo[i].path);
		free(todo[i].strings);
		if (todo[i].from_stdin)
			io_in_close(&todo[i].stdin_data);
	}
	free(todo);
	for (size_t i = 0; i < images->nlist; i++)
		packager_args_free(&args[i]);
	free(args);
	return rc;
}

/* ---- main ---- */

static void print_version(void)
{
	printf("offload llvm-offload-binary version %s (offload %s)\n",
	       LLVM_COMPAT_VERSION, OFFLOAD_VERSION);
}

/* LLVM 22 warns when the stem of argv[0] ends with the old name. */
static bool old_name(const char *path)
{
	char *s = packager_stem(path);
	size_t n = s ? strlen(s) : 0, k = strlen("clang-offload-packager");
	bool old = n >= k && !strcmp(s + n - k, "clang-offload-packager");

	free(s);
	return old;
}

/* Our own knobs (LLVM has none): how large an inflated size of a
 * compressed offload binary is believed. */
static int limits_from_env(struct package_limits *lim)
{
	struct err e;

	*lim = (struct package_limits){ .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
					.max_size = PACKAGE_DEFAULT_MAX_SIZE };
	if (env_positive_u64("OFFLOAD_PACKAGE_MAX_SIZE", &lim->max_size, &e) < 0 ||
	    env_positive_u64("OFFLOAD_PACKAGE_MAX_RATIO", &lim->max_ratio, &e) < 0)
		return packager_fail("%s", e.msg);
	return 0;
}

int packager_main(int argc, char **argv)
{
	struct clopt o[O_COUNT];
	struct clopt_result res;
	struct package_limits lim;
	const char *prog = file_name(argv[0]), *output, *input;
	int rc = 1;

	argv0 = argv[0];
	init_options(o);
	if (clopt_parse(o, O_COUNT, prog, argc, argv, &res) < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	fwrite(res.errors ? res.errors : "", 1, res.errors_len, stderr);
	color = o[O_COLOR].count ? o[O_COLOR].b : isatty(2);
	if (res.action) {
		if (res.action == &o[O_VERSION])
			print_version();
		else
			print_help(prog, res.action == &o[O_HELP] ? H :
				   res.action == &o[O_HELP_HIDDEN] ? HH :
				   res.action == &o[O_HELP_LIST] ? L : LH);
		rc = 0;
		goto out;
	}
	/* LLVM 22 goes on to print its help without its options set up and
	 * dies of a segmentation fault; the message is the error here. */
	if (res.failed || res.expand_failed)
		goto out;
	if (old_name(argv[0]))
		/* LLVM 22 warns before it knows its own name. */
		packager_warn_plain("'clang-offload-packager' is deprecated. Use "
				    "'llvm-offload-binary' instead.");
	output = o[O_O].s && *o[O_O].s ? o[O_O].s : NULL;
	input = o[O_INPUT].s && *o[O_INPUT].s ? o[O_INPUT].s : NULL;
	if (o[O_H].b || (!output && !input)) {
		print_help(prog, L);
		rc = 0;
		goto out;
	}
	if (output && input)
		rc = packager_fail("Packaging to an output file and extracting from an "
			  "input file are mutually exclusive.");
	else if (limits_from_env(&lim) != 0)
		rc = 1;
	else if (output)
		rc = package(output, &o[O_IMAGE]);
	else
		rc = packager_extract(input, &o[O_IMAGE], o[O_ARCHIVE].b, &lim);
out:
	clopt_free(o, O_COUNT);
	clopt_result_free(&res);
	return rc;
}
