/* main: one binary, many applets, chosen by the name it is called by
 * (basename of argv[0]) or by its first argument ("offload bundler ...").
 *
 * Adding an applet touches five places (as git's builtin.h asks):
 *   1. applets/<name>.c with <name>_main, usage first (a large applet may
 *      split its jobs out, as bundler.c does into bundler_jobs.c);
 *   2. its prototype in applets/applets.h and its rows in the table below
 *      (one row per name it answers to);
 *   3. the APPLET_LINKS list in the Makefile (symlinks and install);
 *   4. man/<name>.1;
 *   5. test/<name>.test.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "applets.h"
#include "../core/io.h"

static const struct applet {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
	bool llvm;	/* an LLVM-named tool: reports as LLVM does */
} applets[] = {
	{ "bundler", bundler_main,
	  "bundle and unbundle offload code (clang-offload-bundler)", true },
	{ "clang-offload-bundler", bundler_main, NULL, true },
	{ "offload-bundler", bundler_main, NULL, true },
	{ "ccob", ccob_main,
	  "compress, decompress and describe compressed bundles (CCOB)", false },
	{ "offload-ccob", ccob_main, NULL, false },
	{ "packager", packager_main,
	  "package and extract offload binaries (llvm-offload-binary)", true },
	{ "llvm-offload-binary", packager_main, NULL, true },
	{ "clang-offload-packager", packager_main, NULL, true },
	{ "offload-packager", packager_main, NULL, true },
	{ "unpack-archive", unpack_archive_main,
	  "split device archives into one archive per GPU target", false },
	{ "offload-unpack-archive", unpack_archive_main, NULL, false },
	{ "ls", ls_main,
	  "list the device code in executables, libraries, objects, archives", false },
	{ "offload-ls", ls_main, NULL, false },
	{ "extract", extract_main,
	  "extract device code objects, decompressed, by target", false },
	{ "offload-extract", extract_main, NULL, false },
};

static const struct applet *find(const char *name)
{
	for (size_t i = 0; i < sizeof(applets) / sizeof(applets[0]); i++)
		if (!strcmp(applets[i].name, name))
			return &applets[i];
	return NULL;
}

/* An applet and the names that are aliases of it (rows without a summary
 * following it in the table). */
static int list(FILE *f)
{
	size_t n = sizeof(applets) / sizeof(applets[0]);

	fprintf(f, "offload %s: one executable for LLVM's GPU offload-binary "
		"tools\n\nUsage: offload APPLET [ARGS]...\n   or: APPLET "
		"[ARGS]...  (through a link named after the applet)\n\n"
		"Applets:\n", OFFLOAD_VERSION);
	for (size_t i = 0; i < n; i++) {
		if (!applets[i].summary)
			continue;
		fprintf(f, "  %-14s %s\n", applets[i].name, applets[i].summary);
		for (size_t j = i + 1; j < n && !applets[j].summary; j++)
			fprintf(f, "  %-14s   also as %s\n", "",
				applets[j].name);
	}
	return 0;
}

/* The applet an alias row belongs to: the row with a summary before it. */
static const struct applet *canonical(const struct applet *a)
{
	while (a > applets && !a->summary)
		a--;
	return a;
}

/* Whatever went to standard output must have arrived: a full disk or a
 * closed pipe behind it is a failure (coreutils' close_stdout).  LLVM's
 * tools report it from raw_fd_ostream, in LLVM's words. */
static int finish_stdout(const struct applet *a, int rc)
{
	int failed = fflush(stdout) ? errno : 0;

	if (!failed && !ferror(stdout))
		return rc;
	if (!failed)
		failed = EIO;
	if (a && a->llvm)
		fprintf(stderr, "LLVM ERROR: IO failure on output stream: "
			"%s\n", strerror(failed));
	else
		fprintf(stderr, "offload%s%s: error: cannot write 'standard "
			"output': %s\n", a ? " " : "", a ? canonical(a)->name : "",
			strerror(failed));
	return rc ? rc : 1;
}

/* An input cut short under a read of its map that the applet did not
 * report (it read zeros and went on: a listing, a hash that then failed
 * to match) is its failure all the same. */
static int finish(const struct applet *a, const char *name, int rc)
{
	const char *cut = io_input_cut();

	rc = finish_stdout(a, rc);
	if (!cut)
		return rc;
	if (a->llvm)
		fprintf(stderr, "%s: error: '%s': file changed size while "
			"being read\n", name, cut);
	else
		fprintf(stderr, "offload %s: error: cannot read '%s': file "
			"changed size while being read\n", canonical(a)->name,
			cut);
	return rc ? rc : 1;
}

int main(int argc, char **argv)
{
	const char *self = argc > 0 ? argv[0] : "offload";
	const char *base = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
	const struct applet *a;

	io_install_signal_cleanup();
	a = find(base);
	if (a)
		return finish(a, self, a->main(argc, argv));
	/* Called by a name that is neither an applet nor offload itself (a
	 * stray link): say so rather than guess. */
	if (strncmp(base, "offload", 7)) {
		fprintf(stderr, "offload: applet not found: %s\n", base);
		return 127;
	}
	if (argc < 2 || !strcmp(argv[1], "--list") ||
	    !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return finish_stdout(NULL, list(stdout));
	if (!strcmp(argv[1], "--version")) {
		printf("offload %s\n", OFFLOAD_VERSION);
		return finish_stdout(NULL, 0);
	}
	a = find(argv[1]);
	if (!a) {
		fprintf(stderr, "offload: applet not found: %s\n", argv[1]);
		return 127;
	}
	/* "offload bundler -x" runs as if called "bundler -x". */
	return finish(a, argv[1], a->main(argc - 1, argv + 1));
}
