/* du: what each GPU target costs in a set of files and directories, read
 * from headers as ls reads them, through liboffcode (include/offcode.h)
 * alone: a client of the library like any other; the files found by
 * core/tree.h. */
#include <errno.h>
#include <fcntl.h>
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
#include "selection.h"
#include "../core/tree.h"
#include "../include/offcode.h"
#include "du_sums.h"
#include "du_layers.h"

static const char usage[] =
	"Usage: offload du [OPTIONS] PATH...\n"
	"       offload du [OPTIONS] IMAGE\n"
	"       offload du [OPTIONS] PKG\n"
	"What each GPU target's device code costs in the files named and under\n"
	"the directories named: for each target ID the entries name (gfx90a,\n"
	"gfx90a:xnack+, sm_80, compute_80) the bytes stored, the bytes of code\n"
	"(decompressed, as offload extract writes them), entries and files; then\n"
	"host entries, the bytes that are no device code, and the total.  Read\n"
	"from headers alone; a file hard-linked twice counts once, symbolic\n"
	"links are not followed.  IMAGE, a container image (oci:DIR[:TAG],\n"
	"oci-archive:FILE, docker-archive:FILE, or a path that is one): the same\n"
	"for each layer's files, then for the root the layers make unpacked.\n"
	"PKG, a Debian package, a Python wheel or a conda package: the same\n"
	"for its files.\n"
	"\n";

#define fail(what, file, ...) applet_fail("du", what, file, __VA_ARGS__)
#define usage_error(...) applet_usage_error("du", __VA_ARGS__)

static int cmp_file(const void *pa, const void *pb)
{
	const struct tree_file *a = pa, *b = pb;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

/* A kpack-split binary's code is in its archives: those its search paths
 * find outside the files walked are counted too, after them, each once
 * (rocm-kpack, docs/multi_arch_packaging_with_kpack.md, "Binary
 * Conversion"; offcode_kpack_archives).  -1 when out of memory. */
static int split_archives(struct options *o, offcode_artifact *a)
{
	const char *const *paths;
	size_t n;
	int rc = 0;

	/* A damaged reference is ls --verify's to name; out of memory is
	 * du's own failure. */
	if (offcode_kpack_archives(a, &paths, &n))
		return offcode_error_code(offcode_last_error(a)) ==
		       OFFCODE_NOMEM ? -1 : 0;
	for (size_t i = 0; i < n && !rc; i++) {
		struct tree_file key = { 0 }, *v;
		struct stat st;
		bool known = false;

		if (stat(paths[i], &st) < 0 || !S_ISREG(st.st_mode))
			continue;	/* ls --verify says so */
		key.dev = st.st_dev;
		key.ino = st.st_ino;
		known = bsearch(&key, o->seen, o->nseen, sizeof(key),
				cmp_file);
		for (size_t k = 0; k < o->nextra && !known; k++)
			known = !cmp_file(&key, &o->extra[k]);
		if (known)
			continue;
		if (!(v = realloc(o->extra, (o->nextra + 1) * sizeof(*v))) ||
		    !(key.path = strdup(paths[i]))) {
			if (v)
				o->extra = v;
			rc = -1;
			break;
		}
		key.size = (uint64_t)st.st_size;
		o->extra = v;
		o->extra[o->nextra++] = key;
	}
	return rc;
}

/* An archive a split binary found, outside the tree: the regular file
 * that was looked at (a FIFO put there is neither waited on nor read).
 * Its descriptor, or -1 with e filled. */
static int open_extra(const struct tree_file *f, struct err *e)
{
	int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return err_sys(e, f->path, errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_dev != f->dev || st.st_ino != f->ino) {
		close(fd);
		return err_code_file(e, ERR_CHANGED, 0, f->path, "changed "
				     "since it was found");
	}
	return fd;
}

/* Whether a is a package (input 0's format). */
static bool is_package(const offcode_artifact *a)
{
	const char *f;

	if (!offcode_input_count(a))	/* (damaged before its first byte) */
		return false;
	f = offcode_input_format(offcode_input_at(a, 0));
	return !strcmp(f, "deb") || !strcmp(f, "wheel") || !strcmp(f, "conda");
}

/* A file walked (extra false: else one a split binary found). */
static int du_file(struct options *o, const struct tree_file *f, bool extra)
{
	struct scan sc = { .o = o,
			   .file = (size_t)(o->files + o->package_numbers) };
	offcode_artifact *a = NULL;
	offcode_error *err = NULL;
	struct err te;
	int rc = 0, fd;

	o->total += f->size;
	if (extra)
		fd = open_extra(f, &te);
	else
		fd = tree_file_open(o->tree, &o->cur, f, &te);
	if (fd >= 0) {
		rc = offcode_open_fd(fd, f->path, &o->open, &a, &err);
		close(fd);
	}
	if (fd < 0 || !a) {
		o->other_files++;
		/* (An image archive, which the library reads by its path
		 * alone: a file with no device code, as a tar is.) */
		if (fd >= 0 && err && offcode_error_code(err) ==
				      OFFCODE_UNSUPPORTED) {
			offcode_error_free(err);
			return 0;
		}
		o->errors++;
		if (fd < 0)
			rc = applet_fail_err("du", "cannot read", f->path, 0,
					     &te);
		else
			rc = du_fail("cannot read", f->path, NULL, err);
		offcode_error_free(err);
		return rc;
	}
	/* A package counts as the tree it unpacks to. */
	if (!extra && is_package(a)) {
		rc = du_tree_package(o, f->path, a, err);
		offcode_error_free(err);
		offcode_close(a);
		return rc;
	}
	rc = du_walk(o, &sc, f->path, a, err);
	if (!err && split_archives(o, a) < 0)
		rc = fail("cannot read", f->path, "out of memory");
	offcode_error_free(err);
	offcode_close(a);
	return rc;
}

/* ---- options ---- */

#define AT(member) offsetof(struct options, member)

static const struct opt rows[] = {
	OPT_SELECT('t', "target", "PATTERN",
		   "only the targets PATTERN takes (a target ID as\n"
		   "a GPU loads it, a bundle ID, a glob or native;\n"
		   "comma-separated, repeatable)", AT(targets)),
	OPT_SELECT('k', "keep", "TARGETS",
		   "also say what offload prune --keep TARGETS\n"
		   "would drop", AT(keep)),
	OPT_SELECT('d', "drop", "PATTERNS",
		   "the same for prune --drop PATTERNS", AT(drop)),
	OPT_FLAG(0, "exact", "--keep and --drop as prune --exact takes them",
		 AT(keep.exact)),
	OPT_FLAG(0, "json", "one JSON object (schema in offload-du(1))",
		 AT(json)),
	OPT_FLAG('q', "quiet", "no progress line (shown on a terminal)",
		 AT(quiet)),
};

static const struct opts table = {
	.applet = "du", .usage = usage, .column = 26, OPTS_ROWS(rows),
	.no_operand = "no input file",
	.ccob_env = true, .ccob_at = AT(open), .ccob_offcode = true,
};

static int du_run(struct options *o, int argc, char **argv)
{
	struct tree tree = { 0 };
	const char *kind;
	struct err e;
	int rc, first;

	if ((rc = opts_parse(&table, o, argc, argv, &first)) >= 0)
		return rc;
	rc = 0;
	o->drop.exact = o->keep.exact;	/* --exact */
	if (o->keep.n && o->drop.n)
		return usage_error("say what to keep (--keep) or what to drop "
				   "(--drop), not both");
	if (select_check_ids(&o->keep, &e) < 0 ||
	    select_check_ids(&o->drop, &e) < 0)
		return usage_error("%s %s", o->keep.n ? "--keep" : "--drop",
				   e.msg);
	kind = argc - first == 1 ? offcode_path_kind(argv[first]) : NULL;
	if (kind && !strcmp(kind, "image"))
		return du_image(o, argv[first]);
	if (kind)
		return du_package(o, argv[first]);
	for (int i = first; i < argc; i++)
		if (tree_add(&tree, argv[i], true) < 0)
			goto oom;
	if (tree_links(&tree) < 0)
		goto oom;
	o->tree = &tree;
	for (size_t i = 0; i < tree.nerr; i++) {
		rc = applet_fail_err("du", "cannot read", tree.err[i].path, 0,
				     &tree.err[i]);
		o->errors++;
	}
	/* The line counts files: "offload du: DIR: 40%". */
	progress_init("du", o->quiet);
	progress_name(argv[first]);
	if (tree.n && !(o->seen = malloc(tree.n * sizeof(*o->seen))))
		goto oom;
	if (tree.n) {	/* (qsort of no array: undefined) */
		memcpy(o->seen, tree.file, tree.n * sizeof(*o->seen));
		o->nseen = tree.n;
		qsort(o->seen, o->nseen, sizeof(*o->seen), cmp_file);
	}
	for (size_t i = 0; i < tree.n; i++) {
		o->files++;
		progress_show(i, tree.n);
		rc |= du_file(o, &tree.file[i], false);
	}
	/* (Archives are no split binaries: none is added from here.) */
	for (size_t i = 0; i < o->nextra; i++) {
		o->files++;
		rc |= du_file(o, &o->extra[i], true);
	}
	progress_show(tree.n, tree.n);
	progress_end();
	if (o->n)	/* (qsort of no array: undefined) */
		qsort(o->t, o->n, sizeof(*o->t), du_by_stored);
	if (o->json)
		du_print_json(o, "}\n");
	else
		du_print_text(o);
	rc |= applet_select_unmatched("du", "--target", NULL, &o->targets);
	tree_cursor_close(&o->cur);
	tree_free(&tree);
	return rc;
oom:
	tree_cursor_close(&o->cur);
	tree_free(&tree);
	return fail("cannot read", argv[first], "out of memory");
}

int du_main(int argc, char **argv)
{
	struct options o = {
		.cur = TREE_CURSOR_INIT,
		/* (CCOB limits 0: the library's defaults, the tool's.) */
		.open = { .size = sizeof(struct offcode_open_options),
			  .flags = OFFCODE_OPEN_STREAM | OFFCODE_OPEN_PARTIAL |
				   OFFCODE_OPEN_HEADERS_ONLY },
	};
	int rc = du_run(&o, argc, argv);

	for (size_t i = 0; i < o.n; i++)
		free(o.t[i].name);
	free(o.t);
	for (size_t i = 0; i < o.nextra; i++)
		free(o.extra[i].path);
	free(o.extra);
	free(o.seen);
	select_free(&o.targets);
	select_free(&o.keep);
	select_free(&o.drop);
	return rc;
}
