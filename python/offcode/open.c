/* open: the module's openers, their arguments turned into
 * offcode_open_options (open.h). */
#include "open.h"

#include <string.h>

#include "convert.h"
#include "errors.h"
#include "handle.h"

static int open_options(struct offcode_open_options *o, int verify,
			unsigned long long max_size, unsigned long long max_ratio)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->flags = verify ? OFFCODE_OPEN_VERIFY : 0;
	o->ccob_max_size = max_size;
	o->ccob_max_ratio = max_ratio;
	/* (a pipe, a FIFO's path, /dev/stdin: Ctrl-C while it is read) */
	o->interrupted = errors_interrupted;
	return 0;
}

/* The artefact an opener made, or its error raised and the handle let go. */
static PyObject *opened(Artifact *self, int rc, offcode_error *err)
{
	if (rc) {
		errors_raise(rc, err);
		offcode_error_free(err);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

/* open_path's arguments, opened with these flags besides. */
static PyObject *open_path_with(PyObject *args, unsigned flags)
{
	PyObject *path = NULL;
	int verify = 0, rc;
	unsigned long long max_size = 0, max_ratio = 0;
	struct offcode_open_options o;
	offcode_error *err = NULL;
	Artifact *self;

	if (!PyArg_ParseTuple(args, "O&|pO&O&", PyUnicode_FSConverter, &path,
			      &verify, convert_u64_arg, &max_size, convert_u64_arg, &max_ratio))
		return NULL;
	open_options(&o, verify, max_size, max_ratio);
	o.flags |= flags;
	self = handle_new();
	if (!self) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_open_path(PyBytes_AS_STRING(path), &o, &self->a, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	return opened(self, rc, err);
}

/* open_path(path, verify, ccob_max_size, ccob_max_ratio) */
PyObject *open_path(PyObject *mod, PyObject *args)
{
	(void)mod;
	return open_path_with(args, 0);
}

/* open_fd(fd, name, verify, ccob_max_size, ccob_max_ratio) */
PyObject *open_fd(PyObject *mod, PyObject *args)
{
	PyObject *name = NULL;
	int fd, verify = 0, rc;
	unsigned long long max_size = 0, max_ratio = 0;
	struct offcode_open_options o;
	offcode_error *err = NULL;
	Artifact *self;

	(void)mod;
	if (!PyArg_ParseTuple(args, "iO&|pO&O&", &fd, PyUnicode_FSConverter, &name,
			      &verify, convert_u64_arg, &max_size, convert_u64_arg, &max_ratio))
		return NULL;
	open_options(&o, verify, max_size, max_ratio);
	self = handle_new();
	if (!self) {
		Py_DECREF(name);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_open_fd(fd, PyBytes_AS_STRING(name), &o, &self->a, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(name);
	return opened(self, rc, err);
}

/* open_memory(buffer, name, verify, ccob_max_size, ccob_max_ratio): the
 * bytes are borrowed, not copied; the artefact holds the buffer (a
 * bytearray cannot be resized meanwhile). */
PyObject *open_memory(PyObject *mod, PyObject *args)
{
	PyObject *name = NULL, *buf;
	int verify = 0, rc;
	unsigned long long max_size = 0, max_ratio = 0;
	struct offcode_open_options o;
	offcode_error *err = NULL;
	Artifact *self;

	(void)mod;
	if (!PyArg_ParseTuple(args, "OO&|pO&O&", &buf, PyUnicode_FSConverter, &name,
			      &verify, convert_u64_arg, &max_size, convert_u64_arg, &max_ratio))
		return NULL;
	open_options(&o, verify, max_size, max_ratio);
	o.flags |= OFFCODE_OPEN_BORROW;
	self = handle_new();
	if (!self) {
		Py_DECREF(name);
		return NULL;
	}
	if (PyObject_GetBuffer(buf, &self->view, PyBUF_SIMPLE) < 0) {
		Py_DECREF(name);
		Py_DECREF(self);
		return NULL;
	}
	self->has_view = 1;
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_open_memory(self->view.buf, (size_t)self->view.len,
				 PyBytes_AS_STRING(name), &o, &self->a, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(name);
	return opened(self, rc, err);
}

/* open_stream(path, verify, ccob_max_size, ccob_max_ratio): a package or
 * an image opened with OFFCODE_OPEN_STREAM (any other file as open_path). */
PyObject *open_stream(PyObject *mod, PyObject *args)
{
	(void)mod;
	return open_path_with(args, OFFCODE_OPEN_STREAM);
}

/* path_kind(path): "image", "deb", "wheel", "conda" or None. */
PyObject *open_path_kind(PyObject *mod, PyObject *arg)
{
	PyObject *path = NULL;
	const char *kind;

	(void)mod;
	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	kind = offcode_path_kind(PyBytes_AS_STRING(path));
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	return convert_str_or_none(kind);
}

