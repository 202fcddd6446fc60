/* open: opening an artefact for liboffcode (include/offcode.h): a path,
 * a descriptor or a buffer, mapped, copied or borrowed (artifact.c keeps
 * the walk), or a package or an image (members.c, whose files are opened
 * here too, through the hook it is handed). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_impl.h"
#include "keep.h"
#include "error.h"
#include "members.h"
#include "../ops/image.h"

static int open_memory(const void *buf, size_t len, const char *name,
		       const struct offcode_open_options *options, bool plain,
		       offcode_artifact **out, offcode_error **err);

/* A file of a package, its bytes borrowed (members.c's hook): read as a
 * file whatever it is (a .deb in an image is the ar archive it is, as the
 * tool lists it). */
static int open_file(const void *buf, size_t len, const char *name,
		     const struct offcode_open_options *options,
		     offcode_artifact **out, offcode_error **err)
{
	return open_memory(buf, len, name, options, true, out, err);
}

/* The end of every open: a package or an image (spec: the image's) opened
 * as one (unless plain), else a's bytes walked; *out the handle, or its
 * failure in *err (with OFFCODE_OPEN_PARTIAL, a damaged file's handle
 * too, a package's saying what it is). */
static int opened_as(offcode_artifact *a, int rc, const char *spec,
		     bool plain, offcode_artifact **out, offcode_error **err)
{
	bool walked = false;

	if (rc == 0 && !plain) {
		rc = members_open(a, spec, open_file);
		walked = rc != -1;
		if (rc == -1)
			rc = 0;
	}
	if (rc == 0 && !walked)
		rc = artifact_walk(a);
	if (rc == 0) {
		*out = a;
		if (err)
			*err = NULL;
		return 0;
	}
	*out = NULL;
	/* Handed over: the caller frees it. */
	artifact_give_last(a, err);
	if ((a->opts.flags & OFFCODE_OPEN_PARTIAL) && (!walked || a->members) &&
	    rc != OFFCODE_NOMEM && a->data) {
		*out = a;
		return rc;
	}
	offcode_close(a);
	return rc;
}

static int opened(offcode_artifact *a, int rc, offcode_artifact **out,
		  offcode_error **err)
{
	return opened_as(a, rc, NULL, false, out, err);
}

static int refuse(offcode_artifact **out, offcode_error **err,
		  enum offcode_code code, const char *reason)
{
	if (out)
		*out = NULL;
	if (err)
		*err = reason ? error_new(code, reason) : NULL;
	return code;
}

int offcode_open_fd(int fd, const char *name,
		    const struct offcode_open_options *options,
		    offcode_artifact **out, offcode_error **err)
{
	char fdname[32];
	offcode_artifact *a;

	if (!out)
		return refuse(out, err, OFFCODE_INVALID, "no place for the "
			      "handle (out is NULL)");
	if (!name) {
		snprintf(fdname, sizeof(fdname), "<fd %d>", fd);
		name = fdname;
	}
	if (!(a = artifact_new(name, options)))
		return refuse(out, err, OFFCODE_NOMEM, NULL);
	return opened(a, artifact_map_fd(a, fd), out, err);
}

int offcode_open_path(const char *path,
		      const struct offcode_open_options *options,
		      offcode_artifact **out, offcode_error **err)
{
	offcode_artifact *a;
	struct io_stop stop;
	struct err e;
	int fd, rc;

	if (!path || !out)
		return refuse(out, err, OFFCODE_INVALID, "no path, or no place "
			      "for the handle");
	if (image_is(path)) {
		if (!(a = artifact_new(path, options)))
			return refuse(out, err, OFFCODE_NOMEM, NULL);
		a->data = (const uint8_t *)"";
		return opened_as(a, 0, path, false, out, err);
	}
	stop = artifact_stop(options);
	if ((fd = io_in_open_wait(path, &stop)) < 0) {
		if (!(a = artifact_new(path, options)))
			return refuse(out, err, OFFCODE_NOMEM, NULL);
		err_sys(&e, path, errno);
		return opened(a, artifact_fail(a, &e), out, err);
	}
	rc = offcode_open_fd(fd, path, options, out, err);
	close(fd);
	return rc;
}

int offcode_open_memory(const void *buf, size_t len, const char *name,
			const struct offcode_open_options *options,
			offcode_artifact **out, offcode_error **err)
{
	return open_memory(buf, len, name, options, false, out, err);
}

static int open_memory(const void *buf, size_t len, const char *name,
		       const struct offcode_open_options *options, bool plain,
		       offcode_artifact **out, offcode_error **err)
{
	offcode_artifact *a;

	if (!out || (!buf && len))
		return refuse(out, err, OFFCODE_INVALID, "no buffer, or no "
			      "place for the handle");
	if (!(a = artifact_new(name ? name : "<memory>", options)))
		return refuse(out, err, OFFCODE_NOMEM, NULL);
	if (!len) {
		/* (never NULL, which the parsers may not be handed) */
		a->data = (const uint8_t *)"";
	} else if (options && options->size >= offsetof(struct
							offcode_open_options,
							flags) +
					       sizeof(unsigned) &&
		   (options->flags & OFFCODE_OPEN_BORROW)) {
		a->data = buf;
	} else {
		if (!(a->copy = malloc(len))) {
			offcode_close(a);
			return refuse(out, err, OFFCODE_NOMEM, NULL);
		}
		memcpy(a->copy, buf, len);
		a->data = a->copy;
	}
	a->len = len;
	return opened_as(a, 0, NULL, plain, out, err);
}
