/* linker_wrapper.c: clang-linker-wrapper in our llvm-N link directories,
 * which runs LLVM N's own clang-linker-wrapper so that the bundler it runs
 * is ours.
 *
 * Why: clang's HIP driver (LLVM 23 and 24) bundles device code through
 * clang-linker-wrapper, which runs the clang-offload-bundler of its own
 * executable's directory (/proc/self/exe, links resolved) before PATH's, and
 * ignores -B.  Started through the dynamic loader (ld.so PROGRAM), its own
 * executable is the loader, whose directory holds no bundler, so it takes
 * PATH's: this link directory first, then LLVM's bin directory (its clang
 * and llvm-objcopy).  Everything else it does, and every byte it writes, is
 * LLVM's. */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "applets.h"
#include "opts.h"
#include "../core/env.h"

static const char usage[] =
	"Usage: offload linker-wrapper [OPTION]... [-- LLVM'S OPTIONS...]\n"
	"   or: clang-linker-wrapper [LLVM'S OPTIONS]...\n"
	"\n"
	"Runs LLVM's clang-linker-wrapper (OFFLOAD_LINKER_WRAPPER, else\n"
	"/usr/lib/llvm-N/bin/clang-linker-wrapper, N the release this link's\n"
	"directory llvm-N names) with the arguments as given, so that the\n"
	"clang-offload-bundler it runs is the one of this link's directory.\n"
	"As clang-linker-wrapper (in the llvm-N directories) every option is\n"
	"LLVM's, --help too.\n"
	"\n"
	"Options:\n";

/* Our own name's options: -h and -V alone (opts adds them). */
static const struct opts table = {
	.applet = "linker-wrapper", .usage = usage, .column = 18,
};

/* The program interpreter this process was started by (our own PT_INTERP,
 * in memory): the system's dynamic loader, LLVM's tools' too. */
static const char *own_interpreter(void)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	size_t n = getauxval(AT_PHNUM);
	uintptr_t bias = 0;

	if (!ph)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = (uintptr_t)ph - ph[i].p_vaddr;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_INTERP)
			return (const char *)(bias + ph[i].p_vaddr);
	return NULL;
}

/* The directory this link was run from: argv[0]'s, or the first PATH
 * entry holding it when argv[0] has no slash, else (`offload
 * clang-linker-wrapper`) the directory of offload itself, whose links are
 * ours too. */
static int own_directory(const char *argv0, char *dir, size_t size)
{
	const char *slash = strrchr(argv0, '/'), *path = getenv("PATH");

	if (slash) {
		if ((size_t)(slash - argv0) >= size)
			return -1;
		memcpy(dir, argv0, (size_t)(slash - argv0));
		dir[slash - argv0] = 0;
		if (!dir[0])
			strcpy(dir, "/");
		return 0;
	}
	while (path && *path) {
		size_t len = strcspn(path, ":");
		char file[PATH_MAX];

		if (len && snprintf(file, sizeof(file), "%.*s/%s", (int)len,
				    path, argv0) < (int)sizeof(file) &&
		    !access(file, X_OK) && len < size) {
			memcpy(dir, path, len);
			dir[len] = 0;
			return 0;
		}
		path += len + (path[len] == ':');
	}
	ssize_t got = readlink("/proc/self/exe", dir, size - 1);
	char *end;

	if (got <= 0)
		return -1;
	dir[got] = 0;
	end = strrchr(dir, '/');
	if (!end)
		return -1;
	*end = 0;
	return 0;
}

int linker_wrapper_main(int argc, char **argv, enum llvm_release release)
{
	const char *name = argc > 0 ? argv[0] : "clang-linker-wrapper";
	const char *interp = own_interpreter(), *llvm, *old_path;
	char dir[PATH_MAX], real[PATH_MAX], *path = NULL, **args = NULL;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	size_t llvm_dir;

	/* As clang-linker-wrapper every option is LLVM's, --help too; as
	 * our own name, ours are parsed and the operands are LLVM's. */
	if (strncmp(base, "clang-", 6) || opts_listing()) {
		int first, rc = opts_parse(&table, NULL, argc, argv, &first);

		if (rc >= 0)
			return rc;
		argv += first - 1;
		argc -= first - 1;
	}
	llvm = getenv("OFFLOAD_LINKER_WRAPPER");
	if (!llvm || !*llvm) {
		snprintf(real, sizeof(real),
			 "/usr/lib/llvm-%d/bin/clang-linker-wrapper",
			 (int)release);
		llvm = real;
	}
	if (access(llvm, X_OK)) {
		fprintf(stderr, "%s: error: cannot run LLVM %d's "
			"clang-linker-wrapper '%s': %s\n", name, (int)release,
			llvm, strerror(errno));
		return 1;
	}
	if (!interp) {
		fprintf(stderr, "%s: error: cannot find the dynamic loader to "
			"run '%s' with\n", name, llvm);
		return 1;
	}
	if (own_directory(name, dir, sizeof(dir))) {
		fprintf(stderr, "%s: error: cannot find the directory this "
			"link was run from\n", name);
		return 1;
	}
	old_path = getenv("PATH");
	llvm_dir = strrchr(llvm, '/') ? (size_t)(strrchr(llvm, '/') - llvm) : 0;
	path = malloc(strlen(dir) + llvm_dir + (old_path ? strlen(old_path) : 0) + 3);
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!path || !args) {
		fprintf(stderr, "%s: error: out of memory\n", name);
		free(path);
		free(args);
		return 1;
	}
	sprintf(path, "%s:%.*s%s%s", dir, (int)llvm_dir, llvm,
		old_path ? ":" : "", old_path ? old_path : "");
	if (setenv("PATH", path, 1)) {
		fprintf(stderr, "%s: error: cannot set PATH: %s\n", name,
			strerror(errno));
		free(path);
		free(args);
		return 1;
	}
	args[0] = (char *)interp;
	args[1] = (char *)llvm;
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	fflush(NULL);
	execv(interp, args);
	fprintf(stderr, "%s: error: cannot run '%s' through '%s': %s\n", name,
		llvm, interp, strerror(errno));
	free(path);
	free(args);
	return 1;
}
