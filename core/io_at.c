/* io_at: names in a directory descriptor replaced or removed only while
 * they are the file expected; see io_at.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_at.h"

static bool is(const struct stat *st, dev_t dev, ino_t ino)
{
	return st->st_dev == dev && st->st_ino == ino;
}

char *io_at_temp_name(char *buf, size_t n, const char *name,
		      const char *what)
{
	static unsigned serial;

	/* A file name holds 255 bytes: the name is cut at 200. */
	snprintf(buf, n, ".%.200s.%s%ld-%u", name, what, (long)getpid(),
		 __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
	return buf;
}

/* The file systems that cannot exchange two names say so thus. */
static bool no_exchange(int errnum)
{
	return errnum == EINVAL || errnum == ENOSYS || errnum == EOPNOTSUPP;
}

static int replace(int dirfd, const char *tmp, const char *name, dev_t dev,
		   ino_t ino)
{
	struct stat ours, st;

	if (fstatat(dirfd, tmp, &ours, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (renameat2(dirfd, tmp, dirfd, name, RENAME_EXCHANGE) == 0) {
		if (fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (is(&st, dev, ino) || is(&st, ours.st_dev, ours.st_ino)))
			return unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT ?
			       -1 : 0;
		/* Not what was read: back as it was. */
		renameat2(dirfd, tmp, dirfd, name, RENAME_EXCHANGE);
		errno = ESTALE;
		return -1;
	}
	if (!no_exchange(errno))
		return -1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (is(&st, ours.st_dev, ours.st_ino))	/* already ours */
		return unlinkat(dirfd, tmp, 0);
	if (!is(&st, dev, ino)) {
		errno = ESTALE;
		return -1;
	}
	return renameat(dirfd, tmp, dirfd, name);
}

int io_at_replace(int dirfd, const char *tmp, const char *name, dev_t dev,
		  ino_t ino)
{
	sigset_t all, was;
	int rc, saved;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	rc = replace(dirfd, tmp, name, dev, ino);
	saved = errno;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	errno = saved;
	return rc;
}

static int remove_checked(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	char aside[300];
	struct stat st;

	io_at_temp_name(aside, sizeof(aside), name, "rm");
	if (renameat2(dirfd, name, dirfd, aside, RENAME_NOREPLACE) < 0) {
		if (!no_exchange(errno))
			return -1;
		/* No RENAME_NOREPLACE here: checked, then removed. */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -1;
		if (!is(&st, dev, ino)) {
			errno = ESTALE;
			return -1;
		}
		return unlinkat(dirfd, name, 0);
	}
	if (fstatat(dirfd, aside, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    is(&st, dev, ino))
		return unlinkat(dirfd, aside, 0);
	renameat2(dirfd, aside, dirfd, name, RENAME_NOREPLACE);
	errno = ESTALE;
	return -1;
}

int io_at_remove(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	sigset_t all, was;
	int rc, saved;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	rc = remove_checked(dirfd, name, dev, ino);
	saved = errno;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	errno = saved;
	return rc;
}

int io_at_walk(int dirfd, const char *rel, size_t len)
{
	int fd = dirfd;

	while (len) {
		const char *slash = memchr(rel, '/', len);
		size_t n = slash ? (size_t)(slash - rel) : len;
		char name[NAME_MAX + 1];
		int sub;

		if (n == 0 || n > NAME_MAX || (n == 1 && rel[0] == '.') ||
		    (n == 2 && rel[0] == '.' && rel[1] == '.')) {
			if (fd != dirfd)
				close(fd);
			errno = n > NAME_MAX ? ENAMETOOLONG : EINVAL;
			return -1;
		}
		memcpy(name, rel, n);
		name[n] = 0;
		sub = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
		if (fd != dirfd) {
			int saved = errno;

			close(fd);
			errno = saved;
		}
		if (sub < 0)
			return -1;
		fd = sub;
		rel += n;
		len -= n;
		if (len) {	/* the '/' */
			rel++;
			len--;
		}
	}
	return fd;
}

int io_at_rmdir(int dirfd, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	int fd = io_at_walk(dirfd, rel, slash ? (size_t)(slash - rel) : 0);
	int rc, saved;

	if (fd < 0)
		return -1;
	rc = unlinkat(fd, slash ? slash + 1 : rel, AT_REMOVEDIR);
	saved = errno;
	if (fd != dirfd)
		close(fd);
	errno = saved;
	return rc;
}
