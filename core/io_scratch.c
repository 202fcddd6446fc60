/* io_scratch: scratch outputs, unlinked files in $TMPDIR (or /tmp) for
 * bytes that must end up contiguous in memory (see io_scratch_open). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_in.h"
#include "io_write.h"
#include "io_scratch.h"

/* An unlinked file in $TMPDIR (or /tmp): O_TMPFILE, or a named file
 * removed at once where the file system cannot make one. */
int io_scratch_fd(const char **where)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	*where = dir;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		char *name = malloc(strlen(dir) + 32);

		if (name) {
			sigset_t all, was;

			/* Unlinked before any signal can end us. */
			sigfillset(&all);
			pthread_sigmask(SIG_BLOCK, &all, &was);
			sprintf(name, "%s/offload-scratch.XXXXXX", dir);
			fd = mkostemp(name, O_CLOEXEC);
			if (fd >= 0)
				unlink(name);
			pthread_sigmask(SIG_SETMASK, &was, NULL);
			free(name);
		}
	}
	return fd;
}

int io_scratch_open(struct io_out *o, struct err *e)
{
	const char *dir;

	memset(o, 0, sizeof(*o));
	o->path = strdup("temporary file");
	if (!o->path)
		return err_nomem(e);
	o->scratch = true;
	o->fd = io_scratch_fd(&dir);
	if (o->fd < 0) {
		int err = errno;

		/* Nothing to discard: the caller sees fd -1. */
		free(o->path);
		o->path = NULL;
		return err_set(e, "temporary file in '%s': %s", dir,
			       strerror(err));
	}
	return 0;
}

/* Map the scratch file's first size bytes (all of it, or what it is to
 * hold) for view. */
static int scratch_view_prot(struct io_out *o, uint64_t size,
			     struct io_in *view, int prot, struct err *e)
{
	if (size) {
		o->map = mmap(NULL, (size_t)size, prot, MAP_SHARED, o->fd, 0);
		if (o->map == MAP_FAILED) {
			o->map = NULL;
			return err_set(e, "temporary file: %s", strerror(errno));
		}
		o->map_len = (size_t)size;
	}
	view->data = o->map;
	view->len = (size_t)size;
	return 0;
}

static int scratch_view(struct io_out *o, uint64_t size, struct io_in *view,
			struct err *e)
{
	return scratch_view_prot(o, size, view, PROT_READ, e);
}

int io_scratch_reserve(struct io_out *o, uint64_t size, struct io_in *view,
		       struct err *e)
{
	memset(view, 0, sizeof(*view));
	view->fd = -1;
	if (size > SIZE_MAX || ftruncate(o->fd, (off_t)size) < 0)
		return err_set(e, "temporary file: %s",
			       strerror(size > SIZE_MAX ? EFBIG : errno));
	return scratch_view(o, size, view, e);
}

int io_scratch_map(struct io_out *o, struct io_in *view, struct err *e)
{
	struct stat st;

	memset(view, 0, sizeof(*view));
	view->fd = -1;
	if (io_out_flush(o, e) < 0)
		return -1;
	if (fstat(o->fd, &st) < 0)
		return err_set(e, "temporary file: %s", strerror(errno));
	return scratch_view(o, (uint64_t)st.st_size, view, e);
}

int io_scratch_view(struct io_out *o, struct io_in *view, struct err *e)
{
	if (io_scratch_map(o, view, e) < 0)
		return -1;
	view->fd = o->fd;
	view->map = o->map;
	view->path = o->path;
	return 0;
}

int io_scratch_writable(struct io_out *o, uint64_t size, uint8_t **map,
			struct err *e)
{
	struct io_in view;

	*map = NULL;
	if (size > SIZE_MAX || ftruncate(o->fd, (off_t)size) < 0)
		return err_sys_for(e, NULL, size > SIZE_MAX ? EFBIG : errno,
				   "temporary file");
	if (scratch_view_prot(o, size, &view, PROT_READ | PROT_WRITE, e) < 0)
		return -1;
	*map = o->map;
	return 0;
}

int io_scratch_allocate(struct io_out *o, uint64_t off, uint64_t len,
			struct err *e)
{
	int rc;

	if (off >= o->map_len)
		return 0;
	if (len > o->map_len - off)
		len = o->map_len - off;
	rc = posix_fallocate(o->fd, (off_t)off, (off_t)len);
	return rc ? err_sys_for(e, NULL, rc, "temporary file") : 0;
}

/* fd (not a regular file) to its end, no further than max bytes, copied
 * into a new unlinked scratch file: its descriptor, or -1 with e set. */
static int spool_stream(int fd, const char *path, uint64_t max,
			struct err *e)
{
	enum { PIECE = 1 << 20 };
	uint8_t *buf = malloc(PIECE);
	const char *dir;
	int out = buf ? io_scratch_fd(&dir) : -1;
	uint64_t len = 0;

	if (!buf) {
		err_sys(e, path, ENOMEM);
		return -1;
	}
	if (out < 0) {
		err_sys_for(e, NULL, errno, "temporary file in '%s'", dir);
		free(buf);
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, PIECE);
		size_t done = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_sys(e, path, errno);
			goto fail;
		}
		if (n == 0)
			break;
		len += (uint64_t)n;
		if (len > max) {
			err_code_file(e, ERR_SYSTEM, EFBIG, path, "not a regular "
				      "file, and longer than %llu bytes (the "
				      "limit OFFLOAD_STREAM_MAX sets)",
				      (unsigned long long)max);
			goto fail;
		}
		while (done < (size_t)n) {
			ssize_t w = write(out, buf + done, (size_t)n - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				err_sys_for(e, NULL, w < 0 ? errno : ENOSPC,
					    "temporary file in '%s'", dir);
				goto fail;
			}
			done += (size_t)w;
		}
	}
	free(buf);
	return out;
fail:
	free(buf);
	close(out);
	return -1;
}

int io_scratch_open_input(struct io_in *in, const char *path,
			  struct err *e)
{
	uint64_t max = io_stream_max(e);
	struct stat st;
	int fd, spooled;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = path;
	if (!max)
		return -1;
	fd = !strcmp(path, "-") ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, path, errno);
	/* A file, a directory (refused there), or what fstat cannot tell:
	 * as io_in_open takes it. */
	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return io_in_open_fd(in, fd, path, e);
	spooled = spool_stream(fd, path, max, e);
	close(fd);
	if (spooled < 0)
		return -1;
	return io_in_open_fd(in, spooled, path, e);
}
