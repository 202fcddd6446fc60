/* kpack: AMD's kpack installs written: `kpack split` turns an install tree
 * of fat binaries into host binaries and per-GPU archives (ops/kpack_split.h),
 * `kpack join` a split host binary into a fat one again (kpack_join.c).
 * A small table of subcommands, as git dispatches its builtins. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "applets.h"
#include "kpack_join.h"
#include "messages.h"
#include "opts.h"
#include "../ops/kpack_split.h"

static const char usage[] =
	"Usage: offload kpack COMMAND [OPTIONS] ...\n"
	"Write AMD kpack installs (device code in per-GPU .kpack archives).\n"
	"\n"
	"  split [--prefix NAME] [--compress=zstd|none] -o OUT TREE\n"
	"          OUT: TREE with each fat binary's code objects moved into\n"
	"          OUT/.kpack/NAME_<gfx>.kpack, one archive per GPU target (TOC\n"
	"          keys NAME/<path in TREE>#<index>), and the binary rewritten to\n"
	"          find them (HIPK wrappers, .rocm_kpack_ref), as AMD's\n"
	"          rocm-kpack splitter does: its archives byte for byte\n"
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
	"Split the install tree TREE as AMD's rocm-kpack splitter splits it, all\n"
	"its per-GPU artefacts installed together, into the new directory OUT:\n"
	"every file and symbolic link of TREE; each fat host binary (ELF with\n"
	".hip_fatbin) without its device code, its wrappers HIPK and a\n"
	".rocm_kpack_ref naming NAME/<path in TREE> and the search path\n"
	"[../...].kpack/NAME_@GFXARCH@.kpack; and OUT/.kpack/NAME_<gfx>.kpack,\n"
	"the code objects of each GPU target.  Order: files depth first, names in\n"
	"byte order; a binary's bundles in file order.  Nothing is written\n"
	"unless all is.\n"
	"\n";

/* Whether the directory at path has nothing in it. */
static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

#define usage_error(...) applet_usage_error("kpack split", __VA_ARGS__)

static const struct opt_choice schemes[] = {
	{ "none", KPACK_NONE }, { "zstd", KPACK_ZSTD }, { NULL, 0 },
};

#define AT(member) offsetof(struct kpack_split_opts, member)

static const struct opt split_rows[] = {
	OPT_STRING('o', "output", "OUT",
		   "the directory to make (it may exist, empty)", AT(out)),
	OPT_STRING(0, "prefix", "NAME",
		   "archive names and TOC keys (default: TREE's\n"
		   "last component)", AT(name)),
	OPT_CHOICE(0, "compress", "SCHEME",
		   "none (stored as they are, the splitter's\n"
		   "default) or zstd (zstd-per-kernel, level 3)", AT(scheme),
		   schemes, "--compress takes none or zstd, not '%s'"),
};

static const struct opts split_table = {
	.applet = "kpack split", .usage = split_usage, .column = 26,
	OPTS_ROWS(split_rows), .ccob_env = true, .ccob_at = AT(ccob),
};

/* Whether path is dir or under it (both resolved). */
static bool inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n] ||
					  (n == 1 && dir[0] == '/'));
}

/* out resolved as far as it exists: the real path of its deepest existing
 * ancestor, then the rest as given. */
static char *resolve_out(const char *out)
{
	char *copy, *slash, *parent, *r;
	const char *name;

	if ((r = realpath(out, NULL)) || errno != ENOENT)
		return r;
	if (!(copy = strdup(out)))
		return NULL;
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = 0;
		name = slash + 1;
		parent = resolve_out(*copy ? copy : "/");
	} else {
		name = copy;
		parent = realpath(".", NULL);
	}
	if (!parent) {
		free(copy);
		return NULL;
	}
	r = malloc(strlen(parent) + strlen(name) + 2);
	if (r)
		sprintf(r, "%s/%s", parent, name);
	free(parent);
	free(copy);
	return r;
}

static int split_main(int argc, char **argv)
{
	struct kpack_split_opts o = {
		.scheme = KPACK_NONE,
		.ccob = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			  .max_size = CCOB_DEFAULT_MAX_SIZE },
		.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
			     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
	};
	struct kpack_split_stats st;
	char *tree = NULL, *rtree = NULL, *rout = NULL, *base = NULL;
	struct stat sb;
	struct err e;
	int rc = 2, first;

	if ((rc = opts_parse(&split_table, &o, argc, argv, &first)) >= 0)
		return rc;
	rc = 2;
	if (!o.out)
		return usage_error("no output directory (-o OUT)");
	if (first == argc)
		return usage_error("no input tree");
	if (argc - first > 1)
		return usage_error("one input tree, not %d", argc - first);
	if (!(tree = strdup(argv[first])))
		goto oom;
	for (size_t n = strlen(tree); n > 1 && tree[n - 1] == '/'; n--)
		tree[n - 1] = 0;
	o.tree = tree;
	if (!(rtree = realpath(tree, NULL))) {
		rc = applet_fail("kpack split", "cannot read", tree, "%s",
				 strerror(errno));
		goto out;
	}
	if (!o.name) {
		const char *slash = strrchr(rtree, '/');

		if (!(base = strdup(slash ? slash + 1 : rtree)))
			goto oom;
		o.name = base;
		if (!*o.name) {
			rc = usage_error("'%s' has no name to give the "
					 "archives: say --prefix NAME", tree);
			goto out;
		}
	}
	if (!*o.name || strchr(o.name, '/') || strchr(o.name, '\\') ||
	    strstr(o.name, "@GFXARCH@") || !strcmp(o.name, ".") ||
	    !strcmp(o.name, "..")) {
		rc = usage_error("--prefix '%s': a name for files and TOC keys "
				 "(no '/', '\\' or @GFXARCH@)", o.name);
		goto out;
	}
	if (!(rout = resolve_out(o.out))) {
		rc = applet_fail("kpack split", "cannot write", o.out, "%s",
				 strerror(errno));
		goto out;
	}
	if (inside(rout, rtree) || inside(rtree, rout)) {
		rc = applet_fail("kpack split", "cannot write", o.out, "it is "
				 "%s '%s'", inside(rout, rtree) ? "inside" :
				 "around", tree);
		goto out;
	}
	if (stat(o.out, &sb) == 0) {
		/* An existing OUT must be an empty directory. */
		if (!S_ISDIR(sb.st_mode) || !dir_empty(o.out)) {
			rc = applet_fail("kpack split", "cannot write", o.out,
					 "it exists and is not an empty "
					 "directory");
			goto out;
		}
	}
	if (kpack_split(&o, &st, &e) < 0) {
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
	free(rout);
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
