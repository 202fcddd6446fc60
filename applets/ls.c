/* ls: list the device code in build artefacts, as a tree, from headers. */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applets.h"
#include "messages.h"
#include "opts.h"
#include "progress.h"
#include "ls_cuobjdump.h"
#include "ls_json.h"
#include "ls_kpack.h"
#include "ls_kernels.h"
#include "ls_text.h"
#include "ls_types.h"
#include "selection.h"
#include "../core/tree.h"
#include "../include/offcode.h"

static const char usage[] =
	"Usage: offload ls [OPTIONS] FILE...\n"
	"List the device code in each FILE (an ELF object, executable or shared\n"
	"library, a COFF object, a PE executable or DLL, an archive, an offload\n"
	"bundle, a CCOB, an offload package, an NVIDIA fatbin or an AMD kpack\n"
	"archive; any other file is listed as having no offload code) as a tree:\n"
	"file, section, container (bundle, CCOB, package, fatbin, kpack), code\n"
	"object with its target, its size\n"
	"and, where its bytes sit uncompressed in FILE, a file:// URI.  Only\n"
	"headers are read.  With -r, every file under each directory FILE, in\n"
	"name order.\n"
	"\n";

enum format { TEXT, JSON, ROC_OBJ, CUOBJDUMP };

#define fail(what, file, ...) applet_fail("ls", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("ls", __VA_ARGS__)

/* ---- roc-obj: roc-obj-ls's lines ---- */

/* Bundles are numbered from 1 across all files, as roc-obj-ls does:
 * *bundles counts them. */
static int print_roc_obj(const struct ls_list *l, const char *path,
			 unsigned *bundles)
{
	size_t skipped = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct ls_item *c = &l->v[i];

		if (c->kind != OFFCODE_NODE_CONTAINER)
			continue;
		/* roc-obj-ls lists bundles in the file; it does not look
		 * into CCOBs, packages, NVIDIA fatbins or kpack archives
		 * (the library says which it lists, and which it counts). */
		if (c->roc != OFFCODE_ROC_OBJ_LISTED) {
			if (c->roc == OFFCODE_ROC_OBJ_COUNTED)
				skipped += c->entries;
			continue;
		}
		++*bundles;
		for (size_t k = 1; k <= c->entries && i + k < l->n; k++) {
			const struct ls_item *en = &l->v[i + k];
			/* One line per entry, three fields, whatever the ID
			 * holds (a newline, a space, a NUL). */
			char *id = applet_escape(en->id ? en->id : "",
						 en->id_len, true);

			if (!id || !en->uri) {
				free(id);
				return fail("cannot list", path, "out of memory");
			}
			printf("%-8u%-40s%35s%s\n", *bundles, id, "file://",
			       en->uri + 7);
			free(id);
		}
	}
	if (skipped) {
		fflush(stdout);
		fprintf(stderr, "offload ls: warning: '%s': %zu code object%s in "
			"compressed bundles (CCOB) %s no file:// URI; use "
			"offload extract\n", path, skipped,
			skipped == 1 ? "" : "s", skipped == 1 ? "has" : "have");
	}
	return 0;
}

/* ---- the command ---- */

struct options {
	enum format format;
	/* The CCOB limits (OFFLOAD_CCOB_MAX_*; 0: the library's defaults),
	 * and whether the walk inflates (--verify, --kernels). */
	struct offcode_open_options open;
	bool inflate;
	bool kernels, verify, demangle, quiet, recursive;
	struct select targets;
	/* Across the files listed: roc-obj's bundles so far, and whether a
	 * JSON object came before (the next one is after a comma). */
	unsigned roc_bundles;
	bool json_started;
};

/* One line for the coded (NVIDIA) container at l->v[i] if any of its
 * entries does not decode (--verify): how many, which, and why the
 * first. */
static int nv_undecoded(const struct ls_list *l, size_t i, const char *path)
{
	const struct ls_item *first = NULL;
	size_t bad = 0, len = 0, n = l->v[i].entries;
	char list[64] = "";

	for (size_t k = i + 1; k <= i + n && k < l->n; k++) {
		const struct ls_item *en = &l->v[k];

		if (!en->why)
			continue;
		if (!bad++)
			first = en;
		if (len + 16 < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s%u", len ? ", " : "",
						en->index);
		else if (!strstr(list, "..."))
			strcpy(list + len, ", ...");
	}
	if (!bad)
		return 0;
	return fail("cannot decode", path, "%s #%u at offset %" PRIu64
		    ": %zu of %zu entr%s (%s); entry %u: %s", l->v[i].format,
		    l->v[i].number, l->v[i].offset, bad, n,
		    n == 1 ? "y" : "ies", list, first->index, first->why);
}

/* Item i's kernels cannot be read. */
static int kernels_unread(const struct ls_list *l, size_t i, const char *path)
{
	char *why = ls_text_unread(&l->v[i]);
	int rc = fail("cannot read kernels in", path, "%s",
		      why ? why : "out of memory");

	free(why);
	return rc;
}

/* A file's bytes, and the library's source of them (NULL for a
 * package's file, which the library hands over as bytes). */
struct input {
	const void *data;
	size_t len;
	offcode_source *src;
};

/* A directory among the files named (a shell glob's, say) is listed as
 * one and is no error; ls reads files, it does not search directories. */
static int list_directory(struct options *o, const char *path)
{
	char *name;

	switch (o->format) {
	case TEXT:
		if (!(name = applet_escape(path, strlen(path), false)))
			return fail("cannot list", path, "out of memory");
		printf("%s: directory: not searched\n", name);
		free(name);
		break;
	case JSON:
		if (o->json_started)
			putchar(',');
		o->json_started = true;
		ls_json_directory(path);
		break;
	case ROC_OBJ:
		break;
	case CUOBJDUMP:		/* cuobjdump fails on one */
		return fail("cannot list", path, "a directory (cuobjdump "
			    "fails too)");
	}
	return 0;
}

/* --json: printed as the walk goes (see ls_json.c); what failed said
 * after the file's object. */
static int list_json(struct options *o, const struct rows *rs,
		     const struct input *in,
		     const struct offcode_walk_options *wo, const char *path)
{
	struct ls_json js = { .rs = rs, .path = path, .data = in->data,
			      .len = in->len, .comma = o->json_started,
			      .verify = o->verify };
	offcode_error *werr = NULL;
	char *errs = NULL;
	size_t errs_len = 0;
	int walked, rc;

	js.errs = open_memstream(&errs, &errs_len);
	walked = offcode_walk_memory(in->data, in->len, path, wo,
				     ls_json_visit, &js, &werr);
	progress_end();
	rc = ls_json_end(&js, walked == 0);
	o->json_started |= js.printed;
	if (walked != 0)
		rc = fail("cannot list", path, "%s", werr ?
			  offcode_error_reason(werr) : "out of memory");
	else if (rc < 0)
		rc = fail("cannot list", path, "out of memory");
	offcode_error_free(werr);
	if (js.errs && !fclose(js.errs) && errs_len) {
		fflush(stdout);
		fputs(errs, stderr);
	}
	free(errs);
	return rc ? 1 : 0;
}

/* A failure the library recorded, as ls says it (below). */
static int fail_record(const char *what, const char *path,
		       const offcode_error *err);

/* The file path whose bytes in holds, listed. */
static int list_in(struct options *o, const char *path,
		   const struct input *in_);

/* The file a source holds, listed (src is closed). */
static int list_source(struct options *o, const char *path,
		       offcode_source *src)
{
	uint64_t len;
	struct input in = { .src = src };
	int rc;

	in.data = offcode_source_bytes(src, &len);
	in.len = (size_t)len;
	rc = list_in(o, path, &in);
	offcode_source_close(src);
	return rc;
}

static int list_one(struct options *o, const char *path)
{
	offcode_source *src;
	offcode_error *err = NULL;
	int rc;

	if (offcode_source_open_path(path, &src, &err)) {
		rc = err && offcode_error_errno(err) == EISDIR
			     ? list_directory(o, path)
			     : fail_record("cannot read", path, err);
		offcode_error_free(err);
		return rc;
	}
	return list_source(o, path, src);
}

static int list_in(struct options *o, const char *path,
		   const struct input *in_)
{
	struct rows rs = { .kernels = o->kernels, .demangle = o->demangle,
			   .verify = o->verify,
			   .targets = (struct select *)&o->targets,
			   .entries_as_text = o->format == TEXT,
			   .path = path };
	struct ls_list l = { .rs = &rs };
	struct offcode_walk_options wo = { .size = sizeof(wo) };
	offcode_error *werr = NULL;
	char *later = NULL;
	size_t later_len = 0;
	struct input in = *in_;
	int rc = 0;

	/* Headers are read where they are (the source's hint at its open);
	 * what the walk inflates (CCOBs, NVIDIA entries) is read ahead, and
	 * let go of after. */
	if (o->inflate && progress_on()) {
		progress_name(path);
		wo.progress = progress_callback;
	}
	if (o->format == CUOBJDUMP) {
		struct ls_cuobjdump_opts co = {
			.inflate = o->inflate, .verify = o->verify,
			.ccob_max_size = o->open.ccob_max_size,
			.ccob_max_ratio = o->open.ccob_max_ratio,
			.progress = wo.progress,
			.next_data = offcode_source_next_data,
			.reading = offcode_source_reading, .hint_ctx = in.src };

		/* Printed as the walk goes, nothing kept. */
		rc = ls_cuobjdump(&rs, in.data, in.len, &co, &werr);
		progress_end();
		if (rc < 0) {
			rc = fail("cannot list", path, "%s", werr ?
				  offcode_error_reason(werr) : "out of memory");
			offcode_error_free(werr);
		} else if (rc)
			rc = fail("cannot list", path, "no NVIDIA device code "
				  "(cuobjdump fails too)");
		goto out;
	}
	/* The public walk (include/offcode.h) over the source's bytes, with
	 * its hints. */
	wo.flags = (o->inflate ? OFFCODE_WALK_CODE : 0) |
		   (o->verify ? OFFCODE_WALK_VERIFY : 0);
	wo.ccob_max_size = o->open.ccob_max_size;
	wo.ccob_max_ratio = o->open.ccob_max_ratio;
	wo.next_data = offcode_source_next_data;
	wo.reading = offcode_source_reading;
	wo.hint_ctx = in.src;
	if (o->format == JSON) {
		rc = list_json(o, &rs, &in, &wo, path);
		goto out;
	}
	if ((o->kernels || o->verify) &&
	    !(rs.later = open_memstream(&later, &later_len))) {
		rc = fail("cannot list", path, "out of memory");
		goto out;
	}
	if ((rc = offcode_walk_memory(in.data, in.len, path, &wo,
				      ls_text_visit, &l, &werr)) != 0) {
		progress_end();
		rc = fail("cannot list", path, "%s", werr ?
			  offcode_error_reason(werr) : "out of memory");
		offcode_error_free(werr);
		goto out;
	}
	if (o->targets.n)
		ls_text_drop_unselected(&l);
	progress_end();
	/* A file that is itself a code object (one offload extract wrote,
	 * say) is described, and with --kernels has its kernels listed. */
	if (l.n == 1 && !ls_text_has_children(&l, 0) &&
	    (!ls_text_kernels_row(&l.v[0]) ||
	     ls_code_kernels(l.v[0].k, in.data, in.len) < 0)) {
		rc = fail("cannot list", path, "out of memory");
		goto out;
	}
	switch (o->format) {
	case CUOBJDUMP:		/* printed above */
		break;
	case TEXT:
		ls_text(&l, path);
		rc |= ls_kpack_host(path, in.data, in.len,
				    &(struct ls_kpack_opts){
					    .verify = o->verify,
					    .sel = &o->targets, .rs = &rs },
				    &ls_kpack_text, &rs);
		break;
	case ROC_OBJ:
		rc = print_roc_obj(&l, path, &o->roc_bundles);
		break;
	case JSON:		/* printed as walked */
		break;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].hash_why)
			rc = fail("bad hash in", path, "%s", l.v[i].hash_why);
		if (l.v[i].kind == OFFCODE_NODE_CONTAINER && l.v[i].coded)
			rc |= nv_undecoded(&l, i, path);
		if (l.v[i].k && l.v[i].k->error && o->kernels)
			rc = kernels_unread(&l, i, path);
	}
	if (rs.later && !fclose(rs.later) && later_len) {
		fflush(stdout);
		fputs(later, stderr);
		rc = 1;
	}
	rs.later = NULL;
out:
	if (rs.later)
		fclose(rs.later);
	free(later);
	ls_list_free(&l);
	return rc;
}

/* ---- packages and images, through the library's layer walk ---- */

/* A failure the library recorded, as ls says it: the file the record
 * names (what was opened, unless it names another) and why. */
static int fail_record(const char *what, const char *path,
		       const offcode_error *err)
{
	const char *epath = err ? offcode_error_path(err) : "";

	if (!err)
		return fail(what, path, "out of memory");
	return applet_fail("ls", what, err_display_path(epath[0] ? epath
							       : path, 0),
			   "%s", offcode_error_reason(err));
}

/* How ls opens a package or an image: its layers walked by ls, a file at
 * a time (each file opened as the package was, its damage said by ls's
 * own walk of its bytes). */
static struct offcode_open_options package_options(const struct options *o)
{
	return (struct offcode_open_options){
		.size = sizeof(struct offcode_open_options),
		.flags = OFFCODE_OPEN_STREAM | OFFCODE_OPEN_PARTIAL,
		.ccob_max_size = o->open.ccob_max_size,
		.ccob_max_ratio = o->open.ccob_max_ratio,
	};
}

struct layer_list {
	struct options *o;
	int rc;
};

/* A file of a layer that holds offload code (or is damaged), listed as
 * "<layer digest>/<its name>" or "<package>/<its name>", the library's
 * name for it. */
static int layer_member(void *ctx, const struct offcode_member *m,
			offcode_artifact *file, const offcode_error *err)
{
	struct layer_list *ll = ctx;
	struct input in = { 0 };
	uint64_t len;

	(void)m;
	if (!file) {
		ll->rc |= fail_record("cannot list", "?", err);
		return err ? 0 : -1;
	}
	if (!err && !offcode_container_count(file))
		return 0;	/* no offload code */
	in.data = offcode_artifact_bytes(file, &len);
	in.len = (size_t)len;
	ll->rc |= list_in(ll->o, offcode_artifact_path(file), &in);
	return 0;
}

/* Every layer of a, which path names (what: "cannot read image"...). */
static int list_layers(struct options *o, const char *what, const char *path,
		       offcode_artifact *a)
{
	struct layer_list ll = { .o = o };

	for (size_t i = 0; i < offcode_layer_count(a); i++) {
		int rc = offcode_layer_walk(a, i, 0, layer_member, &ll, NULL);

		if (rc == -1)
			return fail("cannot list", path, "out of memory") | ll.rc;
		if (rc) {
			ll.rc |= fail_record(what, path, offcode_last_error(a));
			break;
		}
	}
	return ll.rc;
}

/* An image, or a package (a file named path, or its bytes in, which
 * stay the caller's), as the library opens it. */
static int list_package(struct options *o, const char *what,
			const char *path, const struct input *in)
{
	struct offcode_open_options po = package_options(o);
	offcode_artifact *a = NULL;
	offcode_error *err = NULL;
	int rc;

	if (in) {
		po.flags |= OFFCODE_OPEN_BORROW;
		rc = offcode_open_memory(in->data, in->len, path, &po, &a, &err);
	} else {
		rc = offcode_open_path(path, &po, &a, &err);
	}
	if (rc) {
		rc = fail_record(what, path, err);
		offcode_error_free(err);
		offcode_close(a);
		return rc;
	}
	rc = list_layers(o, what, path, a);
	offcode_close(a);
	return rc;
}

/* ---- -r: every file under a directory ---- */

/* A file the walk met, reached again through the directories walked
 * (tree_file_open: a FIFO or device swapped in is neither waited on nor
 * read), listed as a package or as any other file. */
static int list_tree_file(struct options *o, const struct tree *t,
			  struct tree_cursor *cur, const struct tree_file *f)
{
	offcode_source *src;
	offcode_error *err = NULL;
	const void *bytes;
	struct stat out;
	struct err e;
	uint64_t len;
	int fd, rc;

	/* The listing itself, when it is written into the tree (ls -r . >
	 * list), is passed by, as tar passes by its archive. */
	if (fstat(STDOUT_FILENO, &out) == 0 && S_ISREG(out.st_mode) &&
	    out.st_dev == f->dev && out.st_ino == f->ino)
		return 0;
	if ((fd = tree_file_open(t, cur, f, &e)) < 0)
		return applet_fail_err("ls", "cannot read", f->path, 0, &e);
	rc = offcode_source_open_fd(fd, f->path, &src, &err);
	close(fd);
	if (rc) {
		rc = fail_record("cannot read", f->path, err);
		offcode_error_free(err);
		return rc;
	}
	bytes = offcode_source_bytes(src, &len);
	if (offcode_memory_kind(bytes, (size_t)len, f->path)) {
		struct input in = { bytes, (size_t)len, src };

		rc = list_package(o, "cannot read package", f->path, &in);
		offcode_source_close(src);
		return rc;
	}
	return list_source(o, f->path, src);
}

/* Every regular file under path (path itself when it is one), in the
 * walk's order: each directory's names sorted, a directory's files where
 * its name sorts; a file of several names once, by the first; symbolic
 * links under path not followed, devices, FIFOs and sockets passed by,
 * and so is standard output's file. */
static int list_tree(struct options *o, const char *path)
{
	struct tree t = { 0 };
	struct tree_cursor cur = TREE_CURSOR_INIT;
	int rc = 0;

	if (tree_add(&t, path, true) < 0 || tree_links(&t) < 0) {
		tree_free(&t);
		return fail("cannot read", path, "out of memory");
	}
	/* What could not be walked first, as du says it. */
	for (size_t i = 0; i < t.nerr; i++)
		rc = applet_fail_err("ls", "cannot read", t.err[i].path, 0,
				     &t.err[i]);
	for (size_t i = 0; i < t.n; i++)
		rc |= list_tree_file(o, &t, &cur, &t.file[i]);
	tree_cursor_close(&cur);
	tree_free(&t);
	return rc;
}

/* ---- options ---- */

static const struct opt_choice formats[] = {
	{ "text", TEXT }, { "json", JSON }, { "roc-obj", ROC_OBJ },
	{ "cuobjdump", CUOBJDUMP }, { NULL, 0 },
};

static int set_verify(void *options, const char *value)
{
	struct options *o = options;

	(void)value;
	o->verify = o->inflate = true;
	return 0;
}

static int set_kernels(void *options, const char *value)
{
	struct options *o = options;

	(void)value;
	/* The code inside CCOBs and NVIDIA fatbins is needed. */
	o->kernels = o->inflate = true;
	return 0;
}

static int set_no_demangle(void *options, const char *value)
{
	(void)value;
	((struct options *)options)->demangle = false;
	return 0;
}

#define AT(member) offsetof(struct options, member)

static const struct opt rows[] = {
	OPT_CHOICE(0, "format", "FORMAT",
		   "text (the default), json, roc-obj (the lines\n"
		   "ROCm's roc-obj-ls prints, bundle entries only)\n"
		   "or cuobjdump (the lines cuobjdump -lelf -lptx\n"
		   "prints, NVIDIA entries only)", AT(format), formats,
		   "unknown format '%s' (text, json, roc-obj or cuobjdump)"),
	OPT_SET_INT(0, "json", "same as --format=json", AT(format), JSON),
	OPT_CALLBACK(0, "verify", OPT_NO_VALUE, NULL,
		     "inflate every CCOB whole and check its hash,\n"
		     "and decode every NVIDIA entry (a progress line\n"
		     "on a terminal); for a kpack-split binary,\n"
		     "check that every wrapper's code object is in\n"
		     "every archive found, whole, for its target", set_verify),
	OPT_FLAG('q', "quiet", "no progress line", AT(quiet)),
	OPT_FLAG('r', "recursive", "list every file under each directory FILE, in\n"
		 "name order (packages as packages; symbolic\n"
		 "links under it are not followed, devices,\n"
		 "FIFOs and sockets passed by)", AT(recursive)),
	OPT_CALLBACK(0, "kernels", OPT_NO_VALUE, NULL,
		     "list each code object's kernels and what each\n"
		     "uses (registers, LDS or shared memory, scratch\n"
		     "or local memory, occupancy); inflates CCOBs but\n"
		     "checks their hashes only with --verify", set_kernels),
	OPT_CALLBACK(0, "no-demangle", OPT_NO_VALUE, NULL,
		     "print kernel names as the symbols are", set_no_demangle),
	OPT_SELECT('t', "target", "PATTERN",
		   "only the code objects for PATTERN (a target ID\n"
		   "as a GPU loads it, a bundle ID or a glob;\n"
		   "comma-separated, repeatable; see offload(1));\n"
		   "a container then counts the entries listed", AT(targets)),
};

static const struct opts table = {
	.applet = "ls", .usage = usage, .column = 26, OPTS_ROWS(rows),
	.no_operand = "no input file",
	.ccob_env = true, .ccob_at = AT(open), .ccob_offcode = true,
};

/* ls_main, with the options it fills and frees. */
static int ls_run(struct options *o, int argc, char **argv)
{
	offcode_error *err = NULL;
	int rc, first;

	if ((rc = opts_parse(&table, o, argc, argv, &first)) >= 0)
		return rc;
	rc = 0;
	/* --kernels inflates CCOBs for their code, not to check them: LLVM
	 * does not check a CCOB's hash either, and MD5 would take most of
	 * the time (issue 18).  Only --verify checks it
	 * (OFFCODE_WALK_VERIFY).  The JSON says what each bundle entry's
	 * code is (offcode_entry_image_kind reads its first bytes); the
	 * other formats read headers only. */
	progress_init("ls", o->quiet);
	/* Nothing goes out over an input (the JSON's head would). */
	for (int i = first; i < argc; i++)
		if (offcode_source_check_stdout(argv[i], &err)) {
			rc = fail_record("cannot read", argv[i], err);
			offcode_error_free(err);
			return rc;
		}
	if (o->format == JSON)
		fputs("{\"version\":5,\"files\":[", stdout);
	for (int i = first; i < argc; i++) {
		const char *kind = offcode_path_kind(argv[i]);

		rc |= kind && !strcmp(kind, "image")
			      ? list_package(o, "cannot read image", argv[i],
					     NULL)
		      : kind ? list_package(o, "cannot read package", argv[i],
					    NULL)
		      : o->recursive ? list_tree(o, argv[i])
				     : list_one(o, argv[i]);
	}
	if (o->format == JSON)
		fputs("]}\n", stdout);
	return rc | applet_select_unmatched("ls", "--target", NULL, &o->targets);
}

int ls_main(int argc, char **argv)
{
	struct options o = {
		.format = TEXT,
		.demangle = true,
		.open = { .size = sizeof(struct offcode_open_options) },
	};
	int rc = ls_run(&o, argc, argv);

	select_free(&o.targets);
	return rc;
}
