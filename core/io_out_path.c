/* io_out_path: outputs named by a path; see io_out_path.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_out_path.h"
#include "io_scratch.h"
#include "io_signal.h"

/* Where the rename must land: through a symlink to its target, as an
 * in-place write would; a dangling one's target is made, as a shell's
 * redirection makes it.  The links are followed one by one (a relative
 * one from its own directory) up to the name that is no link, the
 * directories on the way left to the kernel: no name is cut short at
 * PATH_MAX, a name too long fails when used.  A loop, or a link that
 * does not read, is the link itself; NULL (errno set) when a name on
 * the way cannot be looked at. */
static char *resolve_dest(const char *path)
{
	char *at = strdup(path);
	struct stat st;

	for (int hops = 0; at && hops < 40; hops++) {
		char link[PATH_MAX], *next, *slash;
		ssize_t n;

		if (lstat(at, &st) < 0) {
			int saved = errno;

			if (saved == ENOENT)
				return at;	/* nothing there: the file to make */
			free(at);
			errno = saved;
			return NULL;
		}
		if (!S_ISLNK(st.st_mode))
			return at;
		n = readlink(at, link, sizeof(link) - 1);
		if (n <= 0)
			break;
		link[n] = 0;
		slash = strrchr(at, '/');
		if (link[0] == '/' || !slash)
			next = strdup(link);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - at), at,
				  link) < 0)
			next = NULL;
		free(at);
		at = next;
	}
	if (!at)
		return NULL;
	free(at);
	return strdup(path);
}

/* No temporary beside an existing file we may write: stage it in a
 * scratch file instead (see struct io_out, io_types.h).  0, or -1 with errno unchanged. */
static int stage_for_copy_back(struct io_out *o)
{
	int saved = errno, fd = open(o->dest, O_WRONLY | O_CLOEXEC);
	const char *dir;

	if (fd < 0) {
		errno = saved;
		return -1;
	}
	close(fd);
	if ((o->fd = io_scratch_fd(&dir)) < 0) {
		errno = saved;
		return -1;
	}
	o->copy_back = true;
	return 0;
}

int io_out_path_copy_back(struct io_out *o, struct err *e)
{
	int to = open(o->dest, O_WRONLY | O_TRUNC | O_CLOEXEC);
	uint64_t done = 0;
	off_t from = 0;
	int rc = 0;

	if (to < 0)
		return err_sys(e, o->path, errno);
	while (rc == 0 && done < o->pos) {
		size_t want = o->pos - done > (1u << 30) ? (1u << 30)
							  : (size_t)(o->pos - done);
		ssize_t n = copy_file_range(o->fd, &from, to, NULL, want, 0);

		if (n < 0 && (errno == EXDEV || errno == ENOSYS ||
			      errno == EINVAL || errno == EOPNOTSUPP)) {
			uint8_t buf[65536];
			ssize_t r = pread(o->fd, buf, sizeof(buf), from);

			n = r <= 0 ? -1 : write(to, buf, (size_t)r);
			if (r == 0)
				errno = EIO;
			if (n > 0)
				from += n;
		}
		if (n <= 0)
			rc = err_sys(e, o->path, n < 0 ? errno : EIO);
		else
			done += (uint64_t)n;
	}
	if (close(to) < 0 && rc == 0)
		rc = err_sys(e, o->path, errno);
	return rc;
}

/* An existing file that is only replaced, and no file can be made beside
 * it to replace it: the directory named, the file left as it is. */
static int refuse_in_place(struct io_out *o, int errnum, struct err *e)
{
	char *copy = strdup(o->dest);

	if (!copy)
		return err_sys(e, o->path, ENOMEM);
	err_sys_for(e, o->path, errnum, "cannot create a file in '%s'",
		    dirname(copy));
	free(copy);
	return -1;
}

/* Written in place: where the bytes start, for the pieces' boundaries
 * (stdout may be a file opened for appending; a pipe has no position). */
static int out_in_place(struct io_out *o)
{
	off_t at = lseek(o->fd, 0, SEEK_CUR);

	o->pos = at > 0 ? (uint64_t)at : 0;
	return 0;
}

/* replace: an existing regular file is only ever replaced by the rename,
 * never staged for copy_back (see io_out_open_replace). */
int io_out_path_open(struct io_out *o, const char *path, bool replace,
		     struct err *e)
{
	struct stat st;
	char *dir_copy = NULL;
	sigset_t all, was;
	mode_t mask;
	int exists, saved;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = strdup(path);
	if (!o->path)
		return err_sys(e, path, ENOMEM);
	if (!strcmp(path, "-")) {
		o->fd = 1;
		return out_in_place(o);
	}
	/* Else a temporary "./..XXXXXX" would be made, and only its rename
	 * fail. */
	if (!*path)
		return err_sys(e, path, ENOENT);
	o->dest = resolve_dest(path);
	if (!o->dest)
		return err_sys(e, path, errno);
	exists = stat(o->dest, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return err_sys(e, path, EISDIR);
	if (exists && !S_ISREG(st.st_mode)) {
		o->fd = open(o->dest, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (o->fd < 0)
			return err_sys(e, path, errno);
		return out_in_place(o);
	}
	mask = umask(0);
	umask(mask);
	o->mode = exists ? (st.st_mode & 07777) : (0666 & ~mask);

	dir_copy = strdup(o->dest);
	o->tmp = dir_copy ? malloc(strlen(o->dest) + 32) : NULL;
	if (!o->tmp) {
		free(dir_copy);
		return err_sys(e, path, ENOMEM);
	}
	{
		char *base_copy = strdup(o->dest);
		const char *dir = dirname(dir_copy);
		const char *base = base_copy ? basename(base_copy) : "out";

		snprintf(o->tmp, strlen(o->dest) + 32, "%s/.%.*s.XXXXXX", dir,
			 200, base);
		free(base_copy);
	}
	free(dir_copy);
	/* No signal between the file's creation and its registration: one
	 * there would leave it behind. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	saved = errno;
	if (o->fd >= 0)
		io_pending_add(o->tmp);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (o->fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		if (exists && (saved == EACCES || saved == EPERM) && replace)
			return refuse_in_place(o, saved, e);
		if (exists && (saved == EACCES || saved == EPERM) &&
		    stage_for_copy_back(o) == 0)
			return 0;
		return err_sys(e, path, saved);
	}
	if (fchmod(o->fd, o->mode) < 0)
		return err_sys(e, path, errno);
	return 0;
}
