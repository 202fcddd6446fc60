/* bundler_jobs: bundling as LLVM 22 does it, and the reader of its inputs
 * that --list and --unbundle (bundler_read.c) share; the command line is
 * in bundler.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bundler_jobs.h"
#include "llvmtool.h"
#include "../core/elfscan.h"
#include "../core/env.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/io_scratch.h"
#include "../core/sections.h"
#include "../core/strmap.h"
#include "../core/target.h"
#include "../formats/bundle.h"
#include "../formats/bundle_binary.h"
#include "../formats/bundle_text.h"
#include "../formats/bundle_object.h"
#include "../formats/ccob.h"
#include "../formats/ccob_decode.h"
#include "../ops/ccob_write.h"
#include "../formats/coff.h"
#include "../formats/magic.h"

enum handler { H_TEXT, H_BINARY, H_OBJECT, H_INVALID };

/* LLVM picks the layout from -type, and for o and a from the reference
 * input: an object file gets object bundles, anything else binary ones.
 * What is an object here is LLVM's identify_magic (Mach-O and wasm too),
 * not the table of host formats (ops/hosts.c): the bundler is a drop-in
 * for LLVM's, so it decides as LLVM does, where ls, extract, prune and du
 * agree with one another through the table. */
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
		return magic_is_object(ref->data, ref->len) ||
		       coff_is_readable(ref->data, ref->len) ? H_OBJECT :
							      H_BINARY;
	return H_INVALID;
}

static int handler_error(const char *type)
{
	return llvm_fail("'%s': invalid file type specified", type);
}

/* Where LLVM 22 finds the llvm-objcopy it runs: beside argv[0] as given
 * (or beside the real executable when argv[0] is not a path that exists),
 * then on PATH.  We run nothing; -### prints what LLVM would run. */
static char *find_objcopy(const char *argv0)
{
	char *self = NULL, *dir, *slash, *found = NULL;
	const char *path = getenv("PATH");

	if (access(argv0, F_OK) == 0)
		dir = strdup(argv0);
	else
		dir = self = realpath("/proc/self/exe", NULL);
	if (!dir)
		return NULL;
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		if (asprintf(&found, "%s/llvm-objcopy", *dir ? dir : "/") < 0)
			found = NULL;
		else if (access(found, X_OK)) {
			free(found);
			found = NULL;
		}
	}
	if (dir != self)
		free(dir);
	free(self);
	while (!found && path && *path) {
		size_t n = strcspn(path, ":");

		if (n && asprintf(&found, "%.*s/llvm-objcopy", (int)n, path) >= 0 &&
		    access(found, X_OK)) {
			free(found);
			found = NULL;
		}
		path += n + (path[n] == ':');
	}
	return found;
}

/* LLVM's temporary-file name for the host section or the stripped host. */
static void temp_name(char *buf, size_t size)
{
	static const char *const vars[] = { "TMPDIR", "TMP", "TEMP", "TEMPDIR" };
	const char *dir = NULL;
	unsigned r = (unsigned)getpid() ^ (unsigned)time(NULL) * 2654435761u;

	for (size_t i = 0; !dir && i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]) && *getenv(vars[i]))
			dir = getenv(vars[i]);
	snprintf(buf, size, "%s/clang-offload-bundler-%06x.tmp",
		 dir ? dir : "/tmp", r & 0xffffff);
}

/* -###: the command on stderr, each word in double quotes, unescaped. */
static void print_objcopy(const struct config *c, const char *const *args,
			  size_t n)
{
	char *objcopy = find_objcopy(c->argv0);

	fprintf(stderr, "\"%s\"", objcopy ? objcopy : "llvm-objcopy");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " \"%s\"", args[i]);
	fputc('\n', stderr);
	free(objcopy);
}

void bundler_print_objcopy_strip(const struct config *c)
{
	char tmp[4096], remove[64];
	const char *args[5] = { "--regex", remove, "--", c->inputs[0], tmp };

	snprintf(remove, sizeof(remove), "--remove-section=%s.*",
		 sections_name(SECTION_BUNDLE));
	temp_name(tmp, sizeof(tmp));
	print_objcopy(c, args, 5);
}

static int print_objcopy_add(const struct config *c)
{
	const char *section = sections_name(SECTION_BUNDLE);
	char **args = calloc(2 * c->ntargets + 3, sizeof(*args));
	char tmp[4096];
	size_t n = 0;
	int rc = 0;

	if (!args)
		return llvm_fail("out of memory");
	temp_name(tmp, sizeof(tmp));
	for (size_t i = 0; i < c->ntargets && !rc; i++) {
		const char *id = c->std_targets[i];

		if (asprintf(&args[n++], "--add-section=%s%s=%s", section, id,
			     (long)i == c->host_index ? tmp : c->inputs[i]) < 0 ||
		    asprintf(&args[n++], "--set-section-flags=%s%s="
			     "readonly,exclude", section, id) < 0)
			rc = llvm_fail("out of memory");
	}
	if (!rc) {
		args[n] = strdup("--");
		args[n + 1] = strdup(c->inputs[c->host_index]);
		args[n + 2] = strdup(c->outputs[0]);
		if (args[n] && args[n + 1] && args[n + 2])
			print_objcopy(c, (const char *const *)args, n + 3);
		else
			rc = llvm_fail("out of memory");
	}
	for (size_t i = 0; i < 2 * c->ntargets + 3; i++)
		free(args[i]);
	free(args);
	return rc;
}

int bundler_decompress_next(struct source *s, const char *path)
{
	const uint8_t *at = s->file.data + s->pos;
	size_t left = s->file.len - s->pos, used;
	struct ccob_header h;
	struct ccob_stats st = { 0 };
	struct timespec t0, t1;
	uint8_t *raw;
	uint64_t hash = 0;
	struct err e;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	llvm_timer_mark();
	if (ccob_parse_header(at, left, &h, &e) < 0)
		return llvm_fail("Failed to decompress input: %s",
				 bundler_llvm_words(s->c, e.msg));
	/* LLVM 22 hashes the data only for -verbose's report. */
	if (ccob_decompress(at, left, &h, &s->c->limits, &raw, &used,
			    s->c->verbose ? &hash : NULL, &e) < 0) {
		if (s->c->verbose && s->c->llvm >= LLVM_23)
			llvm_timer_add("Decompression time");
		/* LLVM's own messages keep LLVM's form; ours name the file. */
		if (e.llvm_words)
			return llvm_fail("Failed to decompress input: %s",
					 bundler_llvm_words(s->c, e.msg));
		llvm_fail("'%s': Failed to decompress input: %s", path, e.msg);
		return BUNDLER_OURS;
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
		.computed_hash = hash,
		.seconds = (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	};
	bundler_ccob_report(s->c, &st);
	return 0;
}

const char *bundler_llvm_words(const struct config *c, const char *msg)
{
	static char low[sizeof(((struct err *)0)->msg)];

	if (c->llvm < LLVM_23 || !msg[0])
		return msg;
	snprintf(low, sizeof(low), "%c%s", tolower((unsigned char)msg[0]),
		 msg + 1);
	return low;
}

void bundler_ccob_report(const struct config *c, const struct ccob_stats *st)
{
	if (c->verbose && c->llvm >= LLVM_23) {
		/* LLVM 23 times the two steps for its timer report. */
		llvm_timer_add("Decompression time");
		llvm_timer_add("Hash recalculation time");
	}
	if (c->verbose) {
		char report[1024];

		ccob_report_decompress(report, sizeof(report), st);
		fputs(report, stderr);
	}
}


int bundler_source_open(const struct config *c, struct source *s)
{
	struct err e;

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->file.fd = s->seg.fd = -1;
	if (io_in_open(&s->file, c->inputs[0], &e) < 0)
		return llvm_fail("%s", e.msg);
	/* Fewer than 8 bytes are never a CCOB, as in LLVM. */
	s->compressed = s->file.len >= 8 && ccob_is(s->file.data, s->file.len);
	s->streamable = s->compressed &&
			bundler_ccob_binary(c, s->file.data, s->file.len);
	return 0;
}

bool bundler_ccob_binary(const struct config *c, const uint8_t *at, size_t n)
{
	uint8_t head[BUNDLE_MAGIC_LEN];
	struct ccob_header h;
	size_t got = 0;
	struct err e;

	if (!strcmp(c->type, "bc") || !strcmp(c->type, "gch") ||
	    !strcmp(c->type, "ast"))
		return true;
	if (strcmp(c->type, "o") && strcmp(c->type, "a"))
		return false;
	return ccob_parse_header(at, n, &h, &e) == 0 &&
	       ccob_peek(at, n, &h, head, sizeof(head), &got, &e) == 0 &&
	       got == sizeof(head) &&
	       !memcmp(head, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN);
}

/* An uncompressed binary bundle after a CCOB (a mix LLVM 22 cannot read):
 * it runs to the end of its last entry's data. */
static int plain_after_ccob(struct source *s, struct bundle_reader *r)
{
	const uint8_t *at = s->file.data + s->pos;
	size_t left = s->file.len - s->pos;
	struct err e;

	if (bundle_open_binary(r, at, left, &e) < 0)
		return -llvm_fail("'%s': %s", s->c->inputs[0], e.msg);
	io_in_close(&s->seg);
	/* A view into the file at an offset: no fd, so copies use memory. */
	s->seg = (struct io_in){ .data = at, .len = bundle_binary_extent(r),
				 .fd = -1 };
	s->pos += s->seg.len;
	s->nseg++;
	return 1;
}

int bundler_open_layout(const struct config *c, const struct io_in *ref,
			const uint8_t *d, size_t n, struct bundle_reader *r)
{
	const char *comment = NULL;
	enum handler h = pick_handler(c->type, ref, &comment);
	struct err e;

	if (h == H_TEXT) {
		bundle_open_text(r, comment, d, n);
		return 1;
	}
	if (h == H_INVALID)
		return -handler_error(c->type);
	if (h == H_BINARY)
		return BUNDLER_BINARY;
	if (bundle_open_object(r, d, n, &e) < 0) {
		if (e.llvm_words)
			return -llvm_fail("%s", e.msg);
		return -llvm_fail("'%s': %s", c->inputs[0], e.msg);
	}
	return 1;
}

int bundler_blob23(const struct config *c, const struct io_in *in, size_t pos,
		   bool unbundle, struct blob23 *b)
{
	const uint8_t *d = in->data + pos;
	size_t left = in->len - pos;
	uint64_t end = UINT64_MAX, at = UINT64_MAX;
	const char *comment;
	struct ccob_header h;
	struct err e;

	b->at = pos;
	b->next = SIZE_MAX;
	if (ccob_is(d, left)) {
		if (ccob_parse_header(d, left, &h, &e) == 0 && h.version >= 2) {
			/* LLVM 23 reads the piece before it loops: a -type
			 * it has no handler for stops it there. */
			if (!h.total_size &&
			    bundler_layout23(c, d, left, &comment) < 0)
				return 1;
			if (!h.total_size)
				return llvm_fail("'%s': the compressed bundle at "
						 "offset %zu gives a size of 0 "
						 "(LLVM 23 reads it forever)",
						 c->inputs[0], pos);
			end = h.total_size;
			if (end < left)
				at = io_in_find(in, pos + end, in->len, "CCOB", 4);
		} else {
			at = io_in_find(in, pos + 4, in->len, "CCOB", 4);
		}
	} else if (unbundle && left >= BUNDLE_MAGIC_LEN &&
		   !memcmp(d, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN)) {
		/* LLVM looks from one past the magic's end. */
		at = io_in_find(in, pos + BUNDLE_MAGIC_LEN + 1, in->len,
				BUNDLE_MAGIC, BUNDLE_MAGIC_LEN);
	}
	if (at != UINT64_MAX) {
		b->next = (size_t)at;
		if (at - pos < end)
			end = at - pos;
	}
	b->len = end < left ? (size_t)end : left;
	return 0;
}

int bundler_layout23(const struct config *c, const uint8_t *d, size_t n,
		     const char **comment)
{
	struct io_in ref = { .data = d, .len = n, .fd = -1 };

	switch (pick_handler(c->type, &ref, comment)) {
	case H_TEXT:
		return LAYOUT_TEXT;
	case H_BINARY:
		return LAYOUT_BINARY;
	case H_OBJECT:
		return LAYOUT_OBJECT;
	case H_INVALID:
		break;
	}
	return -handler_error(c->type);
}

/* Open the next bundle for reading: 1 when r is ready, 0 at the end. */
int bundler_source_next(struct source *s, struct bundle_reader *r)
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
			fputs(c->llvm >= LLVM_23 ? "Uncompressed bundle\n"
			      : "Uncompressed bundle.\n", stderr);
	} else {
		size_t left = s->file.len - s->pos;

		/* Zero padding may separate bundles, as in .hip_fatbin. */
		while (s->nseg && left && !s->file.data[s->pos]) {
			s->pos++;
			left--;
		}
		if (s->nseg && !left)
			return 0;
		if (s->nseg && bundle_is_binary(s->file.data + s->pos, left))
			return plain_after_ccob(s, r);
		if (s->nseg && (!ccob_is(s->file.data + s->pos, left) ||
				(s->method == CCOB_ZLIB &&
				 ccob_parse_header(s->file.data + s->pos, left,
						   &(struct ccob_header){ 0 },
						   &e) < 0))) {
			/* Bytes after the last CCOB: zlib ignores them, zstd
			 * does not (LLVM's own message); after a zlib stream,
			 * even bytes that begin "CCOB" but are no header. */
			if (s->method == CCOB_ZLIB)
				return 0;
			return -llvm_fail("Failed to decompress input: %s",
				bundler_llvm_words(c, "Could not decompress "
					"embedded file contents: Src size is "
					"incorrect"));
		}
		if (s->stream && s->streamable)
			return SOURCE_CCOB;
		if (bundler_decompress_next(s, path))
			return -1;
		s->nseg++;
	}
	/* LLVM picks the layout of o and a from the bytes it reads: a
	 * CCOB's, decompressed (an object in a CCOB is read as an object). */
	h = pick_handler(c->type, &s->seg, &comment);
	if (h == H_TEXT) {
		bundle_open_text(r, comment, s->seg.data, s->seg.len);
		return 1;
	}
	if (h == H_INVALID)
		return -handler_error(c->type);
	if ((h == H_OBJECT ? bundle_open_object(r, s->seg.data, s->seg.len, &e)
			   : bundle_open_binary(r, s->seg.data, s->seg.len, &e)) < 0) {
		/* LLVM's own messages keep LLVM's form; ours name the file. */
		if (e.llvm_words)
			return -llvm_fail("%s", e.msg);
		return -llvm_fail("'%s': %s", path, e.msg);
	}
	return 1;
}

void bundler_source_close(struct source *s)
{
	if (!s->c)
		return;
	if (s->seg.heap)
		io_in_close(&s->seg);
	io_in_close(&s->file);
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
			return llvm_fail("%s", e.msg);
	}
	return 0;
}

/* The bundle as one CCOB, and LLVM's report of it under -verbose. */
static int emit_compressed(const struct config *c,
			   const struct bundle_plan *plan,
			   const struct io_in *inputs, struct io_out *out)
{
	struct ccob_write_opts o = { .version = c->ccob_version,
				     .method = CCOB_ZSTD, .level = c->level };
	struct ccob_stats st;
	struct err e;

	llvm_timer_mark();
	if (ccob_write_plan(plan, inputs, out, &o, &st, &e) < 0)
		return llvm_fail("%s", e.msg);
	if (c->verbose) {
		char report[1024];

		if (c->llvm >= LLVM_23) {
			llvm_timer_add("Compression time");
			llvm_timer_add("Hash calculation time");
		}
		ccob_report_compress(report, sizeof(report), &st);
		fputs(report, stderr);
	}
	return 0;
}

/* LLVM compresses its (empty) in-memory bundle before llvm-objcopy writes
 * the object over it; -verbose shows that compression's report. */
static int report_empty_compression(const struct config *c)
{
	struct bundle_plan empty = { 0 };
	struct io_out scratch = { .fd = -1 };
	struct err e;
	int rc;

	if (io_scratch_open(&scratch, &e) < 0)
		return llvm_fail("%s", e.msg);
	rc = emit_compressed(c, &empty, NULL, &scratch);
	io_out_discard(&scratch);
	return rc;
}

/* -type=o with an object host: the host with one section per target. */
static int bundle_object(const struct config *c, const struct io_in *inputs)
{
	struct io_out out = { .fd = -1 };
	const struct io_in *host;
	struct err e;
	int rc = 1;

	if (c->host_index < 0) {
		/* LLVM 22 crashes here (no host input to add sections to). */
		llvm_fail("'%s': -type=%s with an object file needs a host "
			     "target to hold the bundle sections; for device "
			     "code only, use a binary type such as -type=bc",
			     c->inputs[0], c->type);
		goto out;
	}
	host = &inputs[c->host_index];
	if (coff_is_image(host->data, host->len)) {
		llvm_fail("'%s': a PE image: object bundles are made only in "
			     "COFF objects, not in executables or DLLs (LLVM 22 "
			     "has llvm-objcopy add the sections to the image)",
			     c->inputs[c->host_index]);
		goto out;
	}
	if (!elfscan_is_elf(host->data, host->len) &&
	    !coff_is_readable(host->data, host->len)) {
		llvm_fail("'%s': neither an ELF nor a COFF object: object "
			     "bundles are made only in those hosts",
			     c->inputs[c->host_index]);
		goto out;
	}
	for (size_t i = 0; i < c->ntargets; i++) {
		/* Two spellings of one target would be two sections of one
		 * name; llvm-objcopy refuses to set their flags twice (-###
		 * runs nothing, so nothing fails). */
		for (size_t k = 0; k < i && !c->print_cmds; k++)
			if (!strcmp(c->std_targets[k], c->std_targets[i])) {
				llvm_fail("'%s' and '%s' are the same target "
					     "'%s': an object bundle holds one "
					     "section per target", c->targets[k],
					     c->targets[i], c->std_targets[i]);
				goto out;
			}
	}
	if (c->compress && c->verbose && report_empty_compression(c))
		goto out;
	/* LLVM opens the output in place (raw_fd_ostream), then has
	 * llvm-objcopy write it, which makes its temporary beside it: in a
	 * directory that cannot be written, only -### (running nothing)
	 * succeeds. */
	if ((c->print_cmds ? io_out_open : io_out_open_replace)(
		    &out, c->outputs[0], &e) < 0) {
		llvm_fail("%s", e.msg);
		goto out;
	}
	if (c->print_cmds) {
		/* LLVM leaves the output it opened empty. */
		if (print_objcopy_add(c))
			goto out;
	} else if (bundle_write_object(host->data, host->len,
				       (const char *const *)c->std_targets,
				       inputs, c->ntargets, c->host_index,
				       &out, &e) < 0) {
		llvm_fail("'%s': %s", c->inputs[c->host_index], e.msg);
		goto out;
	} else {
		/* llvm-objcopy wrote LLVM's: it takes the host's mode. */
		io_out_mode_from(&out, host);
	}
	if (io_out_commit(&out, &e) < 0) {
		llvm_fail("%s", e.msg);
		goto out;
	}
	rc = 0;
out:
	io_out_discard(&out);
	return rc;
}

int bundler_bundle(const struct config *c)
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
		llvm_fail("out of memory");
		goto out;
	}
	for (; opened < c->ninputs; opened++) {
		if (io_in_open(&inputs[opened], c->inputs[opened], &e) < 0) {
			llvm_fail("%s", e.msg);
			goto out;
		}
		sizes[opened] = inputs[opened].len;
	}
	h = pick_handler(c->type, &inputs[c->hip_only ? 0 : c->host_index],
			 &comment);
	if (h == H_INVALID) {
		handler_error(c->type);
		goto out;
	}
	if (h == H_OBJECT) {
		rc = bundle_object(c, inputs);
		goto out;
	}
	if (h == H_BINARY && !c->align) {
		llvm_fail("invalid -bundle-align=0: the alignment must be at least 1");
		goto out;
	}
	if ((h == H_TEXT ? bundle_plan_text(comment,
					    (const char *const *)c->std_targets,
					    sizes, c->ntargets, &plan, &e)
			 : bundle_plan_binary((const char *const *)c->std_targets,
					      sizes, c->ntargets, c->align,
					      &plan, &e)) < 0) {
		llvm_fail("%s", e.msg);
		goto out;
	}
	/* In place where no file can be made beside it, as LLVM's
	 * raw_fd_ostream writes it. */
	if (io_out_open(&out, c->outputs[0], &e) < 0) {
		llvm_fail("%s", e.msg);
		goto out;
	}
	if (c->compress ? emit_compressed(c, &plan, inputs, &out)
			: emit_plan(&plan, inputs, &out))
		goto out;
	if (io_out_commit(&out, &e) < 0) {
		llvm_fail("%s", e.msg);
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

