/* kpack_join: offload kpack join, a kpack-split host binary made a fat
 * binary again from its archives (ops/kpack_join.c). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applets.h"
#include "kpack_join.h"
#include "kpack_outdir.h"
#include "messages.h"
#include "opts.h"
#include "selection.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../ops/kpack_join.h"
#include "../ops/kpack_join_artifacts.h"

static const char usage[] =
	"Usage: offload kpack join [OPTIONS] -o OUT HOST...\n"
	"   or: offload kpack join [OPTIONS] -o OUT GENERIC [GPU...]\n"
	"Make each kpack-split HOST binary a fat binary again: the code objects\n"
	"of the archives its search paths find (as offload ls lists them) go\n"
	"back into .hip_fatbin, one clang offload bundle per wrapper, and each\n"
	"wrapper is a plain HIP one (HIPF) again, so a HIP runtime without\n"
	"kpack support loads it; .rocm_kpack_ref is dropped.  With one HOST,\n"
	"OUT is the file written (in it when a directory); with several, OUT is\n"
	"a directory (made if missing) that gets each under its base name.\n"
	"Given directories, the generic artifact GENERIC of a split into\n"
	"artifacts and any of its per-GPU artifacts are made one fat artifact\n"
	"in the new directory OUT: the generic's files, its split binaries\n"
	"joined from the GPUs' archives, and the GPUs' database files.\n"
	"\n";

/* What the options set. */
struct options {
	const char *out;
	struct select sel;
};

#define AT(member) offsetof(struct options, member)

static const struct opt rows[] = {
	OPT_STRING('o', "output", "OUT", "where to write (required)", AT(out)),
	OPT_SELECT('t', "target", "PATTERN",
		   "only the code objects PATTERN takes (a target\n"
		   "ID as a GPU loads it, a bundle ID, a glob or\n"
		   "native; comma-separated, repeatable)", AT(sel)),
};

#define APPLET "kpack join"
#define usage_error(...) applet_usage_error(APPLET, __VA_ARGS__)

static const struct opts table = {
	.applet = APPLET, .usage = usage, .column = 26, OPTS_ROWS(rows),
	.no_operand = "no input file",
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* Whether output path (name in dirfd, when dirfd is not -1) names the
 * file in is (an input is never written over). */
static bool same_file(int dirfd, const char *name, const char *path,
		      const struct io_in *in)
{
	struct stat a, b;

	return in->fd >= 0 && !(dirfd >= 0 ? fstatat(dirfd, name, &a, 0)
					    : stat(path, &a)) &&
	       !fstat(in->fd, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* host joined into dest: a file, or (dirfd not -1) host's base name in
 * the directory dirfd, opened once, where a name is never followed. */
static int join_one(const char *host, const char *dest, int dirfd,
		    struct select *sel)
{
	struct kpack_join_stats st;
	struct io_in in = { .fd = -1 };
	struct io_out out = { 0 };
	struct err e;
	int rc = 1;

	if (io_in_open(&in, host, &e) < 0) {
		applet_fail_err(APPLET, "cannot read", host, 0, &e);
		return 1;
	}
	if (same_file(dirfd, base_name(host), dest, &in)) {
		applet_fail(APPLET, "cannot write", dest, "it is the input "
			    "'%s'", host);
		goto out;
	}
	if (sel)
		select_reset(sel);
	if ((dirfd >= 0 ? io_out_open_at(&out, dirfd, base_name(host), dest,
					 &e)
			: io_out_open_replace(&out, dest, &e)) < 0) {
		applet_fail_err(APPLET, "cannot write", dest, 1, &e);
		goto out;
	}
	io_out_mode_from(&out, &in);
	if (kpack_join(host, in.data, in.len, sel, &out, &st, &e) < 0) {
		io_out_discard(&out);
		if (e.code == ERR_NOTHING && sel &&
		    applet_select_unmatched(APPLET, "--target", host, sel))
			goto out;
		applet_fail(APPLET, "cannot join", host, "%s", e.msg);
		goto out;
	}
	if (io_out_commit(&out, &e) < 0) {
		applet_fail_io(APPLET, dest, &e);
		goto out;
	}
	rc = 0;
out:
	io_in_close(&in);
	return rc;
}

/* The artifacts at arts (n: the generic, then GPUs') joined into out. */
static int join_artifacts(const char *out, int n, char **arts,
			  struct select *sel)
{
	struct kpack_join_artifacts_opts o = {
		.out = out, .generic = arts[0],
		.gpus = (const char *const *)arts + 1, .ngpus = (size_t)n - 1,
		.sel = sel && sel->n ? sel : NULL,
	};
	struct kpack_join_artifacts_stats st;
	struct err e;
	int rc;

	for (int i = 1; i < n; i++)
		if (!is_dir(arts[i]))
			return usage_error("'%s': not a directory (an artifact "
					   "of GPU code to join with '%s')",
					   arts[i], arts[0]);
	if ((rc = kpack_outdir_check(APPLET, out, (const char *const *)arts,
				     (size_t)n)) != 0)
		return rc;
	if (kpack_join_artifacts(&o, &st, &e) < 0)
		return applet_fail_err(APPLET, "cannot join", arts[0], 0, &e);
	return 0;
}

int kpack_join_main(int argc, char **argv)
{
	struct options o = { 0 };
	struct select *sel = &o.sel;
	const char *outp;
	struct err e;
	bool many, dir;
	int rc, dirfd = -1, first;

	if ((rc = opts_parse(&table, &o, argc, argv, &first)) >= 0)
		goto out;
	rc = 0;
	outp = o.out;
	if (!outp) {
		rc = usage_error("no output (-o OUT)");
		goto out;
	}
	if (!strcmp(outp, "-")) {
		rc = usage_error("-o -: the output is a file, not standard "
				 "output");
		goto out;
	}
	if (is_dir(argv[first])) {
		rc = join_artifacts(outp, argc - first, argv + first, sel);
		goto out;
	}
	many = argc - first > 1;
	for (int i = first; many && i < argc; i++)
		for (int k = first; k < i; k++)
			if (!strcmp(base_name(argv[i]), base_name(argv[k]))) {
				rc = usage_error("'%s' and '%s' have the same "
						 "name in '%s'", argv[k],
						 argv[i], outp);
				goto out;
			}
	dir = many || is_dir(outp);
	if (many)
		io_out_together();
	/* OUT a directory: opened once, each output made in it by name. */
	if ((many && io_mkdirs(outp, &e) < 0) ||
	    (dir && (dirfd = open(outp, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 &&
	     err_sys(&e, outp, errno))) {
		rc = applet_fail_err(APPLET, "cannot write into", outp, 1, &e);
		if (many)
			io_out_together_end(false, &e);
		goto out;
	}
	for (int i = first; i < argc && !rc; i++) {
		char *dest = NULL;

		if (dir) {
			size_t n = strlen(outp) + strlen(base_name(argv[i])) + 2;

			if (!(dest = malloc(n))) {
				rc = applet_fail(APPLET, "cannot write", outp,
						 "out of memory");
				break;
			}
			snprintf(dest, n, "%s/%s", outp, base_name(argv[i]));
		}
		rc |= join_one(argv[i], dest ? dest : outp, dirfd, sel);
		free(dest);
	}
	if (many && io_out_together_end(rc == 0, &e) < 0)
		rc = applet_fail_err(APPLET, "cannot write", NULL, 1, &e);
out:
	if (dirfd >= 0)
		close(dirfd);
	select_free(sel);
	return rc;
}
