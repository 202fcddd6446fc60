/* packager: llvm-offload-binary (and clang-offload-packager), drop-in exact
 * for LLVM 22, 23 and 24 (core/env.h selects): package device images into
 * offload binaries, and extract them again from packages and ELF objects.
 * LLVM 22 writes one version-1 binary per image, LLVM 23 one version-2
 * binary holding them all, LLVM 24 a version-3 one, compressed if asked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applets.h"
#include "llvmtool.h"
#include "image_args.h"
#include "packager_extract.h"
#include "../core/env.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../formats/magic.h"
#include "../formats/package.h"

static const char overview[] =
	"OVERVIEW: A utility for bundling several object files into a single binary.\n"
	"The output binary can then be embedded into the host section table\n"
	"to create a fatbinary containing offloading code.\n"
	"\n"
	"USAGE: %s [options] Extract from <file>.\n"
	"\n"
	"OPTIONS:\n";

/* The options in the order LLVM 22's option map iterates them, which breaks
 * ties between equally close "Did you mean" suggestions (measured from its
 * suggestions; -o and --help-list-hidden never tie alone); the generic
 * ones (llvmtool.h) in the empty rows and the tail.  LLVM 24's own three
 * come before the tail (their place in its map not measured); a table
 * for 22 or 23 ends LLVM24_ONLY rows sooner, its tail there. */
enum {
	O_HELP, O_ARCHIVE, O_HELP_HIDDEN, O_VERSION, O_HELP_LIST,
	O_HELP_LIST_HIDDEN, O_O, O_IMAGE, O_PRINT_OPTIONS, O_PRINT_ALL_OPTIONS,
	O_INPUT, O_COMPRESS, O_COMPRESSION_FORMAT, O_COMPRESSION_LEVEL,
	LLVM24_ONLY = 3, O_COUNT = O_COMPRESSION_LEVEL + 1 + LLVM_TAIL_COUNT
};

static const char *const codec_names[] = { "zstd", "zlib", NULL };
static const char *const codec_descs[] = { "Zstandard compression",
					   "zlib compression", NULL };
_Static_assert(PACKAGE_ZSTD == 0 && PACKAGE_ZLIB == 1,
	       "codec_names is indexed by enum package_codec");

/* How a version-3 binary is written (LLVM 24). */
struct packing {
	unsigned version;	/* 1 (LLVM 22, a binary per image), 2 or 3 */
	bool compress;
	enum package_codec codec;
	int level;
};

/* LLVM 24's: -o leads no group (-oh is an unknown argument), and the
 * options of --compress. */
static void options_24(struct clopt *o)
{
	o[O_O].flags = 0;
	o[O_COMPRESS] = (struct clopt){ .name = "compress", .type = CLOPT_BOOL,
		.desc = "Compress the packaged offload binary" };
	o[O_COMPRESSION_FORMAT] = (struct clopt){ .name = "compression-format",
		.type = CLOPT_ENUM, .value_desc = "<value>",
		.desc = "Format used with --compress", .choices = codec_names,
		.choice_descs = codec_descs };
	o[O_COMPRESSION_LEVEL] = (struct clopt){ .name = "compression-level",
		.type = CLOPT_INT, .value_desc = "<int>",
		.desc = "Compression level used with --compress" };
}

static void init_options(const struct llvm_tool *t)
{
	struct clopt *o = t->o;

	memset(o, 0, t->n * sizeof(*o));
	o[O_ARCHIVE] = (struct clopt){ .name = "archive", .type = CLOPT_BOOL,
		.desc = "Write extracted files to a static archive" };
	o[O_O] = (struct clopt){ .name = "o", .type = CLOPT_STRING, .flags = CLOPT_GROUPING,
		.value_desc = "<file>", .desc = "Write output to <file>." };
	o[O_IMAGE] = (struct clopt){ .name = "image", .type = CLOPT_LIST,
		.value_desc = "<<key>=<value>,...>",
		.desc = "List of key and value arguments. Required keywords are 'file' and 'triple'." };
	o[O_INPUT] = (struct clopt){ .name = "<file>", .type = CLOPT_POSITIONAL };
	if (t->release >= LLVM_24)
		options_24(o);
	llvm_generic_options(t);
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
	uint64_t size;		/* when planned (LLVM 23 writes sizes first) */
	struct io_in stdin_data;
	bool from_stdin;
};

static int plan_image(const struct image_args *a, char *path, bool llvm23,
		      struct to_package *p)
{
	struct io_in in;
	struct err e;
	const struct image_arg *kind = image_arg(a, "kind");
	const char *ext;

	*p = (struct to_package){ .path = path };
	p->stdin_data.fd = -1;
	if (io_in_open(&in, path, &e) < 0)
		return llvm_fail("%s", llvm_why(&e, path));
	/* Clang names LTO bitcode .o: the magic wins over the extension. */
	if (magic_is_bitcode(in.data, in.len))
		p->image_kind = PACKAGE_IMG_BITCODE;
	else if ((ext = llvm_path_extension(path)) != NULL)
		p->image_kind = package_image_kind_from_ext(ext, strlen(ext),
							     llvm23);
	if (kind)
		p->offload_kind = package_offload_kind_from_name(kind->value,
								 kind->value_len);
	p->size = in.len;
	if (!strcmp(path, "-")) {
		p->stdin_data = in;
		p->from_stdin = true;
	} else {
		io_in_close(&in);
	}
	p->strings = calloc(a->n + 1, sizeof(*p->strings));
	if (!p->strings)
		return llvm_fail("out of memory");
	for (uint32_t b = 0; b < a->map.nb; b++) {
		const struct image_arg *arg;

		if (!a->map.b[b].used)
			continue;
		arg = &a->v[a->map.b[b].value];
		if (image_arg_is(arg, "file") || image_arg_is(arg, "kind"))
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
		return llvm_fail("%s", llvm_why(&e, p->path));
	if (package_write_head(&meta, in.len, &head, &head_len, &tail, &e) < 0 ||
	    io_out_write(out, head, head_len, &e) < 0 ||
	    io_out_copy(out, &in, 0, in.len, &e) < 0 ||
	    io_out_zeros(out, tail, &e) < 0)
		llvm_fail_write(&e, out->path, !io_out_seekable(out));
	else
		rc = 0;
	free(head);
	if (!p->from_stdin)
		io_in_close(&in);
	return rc;
}

/* Image p's bytes, checked against the size planned (the header holds
 * it): *in to close with close_image. */
static int open_image(const struct to_package *p, struct io_in *in)
{
	struct err e;

	if (p->from_stdin)
		*in = p->stdin_data;
	else if (io_in_open(in, p->path, &e) < 0)
		return llvm_fail("%s", llvm_why(&e, p->path));
	if (in->len == p->size)
		return 0;
	if (!p->from_stdin)
		io_in_close(in);
	return llvm_fail("'%s': file changed size while being read", p->path);
}

static void close_image(const struct to_package *p, struct io_in *in)
{
	if (!p->from_stdin)
		io_in_close(in);
}

/* LLVM 24 --compress: the whole version-3 binary (head, images, tail) in
 * memory, compressed as one stream, written. */
static int write_compressed(struct io_out *out, const struct to_package *todo,
			    size_t n, const uint8_t *head, size_t head_len,
			    size_t tail, const struct packing *how)
{
	uint64_t total = head_len + tail;
	uint8_t *whole = NULL, *packed = NULL;
	size_t at = head_len, packed_len;
	struct err e;
	int rc = 1;

	for (size_t i = 0; i < n; i++)
		total += todo[i].size;
	if (total > SIZE_MAX || !(whole = calloc(1, (size_t)total)))
		return llvm_fail("out of memory");
	memcpy(whole, head, head_len);
	for (size_t i = 0; i < n; i++) {
		struct io_in in;

		if (open_image(&todo[i], &in) != 0)
			goto out;
		memcpy(whole + at, in.data, in.len);
		at += in.len;
		close_image(&todo[i], &in);
	}
	if (package_compress(whole, (size_t)total, how->codec, how->level,
			     &packed, &packed_len, &e) < 0)
		llvm_fail("%s", e.msg);
	else if (io_out_write(out, packed, packed_len, &e) < 0)
		llvm_fail_write(&e, out->path, !io_out_seekable(out));
	else
		rc = 0;
out:
	free(whole);
	free(packed);
	return rc;
}

/* LLVM 23 and 24: one version-2 or 3 binary of every image, images back
 * to back.  The header holds their sizes: an image whose size changed
 * since it was planned fails the command. */
static int write_multi(struct io_out *out, const struct to_package *todo,
		       size_t n, const struct packing *how)
{
	struct package_meta *meta = calloc(n + 1, sizeof(*meta));
	uint64_t *sizes = calloc(n + 1, sizeof(*sizes));
	uint64_t *offs = calloc(n + 1, sizeof(*offs));
	uint8_t *head = NULL;
	size_t head_len, tail;
	struct err e;
	int rc = 1;

	if (!meta || !sizes || !offs) {
		llvm_fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		meta[i] = (struct package_meta){ todo[i].image_kind,
			todo[i].offload_kind, todo[i].strings, todo[i].nstrings };
		sizes[i] = todo[i].size;
	}
	if (package_write_multi_head(how->version, meta, NULL, sizes, n, &head,
				     &head_len, offs, &tail, &e) < 0) {
		llvm_fail("%s", e.msg);
		goto out;
	}
	if (how->compress) {
		rc = write_compressed(out, todo, n, head, head_len, tail, how);
		goto out;
	}
	if (io_out_write(out, head, head_len, &e) < 0) {
		llvm_fail_write(&e, out->path, !io_out_seekable(out));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct to_package *p = &todo[i];
		struct io_in in;
		int failed;

		if (open_image(p, &in) != 0)
			goto out;
		if ((failed = io_out_copy(out, &in, 0, in.len, &e) < 0))
			llvm_fail_write(&e, out->path, !io_out_seekable(out));
		close_image(p, &in);
		if (failed)
			goto out;
	}
	if (io_out_zeros(out, tail, &e) < 0) {
		llvm_fail_write(&e, out->path, !io_out_seekable(out));
		goto out;
	}
	rc = 0;
out:
	free(head);
	free(meta);
	free(sizes);
	free(offs);
	return rc;
}

static int package(const char *output, const struct clopt *images,
		   const struct packing *how)
{
	bool llvm23 = how->version >= 2;
	bool in_place = false;
	struct image_args *args = calloc(images->nlist + 1, sizeof(*args));
	struct to_package *todo = NULL;
	size_t ntodo = 0, cap = 0;
	struct io_out out = { .fd = -1 };
	struct err e;
	int rc = 1;

	if (!args)
		return llvm_fail("out of memory");
	for (size_t i = 0; i < images->nlist; i++) {
		const struct image_arg *file;
		const char *name;

		if (image_args_parse(images->list[i], llvm23, &args[i]) < 0) {
			llvm_fail("out of memory");
			goto out;
		}
		file = image_arg(&args[i], "file");
		if (!file) {
			llvm_fail("'file' is a required image arguments");
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
				llvm_fail("out of memory");
				goto out;
			}
			if (plan_image(&args[i], path, llvm23, &todo[ntodo++]) != 0)
				goto out;
			if (!name[len])
				break;
		}
	}
	/* (LLVM's FileOutputBuffer makes its temporary beside the output:
	 * where it cannot, it fails, and so do we) */
	if (io_out_open_replace(&out, output, &e) < 0) {
		llvm_fail("%s", llvm_why(&e, output));
		goto out;
	}
	in_place = !io_out_seekable(&out);
	if (llvm23) {
		if (write_multi(&out, todo, ntodo, how) != 0)
			goto out;
	} else {
		for (size_t i = 0; i < ntodo; i++)
			if (write_image(&out, &todo[i]) != 0)
				goto out;
	}
	if (io_out_commit(&out, &e) < 0) {
		llvm_fail_write(&e, output, in_place);
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
		image_args_free(&args[i]);
	free(args);
	return rc;
}

/* ---- main ---- */

/* LLVM 22 warns when the stem of argv[0] ends with the old name. */
static bool old_name(const char *path)
{
	char *s = llvm_path_stem(path);
	size_t n = s ? strlen(s) : 0, k = strlen("clang-offload-packager");
	bool old = n >= k && !strcmp(s + n - k, "clang-offload-packager");

	free(s);
	return old;
}

/* Our own knobs (LLVM has none): how large an inflated size of a
 * compressed offload binary is believed. */
static int limits_from_env(struct package_limits *lim,
			   enum llvm_release llvm)
{
	struct err e;

	*lim = (struct package_limits){ .llvm23 = llvm >= LLVM_23,
					.llvm24 = llvm >= LLVM_24,
					.max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
					.max_size = PACKAGE_DEFAULT_MAX_SIZE };
	if (env_positive_u64("OFFLOAD_PACKAGE_MAX_SIZE", &lim->max_size, &e) < 0 ||
	    env_positive_u64("OFFLOAD_PACKAGE_MAX_RATIO", &lim->max_ratio, &e) < 0)
		return llvm_fail("%s", e.msg);
	return 0;
}

/* LLVM 24's --compress and its format and level (which it takes, and
 * ignores, without --compress).  zlib takes levels -1 to 9: LLVM 24
 * writes a bare header of a higher one, with exit 0; refused here. */
static int packing_of(const struct clopt *o, enum llvm_release llvm,
		      struct packing *how)
{
	*how = (struct packing){ .version = llvm >= LLVM_24 ? 3 :
					    llvm >= LLVM_23 ? 2 : 1 };
	if (llvm < LLVM_24 || !o[O_COMPRESS].b)
		return 0;
	how->compress = true;
	how->codec = (enum package_codec)o[O_COMPRESSION_FORMAT].i;
	how->level = how->codec == PACKAGE_ZSTD ? PACKAGE_ZSTD_LEVEL
						: PACKAGE_ZLIB_LEVEL;
	if (o[O_COMPRESSION_LEVEL].count)
		how->level = (int)o[O_COMPRESSION_LEVEL].i;
	if (how->codec == PACKAGE_ZLIB && (how->level < -1 || how->level > 9))
		return llvm_fail("zlib compression level %d is out of range "
				 "(-1 to 9)", how->level);
	return 0;
}

int packager_main(int argc, char **argv, enum llvm_release llvm)
{
	struct clopt o[O_COUNT];
	struct llvm_tool t = {
		.name = "llvm-offload-binary", .overview = overview,
		.o = o, .n = llvm >= LLVM_24 ? O_COUNT : O_COUNT - LLVM24_ONLY,
		.release = llvm,
	};
	struct clopt_result res;
	struct package_limits lim;
	struct packing how;
	const char *output, *input;
	int rc;

	init_options(&t);
	rc = llvm_tool_parse(&t, argc, argv, &res);
	/* LLVM 22 goes on to print its help without its options set up and
	 * dies of a segmentation fault; the message is the error here. */
	if (rc >= 0 || res.expand_failed) {
		rc = rc >= 0 ? rc : 1;
		goto out;
	}
	if (old_name(argv[0]))
		/* LLVM 22 warns before it knows its own name. */
		llvm_warn_plain("'clang-offload-packager' is deprecated. Use "
				"'llvm-offload-binary' instead.");
	output = o[O_O].s && *o[O_O].s ? o[O_O].s : NULL;
	input = o[O_INPUT].s && *o[O_INPUT].s ? o[O_INPUT].s : NULL;
	if (o[t.n - LLVM_TAIL_COUNT + LLVM_TAIL_H].b || (!output && !input)) {
		llvm_tool_help(&t, llvm_path_filename(argv[0]), L);
		rc = 0;
		goto out;
	}
	if (output && input)
		rc = llvm_fail("Packaging to an output file and extracting from "
			       "an input file are mutually exclusive.");
	else if (limits_from_env(&lim, llvm) != 0)
		rc = 1;
	else if (output)
		rc = packing_of(o, llvm, &how) ? 1 :
		     package(output, &o[O_IMAGE], &how);
	else
		rc = packager_extract(input, &o[O_IMAGE], o[O_ARCHIVE].b, &lim);
out:
	clopt_free(o, t.n);
	clopt_result_free(&res);
	return rc;
}
