/* main: one binary, many applets, chosen by the name it is called by
 * (basename of argv[0]) or by its first argument ("offload bundler ...").
 *
 * The applets and their names are rows of applets/applets.def, which the
 * Makefile reads too (links, man pages): adding an applet is its file and
 * its rows there, then its man page and its test.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "applets.h"
#include "opts.h"
#include "../core/env.h"
#include "../core/io_in.h"
#include "../core/io_signal.h"

/* An alias row has neither main nor summary: canonical() finds the
 * applet row before it.  An LLVM-named tool (it reports as LLVM does) has
 * llvm_main, handed the release it follows; our own applets main. */
static const struct applet {
	const char *name;
	int (*main)(int argc, char **argv);
	int (*llvm_main)(int argc, char **argv, enum llvm_release llvm);
	const char *summary;
	bool llvm;	/* an LLVM-named tool: reports as LLVM does */
	bool in_llvm_dirs;	/* a link in the llvm-N directories only */
} applets[] = {
#define APPLET_ROW_0(fn) .main = fn
#define APPLET_ROW_1(fn) .llvm_main = fn
#define APPLET(name_, fn, llvm_, summary_) \
	{ name_, APPLET_ROW_##llvm_(fn), .summary = summary_, .llvm = llvm_ },
#define ALIAS(name_) { name_, NULL, NULL, NULL, false, false },
#define DIRALIAS(name_) { name_, NULL, NULL, NULL, false, true },
#include "applets.def"
#undef APPLET
#undef ALIAS
#undef DIRALIAS
};

/* The applet an alias row belongs to: the row with a summary before it. */
static const struct applet *canonical(const struct applet *a)
{
	while (a > applets && !a->summary)
		a--;
	return a;
}

/* The applet NAME is one of the names of. */
static const struct applet *find(const char *name)
{
	for (size_t i = 0; i < sizeof(applets) / sizeof(applets[0]); i++)
		if (!strcmp(applets[i].name, name))
			return canonical(&applets[i]);
	return NULL;
}

/* The applet of NAME-VERSION ("clang-offload-bundler-22", as Debian's
 * LLVM packages name their tools and the alternatives of the Debian
 * package of offload link them).  An LLVM-named applet's VERSION is the
 * release it follows, one of those we reproduce (*release); our own
 * applets take any number. */
static const struct applet *find_versioned(const char *name,
					   enum llvm_release *release)
{
	const char *dash = strrchr(name, '-');
	const struct applet *a;
	char plain[64];

	if (!dash || !dash[1] || strspn(dash + 1, "0123456789") !=
	    strlen(dash + 1) || (size_t)(dash - name) >= sizeof(plain))
		return NULL;
	memcpy(plain, name, (size_t)(dash - name));
	plain[dash - name] = 0;
	a = find(plain);
	if (!a || !a->llvm)
		return a;
	*release = env_llvm_parse(dash + 1, strlen(dash + 1));
	return *release ? a : NULL;
}

/* The release a link's directory names: a directory llvm-22, -23 or -24,
 * or a bin in one (as Debian's /usr/lib/llvm-23/bin), which is what
 * `make install` makes for `clang -B DIR` (clang runs its tools by
 * their plain names there); or 0. */
static enum llvm_release release_of_dir(const char *path)
{
	const char *end = strrchr(path, '/'), *start;

	for (int up = 0; end && up < 2; up++) {
		start = end;
		while (start > path && start[-1] != '/')
			start--;
		if ((size_t)(end - start) == 7 && !strncmp(start, "llvm-", 5))
			return env_llvm_parse(start + 5, 2);
		if ((size_t)(end - start) != 3 || strncmp(start, "bin", 3) ||
		    start == path)
			return 0;
		end = start - 1;
	}
	return 0;
}

/* The release of the directory a bare name (no '/') was found in on PATH:
 * a shell, and lit's, run a command found there with argv[0] as typed, so
 * an llvm-23 directory first on PATH is known only by looking again.  The
 * first that is this binary (where /proc says which that is): a program
 * of that name before it on PATH is not what ran. */
static enum llvm_release release_on_path(const char *name)
{
	const char *path = getenv("PATH"), *colon;
	char full[4096];
	struct stat self, found;
	bool know_self = !stat("/proc/self/exe", &self);

	for (; path && *path; path = colon + 1) {
		size_t dir_len;
		int n;

		colon = strchr(path, ':');
		if (!colon)
			colon = path + strlen(path);
		dir_len = (size_t)(colon - path);
		/* An empty entry is the current directory. */
		n = dir_len ? snprintf(full, sizeof full, "%.*s/%s",
				       (int)dir_len, path, name)
			    : snprintf(full, sizeof full, "./%s", name);
		if (n > 0 && (size_t)n < sizeof full && !access(full, X_OK) &&
		    (!know_self ||
		     (!stat(full, &found) && found.st_dev == self.st_dev &&
		      found.st_ino == self.st_ino)))
			return release_of_dir(full);
		if (!*colon)
			break;
	}
	return 0;
}

/* An LLVM-named applet follows the release its name ends in, else the one
 * its directory names (the one PATH found it in, for a bare name), else
 * OFFLOAD_LLVM's, else the newest.  This is the
 * one place the release is chosen: the applet is handed it and passes it
 * down, as far as core's triple rules, which differ between releases.
 * A bad OFFLOAD_LLVM: 0, said. */
static enum llvm_release select_release(const char *name,
					enum llvm_release by_name)
{
	enum llvm_release r = LLVM_NEWEST;
	struct err e;

	if (!by_name)
		by_name = strchr(name, '/') ? release_of_dir(name)
					    : release_on_path(name);
	if (by_name)
		r = by_name;
	else if (env_llvm_from_environment(&r, &e) < 0) {
		fprintf(stderr, "%s: error: %s\n", name, e.msg);
		return 0;
	}
	return r;
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
			fprintf(f, "  %-14s   also %sas %s\n", "",
				applets[j].in_llvm_dirs ? "in llvm-N/ " : "",
				applets[j].name);
	}
	return 0;
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
			"output': %s\n", a ? " " : "", a ? a->name : "",
			strerror(failed));
	return rc ? rc : 1;
}

/* A closed standard descriptor would be taken by the next file opened,
 * and what is printed would land in an input or an output: hold each one
 * open on /dev/null (git's sanitize_stdfds). */
static void hold_std_fds(void)
{
	int fd;

	do
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	while (fd >= 0 && fd <= 2);
	if (fd > 2)
		close(fd);
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

/* Applet a, called name (by_name: the release its name ends in, or 0). */
static int run(const struct applet *a, const char *name,
	       enum llvm_release by_name, int argc, char **argv)
{
	enum llvm_release llvm;

	if (!a->llvm)
		return finish(a, name, a->main(argc, argv));
	llvm = select_release(name, by_name);
	if (!llvm)
		return 1;
	/* LLVM's tools read every input whole before they write: an input
	 * that is standard output's file gives what they give. */
	io_stdout_input(IO_STDOUT_INPUT_READ);
	return finish(a, name, a->llvm_main(argc, argv, llvm));
}

int main(int argc, char **argv)
{
	const char *self = argc > 0 ? argv[0] : "offload";
	const char *base = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
	const struct applet *a;
	enum llvm_release by_name = 0;

	hold_std_fds();
	io_install_signal_cleanup();
	a = find(base);
	if (!a)
		a = find_versioned(base, &by_name);
	if (a)
		return run(a, self, by_name, argc, argv);
	/* Called by a name that is neither an applet nor offload itself (a
	 * stray link): say so rather than guess. */
	if (strncmp(base, "offload", 7)) {
		fprintf(stderr, "offload: applet not found: %s\n", base);
		return 127;
	}
	if (argc < 2 || !strcmp(argv[1], "--list") ||
	    !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return finish_stdout(NULL, list(stdout));
	/* Not for users: the options of APPLET [COMMAND] (any of its names)
	 * from its table, one a line, for the completions and
	 * test/mancheck.sh. */
	if (!strcmp(argv[1], "--list-options") && argc > 2) {
		opts_list_only();
		a = find(argv[2]);
		if (!a)
			a = find_versioned(argv[2], &by_name);
		if (!a) {
			fprintf(stderr, "offload: applet not found: %s\n",
				argv[2]);
			return 127;
		}
		return run(a, argv[2], by_name, argc - 2, argv + 2);
	}
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
	return run(a, argv[1], 0, argc - 1, argv + 1);
}
