/* source: the bytes of one input as the library reads them
 * (include/offcode.h, "the walk": offcode_source_*), for a caller that
 * walks them (offcode_walk_memory) and reads them after, as `offload ls`
 * does: a regular file mapped (core/io_in, its map registered, so that
 * the tool's SIGBUS handler, or the one offcode_catch_sigbus installs,
 * turns a file cut short into an error), a
 * pipe, FIFO, device or standard input read once into memory no further
 * than the stream limit; and the walk's hints over a map.  An artefact's
 * open and the path walk map a file with the same call
 * (artifact_map_fd, walk.c). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "../core/io_signal.h"
#include "source.h"

struct offcode_source {
	struct io_in in;
	/* in.path: the name in its messages, and in the note of a map cut
	 * short (io_in_close keeps a copy of that) */
	char name[];
};

int offcode_catch_sigbus(void)
{
	return io_catch_sigbus() ? OFFCODE_SYSTEM : OFFCODE_OK;
}

int source_map_fd(struct io_in *in, int fd, const char *path,
		  const struct io_stop *stop, struct err *e)
{
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	if (own < 0)
		return err_sys(e, path, errno);
	if (io_in_open_fd_stop(in, own, path, stop, e) < 0)
		return -1;
	/* Headers are read where they are; what a walk inflates is read
	 * ahead and let go of after (source_reading). */
	io_in_hint(in, 0, in->len, IO_IN_SPARSE);
	return 0;
}

void source_reading(const struct io_in *in, uint64_t off, uint64_t len,
		    bool start)
{
	io_in_hint(in, off, off + len, start ? IO_IN_WHOLE : IO_IN_DONE);
	if (!start)
		io_in_hint(in, off, off + len, IO_IN_SPARSE);
}

static int refused(offcode_error **err, const char *reason)
{
	return error_give(error_new(OFFCODE_INVALID, reason), err);
}

/* A source named name, holding nothing yet; NULL out of memory. */
static offcode_source *source_new(const char *name)
{
	size_t n = strlen(name) + 1;
	offcode_source *s = malloc(sizeof(*s) + n);

	if (!s)
		return NULL;
	memset(&s->in, 0, sizeof(s->in));
	s->in.fd = -1;
	memcpy(s->name, name, n);
	return s;
}

/* The end of an open: rc 0 with s handed over, or e's record. */
static int opened(offcode_source *s, int rc, const struct err *e,
		  offcode_source **out, offcode_error **err)
{
	if (rc < 0) {
		free(s);
		return error_give(error_from(e, NULL), err);
	}
	*out = s;
	if (err)
		*err = NULL;
	return OFFCODE_OK;
}

/* The options as far as the caller's version of the struct has them
 * (the rest zero): 0, or -1 when it is too short to hold want. */
static int source_options(const struct offcode_source_options *o,
			  struct offcode_source_options *buf)
{
	memset(buf, 0, sizeof(*buf));
	if (!o)
		return 0;
	if (o->size < offsetof(struct offcode_source_options, want) +
			      sizeof(o->want))
		return -1;
	memcpy(buf, o, o->size < sizeof(*buf) ? o->size : sizeof(*buf));
	/* (a hook without the room for its context: none) */
	if (o->size < offsetof(struct offcode_source_options, interrupted_ctx) +
			      sizeof(o->interrupted_ctx))
		buf->interrupted = NULL;
	return 0;
}

static struct io_stop stop_of(const struct offcode_source_options *o)
{
	return (struct io_stop){ .interrupted = o->interrupted,
				 .ctx = o->interrupted_ctx };
}

int offcode_source_open_path_with(const char *path,
				  const struct offcode_source_options *o,
				  offcode_source **out, offcode_error **err)
{
	struct offcode_source_options ob;
	struct io_stop stop;
	offcode_source *s;
	struct err e;
	int rc;

	if (out)
		*out = NULL;
	if (!path || !out)
		return refused(err, "no path, or no place for the handle");
	if (source_options(o, &ob) < 0)
		return refused(err, "options too short (o->size)");
	stop = stop_of(&ob);
	if (!(s = source_new(path)))
		return error_give(NULL, err);
	/* ("-" is standard input, read as any pipe) */
	rc = io_in_open_stop(&s->in, s->name, ob.want, &stop, &e);
	if (rc == 0)
		io_in_hint(&s->in, 0, s->in.len, IO_IN_SPARSE);
	return opened(s, rc, &e, out, err);
}

int offcode_source_open_part(const char *path, uint64_t want,
			     offcode_source **out, offcode_error **err)
{
	struct offcode_source_options o = { .size = sizeof(o),
					    .want = want };

	return offcode_source_open_path_with(path, &o, out, err);
}

int offcode_source_open_path(const char *path, offcode_source **out,
			     offcode_error **err)
{
	return offcode_source_open_part(path, 0, out, err);
}

int offcode_source_open_fd(int fd, const char *name, offcode_source **out,
			   offcode_error **err)
{
	return offcode_source_open_fd_with(fd, name, NULL, out, err);
}

int offcode_source_open_fd_with(int fd, const char *name,
				const struct offcode_source_options *o,
				offcode_source **out, offcode_error **err)
{
	struct offcode_source_options ob;
	struct io_stop stop;
	char fdname[32];
	offcode_source *s;
	struct err e;

	if (out)
		*out = NULL;
	if (!out)
		return refused(err, "no place for the handle (out is NULL)");
	if (source_options(o, &ob) < 0)
		return refused(err, "options too short (o->size)");
	stop = stop_of(&ob);
	if (!name) {
		snprintf(fdname, sizeof(fdname), "<fd %d>", fd);
		name = fdname;
	}
	if (!(s = source_new(name)))
		return error_give(NULL, err);
	return opened(s, source_map_fd(&s->in, fd, s->name, &stop, &e), &e,
		      out, err);
}

int offcode_source_check_stdout(const char *path, offcode_error **err)
{
	struct err e;

	if (!path)
		return refused(err, "no path");
	if (io_in_check_stdout(path, &e) < 0)
		return error_give(error_from(&e, NULL), err);
	if (err)
		*err = NULL;
	return OFFCODE_OK;
}

const void *offcode_source_bytes(const offcode_source *s, uint64_t *len)
{
	if (len)
		*len = s ? s->in.len : 0;
	if (!s)
		return NULL;
	/* (never NULL, which a walk may not be handed) */
	return s->in.data ? s->in.data : (const uint8_t *)"";
}

int offcode_source_fd(const offcode_source *s)
{
	return s && s->in.map ? s->in.fd : -1;
}

uint64_t offcode_source_next_data(void *src, uint64_t off)
{
	const offcode_source *s = src;

	return s ? io_in_next_data(&s->in, off) : off;
}

void offcode_source_reading(void *src, uint64_t off, uint64_t len, bool start)
{
	const offcode_source *s = src;

	if (s)
		source_reading(&s->in, off, len, start);
}

void offcode_source_close(offcode_source *s)
{
	if (!s)
		return;
	io_in_close(&s->in);
	free(s);
}
