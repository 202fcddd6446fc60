/* prune: slim fat binaries after the build, down to the device code a set
 * of GPUs loads (ops/prune.c does the rewriting). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applets.h"
#include "prune_file.h"
#include "prune_image.h"
#include "prune_package.h"
#include "prune_tree.h"
#include "messages.h"
#include "opts.h"
#include "progress.h"
#include "selection.h"
#include "../core/select.h"
#include "../ops/image.h"
#include "../ops/prune.h"

static const char usage[] =
	"Usage: offload prune (--keep TARGETS | --drop PATTERNS | --compress)\n"
	"                     [OPTIONS] FILE...\n"
	"       offload prune -r (--keep TARGETS | --drop PATTERNS | --compress)\n"
	"                     [OPTIONS] PATH...\n"
	"       offload prune (--keep TARGETS | --drop PATTERNS) [OPTIONS] IMAGE\n"
	"                     -o OUT\n"
	"       offload prune (--keep TARGETS | --drop PATTERNS) [OPTIONS] PKG\n"
	"                     -o FILE\n"
	"Take device code out of executables, shared libraries, objects, static\n"
	"libraries, offload bundles (binary, text, object), CCOBs, offload\n"
	"packages, NVIDIA fatbins and AMD kpack archives, keeping what the GPUs\n"
	"named load.  IMAGE, a container image (oci:DIR[:TAG], oci-archive:FILE,\n"
	"docker-archive:FILE, or a path that is one), is written with its\n"
	"layers pruned as OUT: an OCI layout DIR (or oci:DIR), oci-archive:FILE\n"
	"or docker-archive:FILE[:REFERENCE]; unchanged layers keep their bytes.\n"
	"PKG, a Debian package (.deb, .udeb, .ddeb), a Python wheel (.whl) or a\n"
	"conda package (.conda, .tar.bz2), is written as FILE with its files\n"
	"pruned and its md5sums and Installed-Size, RECORD or paths.json made\n"
	"to match; with -r, each package in the tree is pruned so in place.\n"
	"\n";

#define fail(what, file, ...) applet_fail("prune", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("prune", __VA_ARGS__)


/* The output must not be the input: it would be read while replaced. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---- options ---- */

/* value as a number from 1 to max, or -1. */
static long number(const char *value, long max)
{
	char *end;
	long n = strtol(value, &end, 10);

	return !*value || *end || n < 1 || n > max ? -1 : n;
}

static int set_jobs(void *options, const char *value)
{
	long jobs = number(value, 1024);

	if (jobs < 0)
		return usage_error("--jobs takes a number from 1 to 1024");
	((struct options *)options)->jobs = (unsigned)jobs;
	return 0;
}

static int set_compress(void *options, const char *value)
{
	struct options *o = options;

	o->compress = true;
	if (!value || !strcmp(value, "zstd"))
		o->compress_method = CCOB_ZSTD;
	else if (!strcmp(value, "zlib"))
		o->compress_method = CCOB_ZLIB;
	else
		return usage_error("--compress takes zstd or zlib, not '%s'",
				   value);
	return 0;
}

static int set_ccob_version(void *options, const char *value)
{
	if (strcmp(value, "2") && strcmp(value, "3"))
		return usage_error("--ccob-version takes 2 or 3");
	((struct options *)options)->ccob_version = (unsigned)(*value - '0');
	return 0;
}

static int set_level(void *options, const char *value)
{
	struct options *o = options;
	long level = number(value, 22);

	if (level < 0)
		return usage_error("--compression-level takes a number from 1 "
				   "to 22");
	o->level = o->package_level = (int)level;
	return 0;
}

#define AT(member) offsetof(struct options, member)

static const struct opt rows[] = {
	OPT_SELECT('k', "keep", "TARGETS",
		   "keep what a GPU of each target ID loads (gfx90a\n"
		   "keeps gfx90a, gfx90a:xnack+ and gfx90a:xnack-;\n"
		   "gfx90a:xnack+ drops gfx90a:xnack-), the generic\n"
		   "code objects it runs (gfx11-generic for gfx1100)\n"
		   "and SPIR-V; comma-separated, repeatable; bundle\n"
		   "IDs and globs (*, ?, [) also select", AT(keep)),
	OPT_SELECT('d', "drop", "PATTERNS",
		   "drop what these target IDs, bundle IDs or globs\n"
		   "select instead; comma-separated, repeatable", AT(drop)),
	OPT_FLAG(0, "exact", "take names as written, not what a GPU loads:\n"
		 "sm_80 is the sm_80 SASS alone, compute_80 that\n"
		 "PTX alone (nvprune -arch's rule)", AT(keep.exact)),
	OPT_STRING('o', "output", "FILE",
		   "write the pruned form of the one FILE here", AT(output)),
	OPT_FLAG('i', "in-place", "replace each FILE by its pruned form (mode and\n"
		 "owner kept; a symlink's target is rewritten)", AT(in_place)),
	OPT_FLAG('n', "dry-run", "say what would go and the bytes saved; write\n"
		 "nothing", AT(dry_run)),
	OPT_FLAG('r', "recursive", "prune every file under each directory PATH, in\n"
		 "place, and say one line of totals (-v or -n: a\n"
		 "line per file changed); hard links stay links,\n"
		 "symbolic links are not followed; the tree changes\n"
		 "all at once at the end, or not at all if a write\n"
		 "fails or a signal comes", AT(recurse)),
	OPT_FLAG(0, "remove-files", "with -r, remove the files that hold code of the\n"
		 "GPUs dropped and nothing else (code objects,\n"
		 "bundles, CCOBs, fatbins, kpack archives: by\n"
		 "content, not name)", AT(remove_files)),
	OPT_FLAG(0, "break-links", "with -i or -r, prune a hard-linked file all the\n"
		 "same: its other names (-r: those outside the tree)\n"
		 "keep the old bytes (by default it is refused)",
		 AT(break_links)),
	OPT_CALLBACK('j', "jobs", OPT_VALUE, "N",
		     "with -r, prune N files at once; with --compress,\n"
		     "compress N containers of a file at once; of an\n"
		     "IMAGE, N layers at once (default: the CPUs)",
		     set_jobs),
	OPT_STRING(0, "layer-compression", "CODEC",
		   "compress an IMAGE's layers written again with\n"
		   "gzip, zstd or none (default: as each was)",
		   AT(layer_compression)),
	OPT_FLAG(0, "allow-empty", "let a bundle keep no device code at all",
		 AT(allow_empty)),
	OPT_FLAG(0, "keep-layout", "in executables and shared libraries, zero the\n"
		 "freed bytes where they are; do not cut them out",
		 AT(keep_layout)),
	OPT_SET_INT(0, "always-shrink",
		    "cut them out even where GNU strip or objcopy\n"
		    "run on the result would break it (the default\n"
		    "for a file without a symbol table)", AT(shrink),
		    PRUNE_SHRINK_ALWAYS),
	OPT_SET_INT(0, "strip-safe",
		    "cut only what GNU strip or objcopy run on the\n"
		    "result keep right (the default for a file with\n"
		    "a symbol table)", AT(shrink), PRUNE_SHRINK_STRIP_SAFE),
	OPT_CALLBACK(0, "compress", OPT_OPTIONAL_VALUE, "METHOD",
		     "make each uncompressed bundle a CCOB in place\n"
		     "(zstd, the default, or zlib), of the version the\n"
		     "file's HIP runtime reads, and each uncompressed\n"
		     "NVIDIA fatbin entry an LZ4 block (as CUDA 12.4's\n"
		     "fatbinary writes them); --keep and --drop may\n"
		     "then be left out", set_compress),
	OPT_CALLBACK(0, "ccob-version", OPT_VALUE, "N",
		     "write CCOBs of version 2 or 3 whatever the\n"
		     "runtime", set_ccob_version),
	OPT_CALLBACK(0, "compression-level", OPT_VALUE, "N",
		     "level of the CCOBs compressed again (default:\n"
		     "3, the bundler's) and of compressed offload\n"
		     "packages (default: zstd 5, zlib 6, LLVM 24's)",
		     set_level),
	OPT_FLAG('v', "verbose", "name every entry dropped", AT(verbose)),
	OPT_FLAG('q', "quiet", "no progress line (shown on a terminal while CCOBs\n"
		 "are inflated)", AT(quiet)),
};

static const struct opts table = {
	.applet = "prune", .usage = usage,
	.tail = "Host entries are always kept.  Every FILE gets a summary "
		"line.\n",
	.column = 24, OPTS_ROWS(rows),
};

int prune_main(int argc, char **argv)
{
	struct options o = { .level = 3, .compress_method = CCOB_ZSTD };
	struct err e;
	int rc = 0, nfiles, first;
	bool image, package;

	if ((rc = opts_parse(&table, &o, argc, argv, &first)) >= 0)
		goto out;
	rc = 0;
	o.drop.exact = o.keep.exact;	/* --exact */
	nfiles = argc - first;
	image = nfiles == 1 && !o.recurse && image_is(argv[first]);
	package = nfiles == 1 && !o.recurse && !image &&
		  prune_package_is(argv[first]);
	if (select_check_ids(&o.keep, &e) < 0 ||
	    select_check_ids(&o.drop, &e) < 0) {
		rc = usage_error("%s %s", o.keep.n ? "--keep" : "--drop",
				 e.msg);
		goto out;
	}
	if (o.keep.n && o.drop.n)
		rc = usage_error("say what to keep (--keep) or what to drop "
				 "(--drop), not both");
	else if (!o.keep.n && !o.drop.n && !o.compress)
		rc = usage_error("say what to keep (--keep) or what to drop "
				 "(--drop), not both");
	else if (o.ccob_version && !o.compress)
		rc = usage_error("--ccob-version is for --compress");
	else if (!nfiles)
		rc = usage_error("no input file");
	else if (o.recurse && o.output)
		rc = usage_error("-r prunes in place: no -o");
	else if (!o.recurse && o.remove_files)
		rc = usage_error("--remove-files is for -r");
	else if (!o.recurse && !o.compress && o.jobs && !image)
		rc = usage_error("--jobs is for -r or --compress");
	else if (o.layer_compression && !image)
		rc = usage_error("--layer-compression is for an image");
	else if (image && (o.in_place || (!o.output && !o.dry_run)))
		rc = usage_error("an image is written to a new one: -o DIR");
	else if (package && (o.in_place || (!o.output && !o.dry_run)))
		rc = usage_error("a package is written to a new one: -o FILE");
	else if (!o.recurse && !o.dry_run && !o.in_place == !o.output)
		rc = usage_error("say where to write: -o FILE or --in-place");
	else if (o.output && nfiles > 1)
		rc = usage_error("-o takes one input file (--in-place for "
				 "many)");
	else if (o.output && strcmp(o.output, "-") &&
		 same_file(o.output, argv[first]))
		rc = fail("cannot write", o.output, image ? "it is the input "
			  "(an image is written to a new one)" : package ?
			  "it is the input (a package is written to a new "
			  "one)" : "it is the input (use --in-place)");
	if (rc)
		goto out;
	o.report = o.output && !strcmp(o.output, "-") ? stderr : stdout;
	progress_init("prune", o.quiet);
	if (!o.jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		o.jobs = cpus > 0 && cpus < 1024 ? (unsigned)cpus : 1;
	}
	o.threads = o.jobs;
	if (image) {
		rc = prune_image(&o, argv[first]);
		goto out;
	}
	if (package) {
		rc = prune_package(&o, argv[first]);
		goto out;
	}
	if (o.recurse) {
		o.in_place = true;
		o.package_probe = prune_package_probe;
		o.package_to = prune_package_to;
		rc = prune_tree(&o, argv + first, nfiles);
		goto out;
	}
	/* A pattern to drop that matched nothing is likely a typo, and then
	 * no file is written: with several, a first look at them all (their
	 * CCOBs read as far as their bundle headers) says whether one did. */
	if (o.drop.n && nfiles > 1 && !o.dry_run) {
		for (int i = first; i < argc; i++)
			prune_look(&o, argv[i]);
		if (prune_unmatched(&o.drop)) {
			rc = applet_select_unmatched("prune", "--drop", NULL,
						     &o.drop);
			goto out;
		}
	}
	for (int i = first; i < argc; i++)
		rc |= prune_one(&o, argv[i], NULL);
	/* A file that failed was not looked into: what --drop missed is then
	 * unknown, and its one error line says enough. */
	if (rc & 1)
		rc = 1;
	else
		rc = applet_select_unmatched("prune", "--drop", NULL, &o.drop);
out:
	select_free(&o.keep);
	select_free(&o.drop);
	return rc;
}
