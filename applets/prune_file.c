/* prune_file: one file pruned, as prune FILE and each file of prune -r
 * prune it (see prune_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "messages.h"
#include "progress.h"
#include "prune_file.h"
#include "selection.h"
#include "../core/io_at.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/select.h"
#include "../ops/hosts.h"
#include "../ops/prune.h"
#include "../ops/prune_plan.h"

#define fail(what, file, ...) applet_fail("prune", what, file, __VA_ARGS__)

/* The message may quote IDs from the file: one line whatever they hold. */
/* (applet_fail escapes what the reason quotes of the file.) */
static void fail_escaped(const char *path, const struct err *e)
{
	fail("cannot prune", path, "%s", e->msg);
}

static bool keep_entry(void *ctx, const struct prune_entry *en)
{
	struct options *o = ctx;

	if (en->sel.host)
		o->host_bytes += en->size;
	return applet_keeps(&o->keep, &o->drop, &en->sel);
}

static void seen_entry(void *ctx, const struct prune_entry *en, bool kept)
{
	const struct options *o = ctx;
	char *id;

	if (!o->verbose || kept)
		return;
	id = applet_escape(en->sel.id, en->sel.id_len, false);
	fprintf(o->report, "%s: drop %s, %llu bytes", o->file, id ? id : "?",
		(unsigned long long)en->size);
	free(id);
	if (en->section)
		fprintf(o->report, ", section %s", en->section);
	fprintf(o->report, ", container at %llu\n",
		(unsigned long long)en->container);
}

static void summary(FILE *f, const char *path, const struct prune_plan *p,
		    bool dry)
{
	uint64_t total = p->entries_kept + p->entries_dropped;

	fprintf(f, "%s: %s %llu of %llu entries, %llu bytes of code; file %llu -> "
	       "%llu bytes", path, dry ? "would drop" : "dropped",
	       (unsigned long long)p->entries_dropped,
	       (unsigned long long)total,
	       (unsigned long long)p->code_dropped,
	       (unsigned long long)p->size_before,
	       (unsigned long long)p->size_after);
	/* The floor for linked files, said: the layout stays. */
	if (p->zeroed)
		fprintf(f, ", %llu zeroed in place", (unsigned long long)p->zeroed);
	if (p->compressed)
		fprintf(f, ", %llu bundle%s compressed (CCOB version %u)",
			(unsigned long long)p->compressed,
			p->compressed == 1 ? "" : "s", p->ccob_version);
	if (p->entries_compressed)
		fprintf(f, ", %llu fatbin entr%s compressed (LZ4)",
			(unsigned long long)p->entries_compressed,
			p->entries_compressed == 1 ? "y" : "ies");
	if (p->containers_emptied)
		fprintf(f, ", %llu container%s emptied",
			(unsigned long long)p->containers_emptied,
			p->containers_emptied == 1 ? "" : "s");
	/* Containers that stay where they were, and why. */
	if (p->unpacked_fatbin[0])
		fprintf(f, " (not packed: %s)", p->unpacked_fatbin);
	/* A linked file that could have been made smaller, and was not. */
	if (p->shrink.why[0])
		fprintf(f, " (not shrunk: %s)", p->shrink.why);
	fputc('\n', f);
}

bool prune_unmatched(const struct select *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->rule[i].hit)
			return true;
	return false;
}

/* What the file holds, shown to the selection and nothing else: errors
 * are said when it is pruned. */
void prune_look(struct options *o, const char *path)
{
	struct prune_opts po = {
		.keep = keep_entry, .ctx = o, .level = o->level,
		.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			    .max_size = CCOB_DEFAULT_MAX_SIZE },
		.decide_only = true,
	};
	struct prune_plan plan;
	struct io_in in;
	struct err e;

	if (io_in_open(&in, path, &e) < 0)
		return;
	if (prune_plan(in.data, in.len, &po, &plan, &e) == 0)
		prune_plan_free(&plan);
	io_in_close(&in);
}

/* A file that holds only code of dropped GPUs: removed (all its links in
 * the tree, by the tree's commit, prune_tree.c) with --remove-files,
 * else left; one line says which. */
static int prune_remove(struct options *o, const struct io_in *in,
			struct prune_result *res)
{
	if (!o->remove_files) {
		res->action = PRUNE_LEFT;
		fprintf(o->report, "%s: only code for GPUs dropped, %zu bytes; "
			"left (--remove-files removes it)\n", o->file, in->len);
		return 0;
	}
	res->action = PRUNE_REMOVED;
	res->after = 0;
	fprintf(o->report, "%s: %s, %zu bytes of code for GPUs dropped alone\n",
		o->file, o->dry_run ? "would remove" : "removed", in->len);
	return 0;
}

/* A file prune_plan found no offload code in: left, unless it is itself
 * a code object of a dropped GPU. */
static int prune_lone(struct options *o, const char *path, const struct io_in *in,
	       struct prune_result *res)
{
	struct select_entry en;
	char name[APPLET_CODE_NAME];
	int lone = applet_lone_code(in->data, in->len, name, &en);

	if (lone < 0)
		return fail("cannot prune", path, "out of memory");
	if (lone != 1 || applet_keeps(&o->keep, &o->drop, &en)) {
		res->action = PRUNE_SKIPPED;
		return 0;
	}
	return prune_remove(o, in, res);
}

/* The pruned file of a tree kept for the tree's commit (prune_tree.c):
 * its temporary named in res, signals held off from before it leaves
 * the table of temporaries (the worker lets them in once it has sent the
 * name).  0, or 1 said. */
static int keep_for_commit(struct io_out *out, const char *path,
			   struct prune_result *res)
{
	struct stat st;
	sigset_t all;
	struct err e;

	if (fstat(out->fd, &st) < 0) {
		err_sys(&e, path, errno);
		io_out_discard(out);
		res->write_failed = true;
		return applet_fail_io("prune", path, &e);
	}
	res->tmp_dev = st.st_dev;
	res->tmp_ino = st.st_ino;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (io_out_close_kept(out, res->tmp, sizeof(res->tmp), &e) < 0) {
		res->tmp[0] = 0;
		res->write_failed = true;
		return applet_fail_io("prune", path, &e);
	}
	return 0;
}

/* A file replaced by its pruned self (-i, -r) whose other names would
 * keep the old bytes, silently no longer one file with it: refused
 * (said, 1) unless --break-links.  -i: any other hard link; -r: a link
 * outside the tree (those inside are relinked).  0 when it may go on. */
static int other_links(const struct options *o, const char *path,
		       const struct io_in *in)
{
	unsigned long long all, here = 1;
	struct stat st;

	if (o->break_links || o->dry_run)
		return 0;
	if (o->walked) {
		all = o->walked->nlink;
		here += o->walked->nlinks;
	} else {
		if (in->fd < 0 || fstat(in->fd, &st) < 0)
			return 0;
		all = st.st_nlink;
	}
	if (all <= here)
		return 0;
	if (o->walked)
		return fail("cannot prune", path, "%llu of its %llu hard links "
			    "%s outside the tree, and would keep the old bytes "
			    "(--break-links to prune it all the same)",
			    all - here, all, all - here == 1 ? "is" : "are");
	return fail("cannot prune", path, "it has %llu hard links, whose "
		    "other names would keep the old bytes (--break-links to "
		    "replace this one alone)", all);
}

/* A package in the tree (-r): pruned into a new file that replaces it
 * in the directory walked, as a file is, its other links in the tree
 * made links of it; left as it was when no file in it changes.  in is
 * taken.  0, or 1 said. */
static int prune_walked_package(struct options *o, const char *path,
				struct io_in *in, int dirfd,
				struct prune_result *res)
{
	struct io_out out = { .fd = -1 };
	uint64_t files = 0, after = 0;
	struct err e;

	if (other_links(o, path, in)) {
		io_in_close(in);
		return 1;
	}
	if (!o->dry_run) {
		if (io_out_open_at(&out, dirfd, o->walked->name, path, &e) < 0) {
			io_in_close(in);
			res->write_failed = true;
			return applet_fail_io("prune", path, &e);
		}
		io_out_expect(&out, o->walked->dev, o->walked->ino);
		io_out_keep_mode(&out, in);
	}
	if (o->package_to(o, path, in, o->dry_run ? NULL : &out, o->file,
			  &files, &after, &e) < 0) {
		if (!o->dry_run)
			io_out_discard(&out);
		if (!o->dry_run && e.path[0] && err_names(&e, path)) {
			res->write_failed = true;
			return applet_fail_io("prune", path, &e);
		}
		return applet_fail_err("prune", "cannot prune package", path,
				       0, &e);
	}
	res->action = files ? PRUNE_PRUNED : PRUNE_SKIPPED;
	if (o->dry_run)
		return 0;
	if (!files) {
		io_out_discard(&out);
		return 0;
	}
	if (keep_for_commit(&out, path, res))
		return 1;
	res->after = after;
	return 0;
}

/* The input: the walked file reached through the directories walked
 * (its directory's descriptor in *dirfd), or path.  0, or 1 (said). */
static int open_input(struct options *o, const char *path, struct io_in *in,
		      int *dirfd)
{
	struct stat st;
	struct err e;
	int fd;

	if (!o->walked) {
		/* Before it is opened: a FIFO would block the open till a
		 * writer came, and --in-place could not replace it anyway. */
		if (o->in_place && stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode))
			return fail("cannot prune", path, "not a regular file: "
				    "--in-place would not replace it");
		if (io_in_open(in, path, &e) == 0)
			return 0;
		if (e.errnum == EISDIR)
			return fail("cannot prune", path, "a directory (prune -r "
				    "walks one)");
		return applet_fail_err("prune", "cannot read", path, 0, &e);
	}
	if ((fd = tree_file_open(o->tree, o->cursor, o->walked, &e)) < 0)
		return applet_fail_err("prune", "cannot read", path, 0, &e);
	if ((*dirfd = fcntl(o->cursor->fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		close(fd);
		return fail("cannot prune", path, "%s", strerror(errno));
	}
	if (io_in_open_fd(in, fd, path, &e) < 0) {
		close(*dirfd);
		*dirfd = -1;
		return applet_fail_err("prune", "cannot read", path, 0, &e);
	}
	return 0;
}

int prune_one(struct options *o, const char *path, struct prune_result *res)
{
	struct prune_opts po = {
		.keep = keep_entry, .seen = seen_entry, .ctx = o,
		.level = o->level, .package_level = o->package_level,
		.keep_layout = o->keep_layout, .shrink = o->shrink,
		.compress = o->compress, .compress_method = o->compress_method,
		.ccob_version = o->ccob_version, .threads = o->threads,
		.limits = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
			    .max_size = CCOB_DEFAULT_MAX_SIZE },
	};
	struct prune_plan plan = { 0 };
	struct io_out out = { .fd = -1 };
	const char *dest = o->in_place ? path : o->output;
	struct io_in in;
	struct stat st;
	char *shown = NULL;
	struct err e;
	int rc = 1, dirfd = -1;

	if (open_input(o, path, &in, &dirfd))
		return 1;
	/* Its name in the lines said about it: one line whatever it holds. */
	if (!(shown = applet_escape(path, strlen(path), false))) {
		fail("cannot prune", path, "out of memory");
		goto out;
	}
	o->file = shown;
	o->host_bytes = 0;
	if (res)
		res->before = res->after = in.len;
	if (o->walked && o->package_probe &&
	    o->package_probe(path, in.data, in.len)) {
		rc = prune_walked_package(o, path, &in, dirfd, res);
		goto out;
	}
	if (o->in_place && !o->walked &&
	    (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) {
		fail("cannot prune", path, "not a regular file: --in-place "
		     "would not replace it");
		goto out;
	}
	if (progress_on()) {
		progress_name(path);
		po.limits.progress = progress_callback;
	}
	rc = prune_plan(in.data, in.len, &po, &plan, &e);
	progress_end();
	po.limits.progress = NULL;	/* the line is gone: no more of it */
	if (rc < 0 && res && e.code == ERR_NOTHING) {
		/* In a tree, a file of no offload code is left alone, and
		 * one that is a code object goes if its GPU does. */
		rc = prune_lone(o, path, &in, res);
		goto out;
	}
	if (rc < 0) {
		rc = 1;
		fail_escaped(path, &e);
		goto out;
	}
	rc = 1;
	if (res && !plan.entries_dropped) {
		res->action = PRUNE_SKIPPED;
		rc = 0;
		goto out;
	}
	/* A --drop pattern that took nothing: nothing is written (main says
	 * so, once for all files). */
	if (!res && !o->dry_run && prune_unmatched(&o->drop)) {
		rc = PRUNE_UNMATCHED;
		goto out;
	}
	/* A container with nothing a kept GPU runs loses nothing when
	 * emptied (NVIDIA libraries hold many such fatbins); a file that
	 * would keep no device code at all is a wrong selection (a typo). */
	if (res && !plan.device_kept && !o->host_bytes &&
	    hosts_offload_only(in.data, in.len)) {
		/* A bundle, CCOB or fatbin file of dropped GPUs alone (the
		 * host formats' table says which files are offload code
		 * alone, for du too). */
		rc = prune_remove(o, &in, res);
		goto out;
	}
	if (plan.containers_emptied && !plan.device_kept && !o->allow_empty) {
		fail("cannot prune", path, "%llu container%s would keep no "
		     "device code (--allow-empty to prune anyway)",
		     (unsigned long long)plan.containers_emptied,
		     plan.containers_emptied == 1 ? "" : "s");
		goto out;
	}
	/* An object whose sections go is checked only when it is written
	 * (a symbol may still point into one): a dry run writes it to
	 * /dev/null, so it says what the run would. */
	if (o->dry_run && (plan.ndrop || plan.nmember))
		dest = "/dev/null";
	else if (o->dry_run)
		dest = NULL;
	if (dest) {
		/* In a tree, the file walked is replaced in the directory
		 * walked, and only while it is still that file; never a copy
		 * back over it (a failure or a signal leaves the old file). */
		bool at = o->walked && dest == path;

		if (dest == path && other_links(o, path, &in))
			goto out;
		if ((at ? io_out_open_at(&out, dirfd, o->walked->name, path, &e)
			: io_out_open_replace(&out, dest, &e)) < 0) {
			if (res)
				res->write_failed = true;
			applet_fail_io("prune", dest, &e);
			goto out;
		}
		if (at)
			io_out_expect(&out, o->walked->dev, o->walked->ino);
		if (o->in_place)
			io_out_keep_mode(&out, &in);
		else
			io_out_mode_from(&out, &in);
		if (prune_write(&in, &plan, &out, &e) < 0)
			goto write_failed;
		if (at && keep_for_commit(&out, path, res))
			goto out;
		if (!at && io_out_commit(&out, &e) < 0)
			goto write_failed;
	}
	summary(o->report, o->file, &plan, o->dry_run);
	rc = 0;
	if (res) {
		res->action = PRUNE_PRUNED;
		res->after = plan.size_after;
	}
	goto out;
write_failed:
	io_out_discard(&out);
	/* What the rewriting found wrong in the input names no file. */
	if (e.path[0] && res)
		res->write_failed = true;
	if (e.path[0])
		applet_fail_io("prune", dest, &e);
	else
		fail_escaped(path, &e);
out:
	prune_plan_free(&plan);
	io_in_close(&in);
	if (dirfd >= 0)
		close(dirfd);
	o->file = NULL;
	free(shown);
	return rc;
}
