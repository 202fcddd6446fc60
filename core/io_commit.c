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
	if (fstatat(c->dirfd, c->tmp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno;
	c->our_dev = st.st_dev;
	c->our_ino = st.st_ino;
	if (fstatat(c->to, c->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : errno;
	c->old = true;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
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

	if (renameat2(c->dirfd, c->tmp, c->to, c->name, RENAME_EXCHANGE) == 0) {
		c->how = COMMIT_EXCHANGED;
		/* What came out is what was looked at (or read), else back. */
		if (!c->expect ||
		    (fstatat(c->dirfd, c->tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     is(&st, c->dev, c->ino)))
			return 0;
		renameat2(c->dirfd, c->tmp, c->to, c->name, RENAME_EXCHANGE);
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
		if (renameat(c->dirfd, c->tmp, c->to, c->name) == 0) {
			c->how = COMMIT_BACKED;
			return 0;
		}
		int saved = errno;

		unlinkat(c->to, c->backup, 0);
		return saved;
	}
	/* No second name either (a file system without hard links): the
	 * one output that cannot be put back. */
	if (renameat(c->dirfd, c->tmp, c->to, c->name) < 0)
		return errno;
	c->how = COMMIT_UNSAVED;
	return 0;
}

/* c's temporary in place: 0, or an errno. */
static int put(struct io_commit *c)
{
	if (c->how == COMMIT_SAME)
		return 0;
	if (c->old)
		return replace_kept(c);
	if (renameat2(c->dirfd, c->tmp, c->to, c->name, RENAME_NOREPLACE) == 0) {
		c->how = COMMIT_NEW;
		return 0;
	}
	/* Made meanwhile by someone else: kept as an old file is. */
	if (errno == EEXIST) {
		c->old = true;
		return replace_kept(c);
	}
	if (!unsupported(errno) || renameat(c->dirfd, c->tmp, c->to,
					    c->name) < 0)
		return errno;
	c->how = COMMIT_NEW;
	return 0;
}

/* c put back as it was before put. */
static void undo(struct io_commit *c)
{
	struct stat st;

	switch (c->how) {
	case COMMIT_EXCHANGED:
		renameat2(c->to, c->name, c->dirfd, c->tmp, RENAME_EXCHANGE);
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

int io_commit_all(struct io_commit *c, size_t n, struct err *e)
{
	size_t done = 0;
	int rc = 0, errnum;

	for (size_t i = 0; i < n; i++) {
		c[i].how = COMMIT_WAITING;
		c[i].old = false;
		c[i].to = -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		if ((errnum = prepare(&c[i])) != 0)
			rc = failed(&c[i], errnum, e);
	for (; done < n && rc == 0; done++)
		if ((errnum = put(&c[done])) != 0)
			rc = failed(&c[done], errnum, e);
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

		/* Left at tmp: the old file, or ours not put in place. */
		if (k->how != COMMIT_NEW && k->how != COMMIT_BACKED &&
		    k->how != COMMIT_UNSAVED)
			unlinkat(k->dirfd, k->tmp, 0);
		if (k->how == COMMIT_BACKED)
			unlinkat(k->to, k->backup, 0);
		if (k->to >= 0 && k->to != k->dirfd)
			close(k->to);
		k->to = -1;
	}
	return rc;
}
