/* prune: slim fat binaries after the build, down to the device code a set
 * of GPUs loads (ops/prune.c does the rewriting). */
#include <getopt.h>
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
	"                     -o DIR\n"
	"       offload prune (--keep TARGETS | --drop PATTERNS) [OPTIONS] PKG\n"
	"                     -o FILE\n"
	"Take device code out of executables, shared libraries, objects, static\n"
	"libraries, offload bundles (binary, text, object), CCOBs, offload\n"
	"packages, NVIDIA fatbins and AMD kpack archives, keeping what the GPUs\n"
	"named load.  IMAGE, a container image (oci:DIR[:TAG], oci-archive:FILE,\n"
	"docker-archive:FILE, or a path that is one), is written as an OCI\n"
	"layout DIR with its layers pruned; unchanged layers keep their bytes.\n"
	"PKG, a Debian package (.deb, .udeb, .ddeb), a Python wheel (.whl) or a\n"
	"conda package (.conda), is written as FILE with its files pruned and\n"
	"its md5sums and Installed-Size, RECORD or paths.json made to match.\n"
	"\n"
	"  -k, --keep=TARGETS    keep what a GPU of each target ID loads (gfx90a\n"
	"                        keeps gfx90a, gfx90a:xnack+ and gfx90a:xnack-;\n"
	"                        gfx90a:xnack+ drops gfx90a:xnack-), the generic\n"
	"                        code objects it runs (gfx11-generic for gfx1100)\n"
	"                        and SPIR-V; comma-separated, repeatable; bundle\n"
	"                        IDs and globs (*, ?, [) also select\n"
	"  -d, --drop=PATTERNS   drop what these target IDs, bundle IDs or globs\n"
	"                        select instead; comma-separated, repeatable\n"
	"      --exact           take names as written, not what a GPU loads:\n"
	"                        sm_80 is the sm_80 SASS alone, compute_80 that\n"
	"                        PTX alone (nvprune -arch's rule)\n"
	"  -o, --output=FILE     write the pruned form of the one FILE here\n"
	"  -i, --in-place        replace each FILE by its pruned form (mode and\n"
	"                        owner kept; a symlink's target is rewritten)\n"
	"  -n, --dry-run         say what would go and the bytes saved; write\n"
	"                        nothing\n"
	"  -r, --recursive       prune every file under each directory PATH, in\n"
	"                        place, and say one line of totals (-v or -n: a\n"
	"                        line per file changed); hard links stay links,\n"
	"                        symbolic links are not followed\n"
	"      --remove-files    with -r, remove the files that hold code of the\n"
	"                        GPUs dropped and nothing else (code objects,\n"
	"                        bundles, CCOBs, fatbins, kpack archives: by\n"
	"                        content, not name)\n"
	"  -j, --jobs=N          with -r, prune N files at once; with --compress,\n"
	"                        compress N containers of a file at once; of an\n"
	"                        IMAGE, N layers at once (default: the CPUs)\n"
	"      --layer-compression=CODEC\n"
	"                        compress an IMAGE's layers written again with\n"
	"                        gzip, zstd or none (default: as each was)\n"
	"      --allow-empty     let a bundle keep no device code at all\n"
	"      --keep-layout     in executables and shared libraries, zero the\n"
	"                        freed bytes where they are; do not cut them out\n"
	"      --always-shrink   cut them out even where GNU strip or objcopy\n"
	"                        run on the result would break it (the default\n"
	"                        for a file without a symbol table)\n"
	"      --strip-safe      cut only what GNU strip or objcopy run on the\n"
	"                        result keep right (the default for a file with\n"
	"                        a symbol table)\n"
	"      --compress[=METHOD]\n"
	"                        make each uncompressed bundle a CCOB in place\n"
	"                        (zstd, the default, or zlib), of the version the\n"
	"                        file's HIP runtime reads, and each uncompressed\n"
	"                        NVIDIA fatbin entry an LZ4 block (as CUDA 12.4's\n"
	"                        fatbinary writes them); --keep and --drop may\n"
	"                        then be left out\n"
	"      --ccob-version=N  write CCOBs of version 2 or 3 whatever the\n"
	"                        runtime\n"
	"      --compression-level=N\n"
	"                        level of the CCOBs compressed again (default:\n"
	"                        3, the bundler's) and of compressed offload\n"
	"                        packages (default: zstd 5, zlib 6, LLVM 24's)\n"
	"  -v, --verbose         name every entry dropped\n"
	"  -q, --quiet           no progress line (shown on a terminal while CCOBs\n"
	"                        are inflated)\n"
	"  -h, --help            print this help\n"
	"  -V, --version         print the version\n"
	"Host entries are always kept.  Every FILE gets a summary line.\n";

#define fail(what, file, ...) applet_fail("prune", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("prune", __VA_ARGS__)


/* The output must not be the input: it would be read while replaced. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int prune_main(int argc, char **argv)
{
	enum { OPT_ALLOW_EMPTY = 256, OPT_LEVEL, OPT_EXACT, OPT_KEEP_LAYOUT,
	       OPT_ALWAYS_SHRINK, OPT_STRIP_SAFE, OPT_REMOVE_FILES,
	       OPT_COMPRESS, OPT_CCOB_VERSION, OPT_LAYER_COMPRESSION };
	static const struct option longopts[] = {
		{ "keep", required_argument, NULL, 'k' },
		{ "drop", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "remove-files", no_argument, NULL, OPT_REMOVE_FILES },
		{ "jobs", required_argument, NULL, 'j' },
		{ "allow-empty", no_argument, NULL, OPT_ALLOW_EMPTY },
		{ "keep-layout", no_argument, NULL, OPT_KEEP_LAYOUT },
		{ "always-shrink", no_argument, NULL, OPT_ALWAYS_SHRINK },
		{ "strip-safe", no_argument, NULL, OPT_STRIP_SAFE },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "compression-level", required_argument, NULL, OPT_LEVEL },
		{ "compress", optional_argument, NULL, OPT_COMPRESS },
		{ "ccob-version", required_argument, NULL, OPT_CCOB_VERSION },
		{ "layer-compression", required_argument, NULL,
		  OPT_LAYER_COMPRESSION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .level = 3, .compress_method = CCOB_ZSTD };
	struct err e;
	int c, rc = 0, nfiles;
	bool image, package;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":k:d:o:inrj:vqhV", longopts,
				NULL)) != -1) {
		char *end;

		switch (c) {
		case 'k':
		case 'd':
			if ((rc = applet_select_option("prune", c == 'k' ?
							"--keep" : "--drop",
							c == 'k' ? &o.keep :
							&o.drop, optarg)))
				goto out;
			break;
		case 'o': o.output = optarg; break;
		case 'i': o.in_place = true; break;
		case 'n': o.dry_run = true; break;
		case 'r': o.recurse = true; break;
		case OPT_REMOVE_FILES: o.remove_files = true; break;
		case 'j': {
			long jobs = strtol(optarg, &end, 10);

			if (!*optarg || *end || jobs < 1 || jobs > 1024) {
				rc = usage_error("--jobs takes a number from 1 "
						 "to 1024");
				goto out;
			}
			o.jobs = (unsigned)jobs;
			break;
		}
		case 'v': o.verbose = true; break;
		case 'q': o.quiet = true; break;
		case OPT_ALLOW_EMPTY: o.allow_empty = true; break;
		case OPT_KEEP_LAYOUT: o.keep_layout = true; break;
		case OPT_ALWAYS_SHRINK: o.shrink = PRUNE_SHRINK_ALWAYS; break;
		case OPT_STRIP_SAFE: o.shrink = PRUNE_SHRINK_STRIP_SAFE; break;
		case OPT_EXACT: o.keep.exact = o.drop.exact = true; break;
		case OPT_LEVEL: {
			long level = strtol(optarg, &end, 10);

			if (!*optarg || *end || level < 1 || level > 22) {
				rc = usage_error("--compression-level takes a "
						 "number from 1 to 22");
				goto out;
			}
			o.level = o.package_level = (int)level;
			break;
		}
		case OPT_COMPRESS:
			o.compress = true;
			if (!optarg || !strcmp(optarg, "zstd")) {
				o.compress_method = CCOB_ZSTD;
			} else if (!strcmp(optarg, "zlib")) {
				o.compress_method = CCOB_ZLIB;
			} else {
				rc = usage_error("--compress takes zstd or zlib, "
						 "not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_LAYER_COMPRESSION: o.layer_compression = optarg; break;
		case OPT_CCOB_VERSION:
			if (strcmp(optarg, "2") && strcmp(optarg, "3")) {
				rc = usage_error("--ccob-version takes 2 or 3");
				goto out;
			}
			o.ccob_version = (unsigned)(*optarg - '0');
			break;
		case 'h':
			fputs(usage, stdout);
			goto out;
		case 'V':
			printf("offload prune %s\n", OFFLOAD_VERSION);
			goto out;
		default:
			rc = applet_option_error("prune", c, argv, longopts);
			goto out;
		}
	}
	nfiles = argc - optind;
	image = nfiles == 1 && !o.recurse && image_is(argv[optind]);
	package = nfiles == 1 && !o.recurse && !image && prune_package_is(argv[optind]);
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
		 same_file(o.output, argv[optind]))
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
		rc = prune_image(&o, argv[optind]);
		goto out;
	}
	if (package) {
		rc = prune_package(&o, argv[optind]);
		goto out;
	}
	if (o.recurse) {
		o.in_place = true;
		rc = prune_tree(&o, argv + optind, nfiles);
		goto out;
	}
	/* A pattern to drop that matched nothing is likely a typo, and then
	 * no file is written: with several, a first look at them all (their
	 * CCOBs read as far as their bundle headers) says whether one did. */
	if (o.drop.n && nfiles > 1 && !o.dry_run) {
		for (int i = optind; i < argc; i++)
			prune_look(&o, argv[i]);
		if (prune_unmatched(&o.drop)) {
			rc = applet_select_unmatched("prune", "--drop", NULL,
						     &o.drop);
			goto out;
		}
	}
	for (int i = optind; i < argc; i++)
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
