/* io_commit: outputs put in place all or none; see io_commit.h.  The
 * old file at each destination is kept, under a name of ours beside it,
 * till every rename is done, so that a failure at the kth (a directory
 * in the way, EXDEV, EACCES, ENOSPC of a file system that must write a
 * directory block) can put back the k-1 before it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_at.h"
#include "io_commit.h"

/* The file systems that cannot exchange two names, or refuse a name
 * kept, say so thus. */
static bool unsupported(int errnum)
{
	return errnum == EINVAL || errnum == ENOSYS || errnum == EOPNOTSUPP;
}

static bool is(const struct stat *st, dev_t dev, ino_t ino)
{
	return st->st_dev == dev && st->st_ino == ino;
}

/* The directory c's temporary is a name in. */
static int tmpdir(const struct io_commit *c)
{
	return c->reach_dir ? c->to : c->dirfd;
}

/* c's directory reached again (a tree's: the caller's one descriptor
 * moved there): 0, or an errno (ESTALE: it is another now). */
static int again(struct io_commit *c)
{
	if (!c->reach_dir)
		return 0;
	c->to = c->reach_dir(c->ctx, c->dir);
	if (c->to >= 0)
		return 0;
	return errno == ENOTDIR || errno == ELOOP || errno == ENOENT ?
	       ESTALE : errno;
}

/* Why c cannot go in place, errnum the call's errno: the record. */
static int failed(struct io_commit *c, int errnum, struct err *e)
{
	if (errnum == ESTALE && c->destdir && !c->expect)
		return err_code_file(e, ERR_CHANGED, 0, c->path, "its directory "
				     "changed since the output was made in it: "
				     "not written");
	if (errnum == ESTALE && c->expect)
		return err_code_file(e, ERR_CHANGED, 0, c->path, "changed "
				     "since it was read: not replaced");
	return err_sys(e, c->path, errnum);
}

/* c's destination directory opened and its name found: 0, or an errno
 * (ESTALE: the directory is another now). */
static int reach(struct io_commit *c)
{
	struct stat st;

	c->to = -1;
	if (c->reach_dir) {
		c->name = c->dest;
		return again(c);
	}
	if (c->dirfd == AT_FDCWD) {
		const char *slash = strrchr(c->dest, '/');
		char *dir;

		c->name = slash ? slash + 1 : c->dest;
		if (!slash) {
			c->to = AT_FDCWD;
			return 0;
		}
		if (!(dir = strndup(c->dest, slash == c->dest ? 1 :
				    (size_t)(slash - c->dest))))
			return ENOMEM;
		c->to = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		free(dir);
		return c->to < 0 ? errno : 0;
	}
	c->name = c->dest;
	if (!c->destdir) {
		c->to = c->dirfd;
		return 0;
	}
	c->to = io_at_walk(c->dirfd, c->destdir, strlen(c->destdir));
	if (c->to < 0)
		return errno == ENOTDIR || errno == ELOOP || errno == ENOENT ?
		       ESTALE : errno;
	if (fstat(c->to, &st) < 0 || !is(&st, c->dir_dev, c->dir_ino))
		return ESTALE;
	return 0;
}

/* c looked at before anything is renamed: 0, or an errno. */
static int prepare(struct io_commit *c)
{
	struct stat st;
	int rc = reach(c);

	if (rc)
		return rc;
	if (c->tmp && fstatat(tmpdir(c), c->tmp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno;
	c->our_dev = c->tmp ? st.st_dev : 0;
	c->our_ino = c->tmp ? st.st_ino : 0;
	if (fstatat(c->to, c->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT && !c->tmp)
			c->how = COMMIT_SAME;	/* gone already */
		return errno == ENOENT ? 0 : errno;
	}
	c->old = true;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!c->tmp && c->expect && !is(&st, c->dev, c->ino))
		return ESTALE;
	if (!c->tmp)
		return 0;
	if (is(&st, c->our_dev, c->our_ino))
		c->how = COMMIT_SAME;	/* the same file met twice */
	else if (c->expect && !is(&st, c->dev, c->ino))
		return ESTALE;
	return 0;
}

/* The old file at c's destination kept aside as c's temporary goes in:
 * 0, or an errno. */
static int replace_kept(struct io_commit *c)
{
	struct stat st;

	if (renameat2(tmpdir(c), c->tmp, c->to, c->name, RENAME_EXCHANGE) == 0) {
		c->how = COMMIT_EXCHANGED;
		/* What came out is what was looked at (or read), else back. */
		if (!c->expect ||
		    (fstatat(tmpdir(c), c->tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     is(&st, c->dev, c->ino)))
			return 0;
		renameat2(tmpdir(c), c->tmp, c->to, c->name, RENAME_EXCHANGE);
		c->how = COMMIT_WAITING;
		return ESTALE;
	}
	if (!unsupported(errno))
		return errno;
	/* No exchange here: a second name of the old file, then the rename. */
	if (c->expect && (fstatat(c->to, c->name, &st, AT_SYMLINK_NOFOLLOW) < 0
			  || !is(&st, c->dev, c->ino)))
		return ESTALE;
	io_at_temp_name(c->backup, sizeof(c->backup), c->name, "old");
	if (linkat(c->to, c->name, c->to, c->backup, 0) == 0) {
		if (renameat(tmpdir(c), c->tmp, c->to, c->name) == 0) {
			c->how = COMMIT_BACKED;
			return 0;
		}
		int saved = errno;

		unlinkat(c->to, c->backup, 0);
		return saved;
	}
	/* No second name either (a file system without hard links): the
	 * one output that cannot be put back. */
	if (renameat(tmpdir(c), c->tmp, c->to, c->name) < 0)
		return errno;
	c->how = COMMIT_UNSAVED;
	return 0;
}

/* The file at c's destination, to be removed, kept aside under a name of
 * ours till the end, and only while it is the file expected: 0, or an
 * errno. */
static int remove_kept(struct io_commit *c)
{
	struct stat st;

	io_at_temp_name(c->backup, sizeof(c->backup), c->name, "old");
	if (renameat2(c->to, c->name, c->to, c->backup, RENAME_NOREPLACE) < 0 &&
	    (!unsupported(errno) ||
	     renameat(c->to, c->name, c->to, c->backup) < 0))
		return errno;
	c->how = COMMIT_REMOVED;
	if (!c->expect ||
	    (fstatat(c->to, c->backup, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	     is(&st, c->dev, c->ino)))
		return 0;
	/* Another file came meanwhile: back where it was. */
	renameat2(c->to, c->backup, c->to, c->name, RENAME_NOREPLACE);
	c->how = COMMIT_WAITING;
	return ESTALE;
}

/* c's temporary in place: 0, or an errno. */
static int put(struct io_commit *c)
{
	int rc;

	if (c->how == COMMIT_SAME)
		return 0;
	if ((rc = again(c)) != 0)
		return rc;
	if (!c->tmp)
		return remove_kept(c);
	if (c->old)
		return replace_kept(c);
	if (renameat2(tmpdir(c), c->tmp, c->to, c->name, RENAME_NOREPLACE) == 0) {
		c->how = COMMIT_NEW;
		return 0;
	}
	/* Made meanwhile by someone else: kept as an old file is. */
	if (errno == EEXIST) {
		c->old = true;
		return replace_kept(c);
	}
	if (!unsupported(errno) || renameat(tmpdir(c), c->tmp, c->to,
					    c->name) < 0)
		return errno;
	c->how = COMMIT_NEW;
	return 0;
}

/* c's directory for undoing what put did: the one kept since, else
 * reached again.  0, or an errno. */
static int back(struct io_commit *c)
{
	if (c->reach_dir && c->held >= 0) {
		c->to = c->held;
		return 0;
	}
	return again(c);
}

/* c put back as it was before put. */
static void undo(struct io_commit *c)
{
	struct stat st;

	if (c->how != COMMIT_WAITING && back(c) != 0) {
		c->how = COMMIT_WAITING;	/* out of reach now */
		return;
	}
	switch (c->how) {
	case COMMIT_REMOVED:
		renameat2(c->to, c->backup, c->to, c->name, RENAME_NOREPLACE);
		break;
	case COMMIT_EXCHANGED:
		renameat2(c->to, c->name, tmpdir(c), c->tmp, RENAME_EXCHANGE);
		break;
	case COMMIT_BACKED:
		renameat(c->to, c->backup, c->to, c->name);
		break;
	case COMMIT_NEW:
		/* Ours still, not what another put there since. */
		if (fstatat(c->to, c->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    is(&st, c->our_dev, c->our_ino))
			unlinkat(c->to, c->name, 0);
		break;
	case COMMIT_WAITING:
	case COMMIT_UNSAVED:
	case COMMIT_SAME:
		break;
	}
	c->how = COMMIT_WAITING;
}

/* A tree's directory kept open from c's put (shared by the rows in it),
 * while there are fewer than cap. */
static void hold(struct io_commit *c, int *fds, size_t *dirs, size_t *n,
		 size_t cap)
{
	int fd;

	for (size_t i = *n; i-- > 0;)
		if (dirs[i] == c->dir) {
			c->held = fds[i];
			return;
		}
	if (*n >= cap ||
	    (fd = fcntl(c->to, F_DUPFD_CLOEXEC, 3)) < 0)
		return;
	dirs[*n] = c->dir;
	fds[(*n)++] = c->held = fd;
}

int io_commit_all(struct io_commit *c, size_t n, struct err *e)
{
	size_t done = 0, nheld = 0, held_dir[IO_COMMIT_HELD];
	size_t cap = IO_COMMIT_HELD;
	int rc = 0, errnum, held_fd[IO_COMMIT_HELD];
	struct rlimit lim;

	/* A sixteenth of the descriptors at most: the caller holds some,
	 * reaching a directory takes two. */
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur / 16 < cap)
		cap = (size_t)(lim.rlim_cur / 16);
	for (size_t i = 0; i < n; i++) {
		c[i].how = COMMIT_WAITING;
		c[i].old = false;
		c[i].to = -1;
		if (!c[i].reach_dir)
			c[i].held = -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		if ((errnum = prepare(&c[i])) != 0)
			rc = failed(&c[i], errnum, e);
	for (; done < n && rc == 0; done++)
		if ((errnum = put(&c[done])) != 0)
			rc = failed(&c[done], errnum, e);
		else if (c[done].reach_dir && c[done].held < 0 &&
			 c[done].how != COMMIT_SAME)
			hold(&c[done], held_fd, held_dir, &nheld, cap);
	if (rc < 0) {
		/* The one that failed is not done; those before, undone,
		 * the last first. */
		if (done)
			done--;
		while (done-- > 0)
			undo(&c[done]);
	}
	for (size_t i = 0; i < n; i++) {
		struct io_commit *k = &c[i];

		if (k->reach_dir && back(k) != 0)
			continue;	/* (left where they are: out of reach) */
		/* Left at tmp: the old file, or ours not put in place. */
		if (k->tmp && k->how != COMMIT_NEW && k->how != COMMIT_BACKED &&
		    k->how != COMMIT_UNSAVED)
			unlinkat(tmpdir(k), k->tmp, 0);
		if (k->how == COMMIT_BACKED || k->how == COMMIT_REMOVED)
			unlinkat(k->to, k->backup, 0);
		if (!k->reach_dir && k->to >= 0 && k->to != k->dirfd)
			close(k->to);
		k->to = -1;
	}
	for (size_t i = 0; i < nheld; i++)
		close(held_fd[i]);
	return rc;
}
