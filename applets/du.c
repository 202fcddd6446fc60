/* du: what each GPU target costs in a set of files and directories, read
 * from headers as ls reads them (formats/inspect.h), the files found by
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
#include "../core/io_in.h"
#include "../core/json.h"
#include "../core/tree.h"
#include "../ops/hosts.h"
#include "../ops/conda.h"
#include "../ops/deb.h"
#include "../ops/image.h"
#include "../ops/wheel.h"
#include "../ops/inspect.h"
#include "../ops/kinds.h"
#include "../ops/kpack_find.h"
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
 * Conversion"; ops/kpack_find.h).  -1 when out of memory. */
static int split_archives(struct options *o, const char *path,
			  const struct io_in *in)
{
	struct kpack_find h;
	struct err e;
	int split = kpack_find_open(&h, path, in->data, in->len, &e);
	/* A damaged reference is ls --verify's to name; out of memory is
	 * du's own failure. */
	int rc = split < 0 && e.code == ERR_NOMEM ? -1 : 0;

	if (split > 0)
		for (size_t i = 0; i < h.na && !rc; i++) {
			struct tree_file key = { 0 }, *v;
			struct stat st;
			bool known = false;

			if (stat(h.a[i].path, &st) < 0 || !S_ISREG(st.st_mode))
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
			    !(key.path = strdup(h.a[i].path))) {
				if (v)
					o->extra = v;
				rc = -1;
				break;
			}
			key.size = (uint64_t)st.st_size;
			o->extra = v;
			o->extra[o->nextra++] = key;
		}
	kpack_find_close(&h);
	return rc;
}

/* An archive a split binary found, outside the tree: the regular file
 * that was looked at (a FIFO put there is neither waited on nor read). */
static int open_extra(struct io_in *in, const struct tree_file *f,
		      struct err *e)
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
	return io_in_open_fd(in, fd, f->path, e);
}

/* A file walked (extra false: else one a split binary found). */
static int du_file(struct options *o, const struct tree_file *f, bool extra)
{
	struct scan sc = { .o = o,
			   .file = (size_t)(o->files + o->package_numbers) };
	struct io_in in;
	struct err e;
	int rc = 0, fd = -1, opened;

	o->total += f->size;
	if (extra)
		opened = open_extra(&in, f, &e);
	else if ((fd = tree_file_open(o->tree, &o->cur, f, &e)) >= 0)
		opened = io_in_open_fd(&in, fd, f->path, &e);
	else
		opened = -1;
	if (opened < 0) {
		o->errors++;
		o->other_files++;
		return applet_fail_err("du", "cannot read", f->path, 0, &e);
	}
	/* A package counts as the tree it unpacks to. */
	if (!extra && du_tree_package_is(f->path, &in)) {
		return du_tree_package(o, f->path, &in);
	}
	io_in_hint(&in, 0, in.len, IO_IN_SPARSE);
	rc = du_walk(o, &sc, f->path, &in);
	if (split_archives(o, f->path, &in) < 0)
		rc = fail("cannot read", f->path, "out of memory");
	io_in_close(&in);
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
	.ccob_env = true, .ccob_at = AT(walk.ccob),
};

static int du_run(struct options *o, int argc, char **argv)
{
	struct tree tree = { 0 };
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
	if (argc - first == 1 && image_is(argv[first]))
		return du_image(o, argv[first]);
	if (argc - first == 1 && (deb_is(argv[first]) ||
				   wheel_is(argv[first]) ||
				   conda_is(argv[first])))
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
		.walk = {
			.accept_other = true,
			.ccob = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				  .max_size = CCOB_DEFAULT_MAX_SIZE },
			.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
				     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
		},
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
