/* kpack: AMD's kpack installs written: `kpack split` turns an install tree
 * of fat binaries into host binaries and per-GPU archives (ops/kpack_split.h),
 * `kpack join` a split host binary into a fat one again (kpack_join.c).
 * A small table of subcommands, as git dispatches its builtins. */
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "applets.h"
#include "kpack_join.h"
#include "kpack_outdir.h"
#include "messages.h"
#include "opts.h"
#include "../ops/kpack_artifact.h"
#include "../ops/kpack_databases.h"
#include "../ops/kpack_split.h"

static const char usage[] =
	"Usage: offload kpack COMMAND [OPTIONS] ...\n"
	"Write AMD kpack installs (device code in per-GPU .kpack archives).\n"
	"\n"
	"  split [OPTIONS] -o OUT TREE|ARTIFACT|--batch DIR\n"
	"          each fat binary's code objects moved into NAME_<gfx>.kpack,\n"
	"          one archive per GPU target (TOC keys <prefix>/<path>#<index>),\n"
	"          and the binary rewritten to find them (HIPK wrappers,\n"
	"          .rocm_kpack_ref), as AMD's rocm-kpack splitter does: its\n"
	"          archives, manifests and database files byte for byte\n"
	"  join [-t TARGETS] -o OUT HOST...\n"
	"          each split HOST a fat binary again, its code objects (those\n"
	"          of TARGETS) read from the archives it finds, for a HIP runtime\n"
	"          without kpack support\n"
	"\n";

/* Its own options are the common ones, before a command. */
static const struct opts table = {
	.applet = "kpack", .usage = usage, .column = 26,
};

static const char split_usage[] =
	"Usage: offload kpack split [OPTIONS] -o OUT TREE\n"
	"   or: offload kpack split [OPTIONS] -o OUT ARTIFACT\n"
	"   or: offload kpack split [OPTIONS] --batch -o OUT DIR\n"
	"Split as AMD's rocm-kpack splitter (split_artifacts) splits, into the new\n"
	"directory OUT: an install tree TREE (an artifact of the one prefix NAME),\n"
	"an artifact directory of ROCm's build (ARTIFACT/artifact_manifest.txt\n"
	"lists its prefixes; NAME, the artifact prefix, is its name up to the last\n"
	"'_'), or each artifact directory in DIR.  Each fat host binary (ELF with\n"
	".hip_fatbin) loses its device code and gets HIPK wrappers and a\n"
	".rocm_kpack_ref naming <prefix>/<path> and the search path\n"
	"[../...].kpack/NAME_@GFXARCH@.kpack; each GPU target's code objects go\n"
	"into NAME_<gfx>.kpack, in .kpack/ of the first prefix (in byte order)\n"
	"that has code for it.  Per target (the default for artifacts): the\n"
	"splitter's layout, OUT/NAME_generic/<prefix>/... (every other file and\n"
	"link) and OUT/NAME_<gfx>/<prefix>/... (the archive and the database\n"
	"files of <gfx>), each with its artifact_manifest.txt.  Installed (the\n"
	"default for a TREE): all of them put together, OUT/<prefix>/... (a\n"
	"TREE's files at OUT/<path>).  Order: files depth first, names in byte\n"
	"order; a binary's bundles in file order.  Nothing is written unless all\n"
	"is.\n"
	"\n";

#define usage_error(...) applet_usage_error("kpack split", __VA_ARGS__)

static const struct opt_choice schemes[] = {
	{ "none", KPACK_NONE }, { "zstd", KPACK_ZSTD }, { NULL, 0 },
};

enum { LAYOUT_BY_INPUT, LAYOUT_PER_TARGET, LAYOUT_INSTALLED };

/* What the options set. */
struct split_args {
	struct kpack_split_opts o;
	int layout;
	bool batch;
	const struct kpack_database *db[16];
	size_t ndb;
};

#define AT(member) offsetof(struct split_args, member)

/* --split-databases: names, comma-separated, added in order. */
static int add_databases(void *options, const char *value)
{
	struct split_args *a = options;
	const char *p = value;

	do {
		size_t len = strcspn(p, ",");
		const struct kpack_database *d = NULL;

		for (size_t i = 0; i < kpack_ndatabases; i++)
			if (strlen(kpack_databases[i].name) == len &&
			    !strncmp(kpack_databases[i].name, p, len))
				d = &kpack_databases[i];
		if (!d)
			return usage_error("--split-databases takes aotriton, "
					   "hipblaslt, miopen or rocblas, not "
					   "'%.*s'", (int)len, p);
		if (a->ndb == sizeof(a->db) / sizeof(a->db[0]))
			return usage_error("--split-databases: more than %zu "
					   "names", a->ndb);
		a->db[a->ndb++] = d;
		p += len + (p[len] == ',');
	} while (*p);
	return 0;
}

static const struct opt split_rows[] = {
	OPT_STRING('o', "output", "OUT",
		   "the directory to make (it may exist, empty)", AT(o.out)),
	OPT_STRING(0, "prefix", "NAME",
		   "the artifact prefix: archive names (default:\n"
		   "TREE's last component, ARTIFACT's name up to its\n"
		   "last '_')", AT(o.name)),
	OPT_FLAG(0, "batch", "the operand is a directory of artifact\n"
		 "directories, each split (per target)", AT(batch)),
	OPT_SET_INT(0, "per-target", "the splitter's layout: a generic artifact\n"
		    "and one per GPU target (the default for\n"
		    "artifacts)", AT(layout), LAYOUT_PER_TARGET),
	OPT_SET_INT(0, "installed", "all artifacts put together (the default for\n"
		    "a TREE)", AT(layout), LAYOUT_INSTALLED),
	OPT_CALLBACK(0, "split-databases", OPT_VALUE, "NAMES",
		     "move these kernel databases into the artifact\n"
		     "of their GPU: aotriton, hipblaslt, miopen,\n"
		     "rocblas (comma-separated, repeatable; per\n"
		     "target)", add_databases),
	OPT_CHOICE(0, "compress", "SCHEME",
		   "none (stored as they are, the splitter's\n"
		   "default) or zstd (zstd-per-kernel, level 3)", AT(o.scheme),
		   schemes, "--compress takes none or zstd, not '%s'"),
};

static const struct opts split_table = {
	.applet = "kpack split", .usage = split_usage, .column = 26,
	OPTS_ROWS(split_rows), .ccob_env = true, .ccob_at = AT(o.ccob),
};

/* Whether dir holds an artifact_manifest.txt. */
static bool has_manifest(const char *dir)
{
	char *p = malloc(strlen(dir) + sizeof("/" KPACK_MANIFEST));
	struct stat sb;
	bool yes;

	if (!p)
		return false;
	sprintf(p, "%s/%s", dir, KPACK_MANIFEST);
	yes = stat(p, &sb) == 0;
	free(p);
	return yes;
}

static int split_main(int argc, char **argv)
{
	struct split_args a = {
		.o = {
			.scheme = KPACK_NONE,
			.ccob = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				  .max_size = CCOB_DEFAULT_MAX_SIZE },
			.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
				     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
		},
	};
	struct kpack_split_opts *o = &a.o;
	struct kpack_split_stats st;
	char *tree = NULL, *rtree = NULL, *base = NULL;
	struct err e;
	int rc = 2, first;

	if ((rc = opts_parse(&split_table, &a, argc, argv, &first)) >= 0)
		return rc;
	rc = 2;
	if (!o->out)
		return usage_error("no output directory (-o OUT)");
	if (first == argc)
		return usage_error("no input tree");
	if (argc - first > 1)
		return usage_error("one input tree, not %d", argc - first);
	if (a.batch && o->name)
		return usage_error("--prefix with --batch: each artifact's "
				   "prefix is its name's");
	if (a.batch && a.layout == LAYOUT_INSTALLED)
		return usage_error("--installed with --batch: the artifacts' "
				   "outputs would meet");
	if (a.ndb && a.layout == LAYOUT_INSTALLED)
		return usage_error("--split-databases with --installed: "
				   "database files move between per-target "
				   "artifacts alone");
	if (!(tree = strdup(argv[first])))
		goto oom;
	for (size_t n = strlen(tree); n > 1 && tree[n - 1] == '/'; n--)
		tree[n - 1] = 0;
	o->tree = tree;
	if (!(rtree = realpath(tree, NULL))) {
		rc = applet_fail("kpack split", "cannot read", tree, "%s",
				 strerror(errno));
		goto out;
	}
	o->input = a.batch ? KPACK_INPUT_BATCH : has_manifest(tree) ?
		   KPACK_INPUT_ARTIFACT : KPACK_INPUT_TREE;
	o->per_target = a.layout == LAYOUT_PER_TARGET ||
			(a.layout == LAYOUT_BY_INPUT &&
			 o->input != KPACK_INPUT_TREE);
	o->databases = a.db;
	o->ndatabases = a.ndb;
	if (!o->name && !a.batch) {
		const char *slash = strrchr(rtree, '/');
		bool generic;

		base = o->input == KPACK_INPUT_ARTIFACT ?
		       kpack_artifact_prefix(slash ? slash + 1 : rtree,
					     &generic) :
		       strdup(slash ? slash + 1 : rtree);
		if (o->input == KPACK_INPUT_ARTIFACT && !base) {
			rc = usage_error("'%s': its name gives no artifact "
					 "prefix (NAME_GPU%s): say --prefix "
					 "NAME", tree, generic ?
					 ", not NAME_generic" : "");
			goto out;
		}
		if (!base)
			goto oom;
		o->name = base;
		if (!*o->name) {
			rc = usage_error("'%s' has no name to give the "
					 "archives: say --prefix NAME", tree);
			goto out;
		}
	}
	if (o->name && (!*o->name || strchr(o->name, '/') ||
			strchr(o->name, '\\') ||
			strstr(o->name, "@GFXARCH@") || !strcmp(o->name, ".") ||
			!strcmp(o->name, ".."))) {
		rc = usage_error("--prefix '%s': a name for files and TOC keys "
				 "(no '/', '\\' or @GFXARCH@)", o->name);
		goto out;
	}
	if ((rc = kpack_outdir_check("kpack split", o->out,
				     (const char *const *)&tree, 1)) != 0)
		goto out;
	if (kpack_split(o, &st, &e) < 0) {
		rc = applet_fail_err("kpack split", "cannot split", tree, 0, &e);
		goto out;
	}
	rc = 0;
	goto out;
oom:
	rc = applet_fail("kpack split", NULL, "", "out of memory");
out:
	free(tree);
	free(rtree);
	free(base);
	return rc;
}

/* The subcommands. */
static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} commands[] = {
	{ "split", split_main },
	{ "join", kpack_join_main },
};

int kpack_main(int argc, char **argv)
{
	int first, rc;

	if (argc < 2 && !opts_listing())
		return applet_usage_error("kpack", "no command (split, join)");
	if ((argc < 2 || argv[1][0] == '-') &&
	    (rc = opts_parse(&table, NULL, argc < 2 ? 1 : 2, argv, &first)) >= 0)
		return rc;
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	return applet_usage_error("kpack", "unknown command '%s'", argv[1]);
}
