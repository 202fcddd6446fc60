/* kpack_join_artifacts: split artifacts joined into one; see
 * kpack_join_artifacts.h.  The trees are walked as kpack split walks them
 * (core/tree: one name at a time, each file reached again through the
 * directories walked), every output made under OUT, opened once. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts.h"
#include "kpack_artifact.h"
#include "kpack_join.h"
#include "kpack_join_artifacts.h"
#include "kpack_outs.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/tree.h"

struct joining {
	const struct kpack_join_artifacts_opts *o;
	struct kpack_join_artifacts_stats *st;
	struct err *e;
	int outfd;
	struct kpack_outs outs;
	char **listed;		/* OUT's manifest */
	size_t nlisted;
};

static char *join3(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + (c ? strlen(c) + 1 : 0) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s%s%s", a, b, c ? "/" : "", c ? c : "");
	return p;
}

static int fail_file(struct err *e, const char *path)
{
	struct err inner;

	if (e->path[0])
		return -1;
	inner = *e;
	err_file(e, path, "%s", inner.msg);
	e->code = inner.code;
	return -1;
}

/* Whether the file is split (ELF with a .rocm_kpack_ref). */
static bool split_binary(const uint8_t *buf, size_t len)
{
	struct elfscan s;
	struct err ignored;
	bool yes;

	if (!hosts_is(buf, len, HOST_ELF) ||
	    elfscan_open(&s, buf, len, &ignored) < 0)
		return false;
	yes = elfscan_find(&s, SECTION_KPACK_REF) != NULL;
	elfscan_free(&s);
	return yes;
}

/* An archive of a GPU artifact: <...>/.kpack/<name>.kpack. */
static bool archive(const char *rel)
{
	const char *name = strrchr(rel, '/');
	size_t n;

	if (!name || name - rel < 6 || memcmp(name - 6, ".kpack", 6) ||
	    (name - 6 != rel && name[-7] != '/'))
		return false;
	n = strlen(++name);
	return n > 6 && !strcmp(name + n - 6, ".kpack");
}

/* orel claimed: an error if another input goes there too. */
static int claim(struct joining *jn, const char *prefix, const char *rel,
		 const char *from, char **orel)
{
	const char *by;
	int rc;

	if (!(*orel = join3(prefix, rel, NULL)))
		return err_nomem(jn->e);
	rc = kpack_outs_claim(&jn->outs, *orel, from, &by);
	if (rc < 0) {
		*orel = NULL;
		return err_nomem(jn->e);
	}
	if (rc) {
		*orel = NULL;
		return err_code_file(jn->e, ERR_MALFORMED, 0, from, "goes "
				     "where '%s' goes too", by);
	}
	return 0;
}

/* One file of the tree at root/prefix: copied, or joined. */
static int one_file(struct joining *jn, const struct tree *t,
		    struct tree_cursor *cur, size_t fi, const char *prefix,
		    size_t skip, bool generic)
{
	const struct tree_file *f = &t->file[fi];
	const char *rel = f->path + skip;
	struct io_in in = { .fd = -1 };
	struct io_out out = { .fd = -1 };
	struct kpack_find_alt *alt = NULL;
	char *orel, *dest = NULL, *dir = NULL;
	bool open = false;
	int rc = -1, fd;

	if (!generic && archive(rel))
		return 0;
	if (claim(jn, prefix, rel, f->path, &orel) < 0)
		return -1;
	if ((fd = tree_file_open(t, cur, f, jn->e)) < 0 ||
	    io_in_open_fd(&in, fd, f->path, jn->e) < 0)
		goto out;
	if (!(dest = join3(jn->o->out, orel, NULL))) {
		err_nomem(jn->e);
		goto out;
	}
	if (io_out_open_under(&out, jn->outfd, orel, dest, jn->e) < 0)
		goto out;
	open = true;
	io_out_keep_mode(&out, &in);
	if (generic && split_binary(in.data, in.len)) {
		struct kpack_join_stats js;
		const char *slash = strrchr(rel, '/');

		/* The binary's directory in its artifact, as the GPUs'
		 * trees have it. */
		size_t dl = slash ? (size_t)(slash - rel) : 0;

		if (!(alt = calloc(jn->o->ngpus + 1, sizeof(*alt))) ||
		    !(dir = malloc(strlen(prefix) + dl + 2))) {
			err_nomem(jn->e);
			goto out;
		}
		sprintf(dir, "%s%s%.*s", prefix, dl ? "/" : "", (int)dl, rel);
		for (size_t g = 0; g < jn->o->ngpus; g++)
			alt[g] = (struct kpack_find_alt){ jn->o->gpus[g], dir };
		if (jn->o->sel)
			select_reset(jn->o->sel);
		rc = kpack_join_in(f->path, in.data, in.len, jn->o->sel, alt,
				   jn->o->ngpus, &out, &js, jn->e);
		jn->st->joined += rc == 0;
	} else {
		rc = in.len ? io_out_copy(&out, &in, 0, in.len, jn->e) : 0;
	}
	if (rc == 0) {
		open = false;
		rc = io_out_commit(&out, jn->e);
	}
	jn->st->files += rc == 0;
out:
	if (open)
		io_out_discard(&out);
	if (rc < 0)
		fail_file(jn->e, f->path);
	io_in_close(&in);
	free(alt);
	free(dir);
	free(dest);
	return rc;
}

/* The symbolic links of the tree, made again. */
static int links(struct joining *jn, const struct tree *t,
		 struct tree_cursor *cur, const char *prefix, size_t skip)
{
	for (size_t i = 0; i < t->nsymlink; i++) {
		const struct tree_link *l = &t->symlink[i];
		char target[PATH_MAX + 1], *orel, *dest;
		int dfd = tree_dir_fd(t, cur, l->dir, l->path, jn->e), rc;
		ssize_t n = dfd < 0 ? 0 : readlinkat(dfd, l->name, target,
						      PATH_MAX);

		if (dfd < 0)
			return -1;
		if (n < 0)
			return err_sys(jn->e, l->path, errno);
		target[n] = 0;
		if (claim(jn, prefix, l->path + skip, l->path, &orel) < 0)
			return -1;
		if (!(dest = join3(jn->o->out, orel, NULL)))
			return err_nomem(jn->e);
		rc = io_out_symlink_under(jn->outfd, orel, target, dest, jn->e);
		free(dest);
		if (rc < 0)
			return -1;
		jn->st->links++;
	}
	return 0;
}

/* The prefix of the artifact at root walked (one that does not exist had
 * no files); listed in OUT's manifest once. */
static int one_prefix(struct joining *jn, const char *root, const char *prefix,
		      bool generic)
{
	struct tree t = { .keep_symlinks = true };
	struct tree_cursor cur = TREE_CURSOR_INIT;
	char *dir = join3(root, prefix, NULL);
	bool listed = false;
	struct stat sb;
	int found;
	int rc = -1;

	if (!dir)
		return err_nomem(jn->e);
	for (size_t i = 0; i < jn->nlisted; i++)
		listed |= !strcmp(jn->listed[i], prefix);
	if (!listed) {
		char **v = realloc(jn->listed, (jn->nlisted + 1) * sizeof(*v));

		if (!v || !(v[jn->nlisted] = strdup(prefix))) {
			if (v)
				jn->listed = v;
			free(dir);
			return err_nomem(jn->e);
		}
		jn->listed = v;
		jn->nlisted++;
	}
	/* Not there: no files; a symbolic link on the way: refused. */
	if ((found = kpack_prefix_dir(root, prefix, dir, &sb, jn->e)) <= 0) {
		free(dir);
		return found;
	}
	if (tree_add(&t, dir, true) < 0) {
		err_nomem(jn->e);
		goto out;
	}
	if (t.nerr) {
		*jn->e = t.err[0];
		goto out;
	}
	if (!t.ndir || t.dir[0].dev != sb.st_dev || t.dir[0].ino != sb.st_ino) {
		err_code_file(jn->e, ERR_CHANGED, 0, dir, "changed since the "
			      "artifact's manifest was read: not followed");
		goto out;
	}
	if (t.others) {
		err_code_file(jn->e, ERR_MALFORMED, 0, dir, "holds a file "
			      "neither regular, directory nor symbolic link "
			      "(a FIFO, device or socket), which cannot be "
			      "copied");
		goto out;
	}
	for (size_t i = 0; i < t.n; i++)
		if (one_file(jn, &t, &cur, i, prefix, strlen(dir) + 1,
			     generic) < 0)
			goto out;
	rc = links(jn, &t, &cur, prefix, strlen(dir) + 1);
out:
	tree_cursor_close(&cur);
	tree_free(&t);
	free(dir);
	return rc;
}

/* An artifact: its manifest's prefixes, in order. */
static int one_artifact(struct joining *jn, const char *root, bool generic)
{
	char **prefix;
	size_t n;
	int rc = 0;

	if (kpack_manifest_read(root, &prefix, &n, jn->e) < 0)
		return -1;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = one_prefix(jn, root, prefix[i], generic);
	kpack_strings_free(prefix, n);
	return rc;
}

static int manifest(struct joining *jn)
{
	struct io_out out = { .fd = -1 };
	char *rel = strdup(KPACK_MANIFEST), *dest;
	const char *by;
	int rc;

	if (!rel || !(dest = join3(jn->o->out, KPACK_MANIFEST, NULL))) {
		free(rel);
		return err_nomem(jn->e);
	}
	if ((rc = kpack_outs_claim(&jn->outs, rel, dest, &by)) != 0) {
		free(dest);
		return rc < 0 ? err_nomem(jn->e) :
		       err_code_file(jn->e, ERR_MALFORMED, 0, by, "is where "
				     "the joined artifact's manifest goes");
	}
	rc = io_out_open_under(&out, jn->outfd, KPACK_MANIFEST, dest, jn->e);
	for (size_t i = 0; rc == 0 && i < jn->nlisted; i++)
		if (io_out_write(&out, jn->listed[i], strlen(jn->listed[i]),
				 jn->e) < 0 ||
		    io_out_write(&out, "\n", 1, jn->e) < 0)
			rc = -1;
	if (rc == 0)
		rc = io_out_commit(&out, jn->e);
	else
		io_out_discard(&out);
	free(dest);
	return rc;
}

int kpack_join_artifacts(const struct kpack_join_artifacts_opts *o,
			 struct kpack_join_artifacts_stats *st, struct err *e)
{
	struct joining jn = { .o = o, .st = st, .e = e, .outfd = -1 };
	int rc = -1;

	memset(st, 0, sizeof(*st));
	io_out_together();
	if (io_mkdirs(o->out, e) < 0)
		goto out;
	if ((jn.outfd = open(o->out, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err_sys(e, o->out, errno);
		goto out;
	}
	/* Every manifest read first: a GPU artifact without one is named as
	 * such, not as the archives a binary then fails to find. */
	for (size_t g = 0; g < o->ngpus; g++) {
		char **prefix;
		size_t n;

		if (kpack_manifest_read(o->gpus[g], &prefix, &n, e) < 0)
			goto out;
		kpack_strings_free(prefix, n);
	}
	if (one_artifact(&jn, o->generic, true) < 0)
		goto out;
	for (size_t g = 0; g < o->ngpus; g++)
		if (one_artifact(&jn, o->gpus[g], false) < 0)
			goto out;
	rc = manifest(&jn);
out:
	if (rc < 0)
		io_out_together_end(false, NULL);
	else
		rc = io_out_together_end(true, e);
	if (jn.outfd >= 0)
		close(jn.outfd);
	kpack_outs_free(&jn.outs);
	kpack_strings_free(jn.listed, jn.nlisted);
	return rc;
}
