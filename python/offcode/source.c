/* source: offcode.Source (source.h).
 *
 * Its bytes are lent through the buffer protocol (.bytes is a read-only
 * memoryview of it; bytes(), hashlib, offcode.open() and code_kernels()
 * take it as they are), and the views lent are counted: close() with one
 * still out raises BufferError, as mmap's does, and frees nothing.  The
 * other way, a view keeping the source open past close(), would make
 * close() and the end of a with block a request that frees nothing while
 * any slice of the bytes lives, with the file's map and descriptor held
 * out of sight; a BufferError says where the view is. */
#include "source.h"

#include <limits.h>

#include <offcode.h>

#include "convert.h"
#include "errors.h"

typedef struct {
	PyObject_HEAD
	offcode_source *s;	/* NULL once closed */
	PyObject *name;		/* str: what it was opened by */
	Py_ssize_t exports;	/* views lent and not released */
} Source;

/* A source of what the library opened (rc, err), named name (a new
 * reference, taken over); NULL with its error raised. */
static PyObject *source_made(PyTypeObject *type, int rc, offcode_source *s,
			     offcode_error *err, PyObject *name)
{
	Source *self;

	if (rc) {
		errors_raise(rc, err);
		offcode_error_free(err);
		Py_DECREF(name);
		return NULL;
	}
	self = (Source *)type->tp_alloc(type, 0);
	if (!self) {
		offcode_source_close(s);
		Py_DECREF(name);
		return NULL;
	}
	self->s = s;
	self->name = name;
	return (PyObject *)self;
}

/* A path opened: want 0 whole, else no further than want bytes of a
 * stream (offcode_source_open_part). */
static PyObject *source_open(PyTypeObject *type, PyObject *pathlike,
			     unsigned long long want)
{
	PyObject *path = NULL, *name;
	offcode_source *s = NULL;
	offcode_error *err = NULL;
	int rc;

	if (!PyUnicode_FSConverter(pathlike, &path))
		return NULL;
	name = PyUnicode_DecodeFSDefaultAndSize(PyBytes_AS_STRING(path),
						PyBytes_GET_SIZE(path));
	if (!name) {
		Py_DECREF(path);
		return NULL;
	}
	/* (a FIFO waits for its writer, standard input for its end: a
	 * signal's handler that raises stops that wait) */
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_source_open_path_with(PyBytes_AS_STRING(path),
					   &(struct offcode_source_options){
						.size = sizeof(struct offcode_source_options),
						.want = want,
						.interrupted = errors_interrupted },
					   &s, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	return source_made(type, rc, s, err, name);
}

/* Source(source, name=None): a path ("-": standard input) or a file
 * descriptor (duplicated: the caller's stays its own), name what messages
 * call a descriptor ("<fd N>" by default). */
static PyObject *source_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *names[] = { "source", "name", NULL };
	PyObject *src, *name = Py_None, *fsname = NULL;
	offcode_source *s = NULL;
	offcode_error *err = NULL;
	long fdl;
	int fd, rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:Source", names, &src, &name))
		return NULL;
	if (PyBool_Check(src) || (!PyLong_Check(src) && name != Py_None)) {
		PyErr_SetString(PyExc_TypeError, PyBool_Check(src) ?
				"Source() takes a path or a file descriptor, not a bool" :
				"Source(): name is for a file descriptor (a path is its own name)");
		return NULL;
	}
	if (!PyLong_Check(src))
		return source_open(type, src, 0);
	fdl = PyLong_AsLong(src);
	if (fdl == -1 && PyErr_Occurred())
		return NULL;
	if (fdl < INT_MIN || fdl > INT_MAX) {
		PyErr_SetString(PyExc_OverflowError, "Source(): no such file descriptor");
		return NULL;
	}
	fd = (int)fdl;
	if (name == Py_None)
		name = PyUnicode_FromFormat("<fd %d>", fd);
	else if (!PyUnicode_FSDecoder(name, &name))
		return NULL;
	if (!name || !PyUnicode_FSConverter(name, &fsname)) {
		Py_XDECREF(name);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_source_open_fd_with(fd, PyBytes_AS_STRING(fsname),
					 &(struct offcode_source_options){
						.size = sizeof(struct offcode_source_options),
						.interrupted = errors_interrupted },
					 &s, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(fsname);
	return source_made(type, rc, s, err, name);
}

/* Source.open_part(path, want) */
static PyObject *source_open_part(PyObject *type, PyObject *args)
{
	PyObject *path;
	unsigned long long want;

	if (!PyArg_ParseTuple(args, "OO&:open_part", &path, convert_u64_arg, &want))
		return NULL;
	if (!want) {
		PyErr_SetString(PyExc_ValueError, "open_part(): want is at least 1 byte");
		return NULL;
	}
	return source_open((PyTypeObject *)type, path, want);
}

static void source_dealloc(Source *self)
{
	/* (a view holds a reference: none is out now) */
	offcode_source_close(self->s);
	Py_XDECREF(self->name);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int source_getbuffer(Source *self, Py_buffer *view, int flags)
{
	const void *bytes;
	uint64_t len = 0;

	if (!self->s) {
		PyErr_SetString(PyExc_ValueError, "the source is closed");
		view->obj = NULL;
		return -1;
	}
	bytes = offcode_source_bytes(self->s, &len);
	if (len > PY_SSIZE_T_MAX) {
		PyErr_SetString(PyExc_OverflowError, "the source is too large for a buffer");
		view->obj = NULL;
		return -1;
	}
	if (PyBuffer_FillInfo(view, (PyObject *)self, (void *)bytes, (Py_ssize_t)len,
			      1, flags) < 0)
		return -1;
	self->exports++;
	return 0;
}

static void source_releasebuffer(Source *self, Py_buffer *view)
{
	(void)view;
	self->exports--;
}

static PyBufferProcs source_as_buffer = {
	.bf_getbuffer = (getbufferproc)source_getbuffer,
	.bf_releasebuffer = (releasebufferproc)source_releasebuffer,
};

static PyObject *source_close(Source *self, PyObject *unused)
{
	(void)unused;
	if (self->exports) {
		PyErr_Format(PyExc_BufferError,
			     "cannot close the source: %zd view%s of its bytes not released",
			     self->exports, self->exports == 1 ? "" : "s");
		return NULL;
	}
	offcode_source_close(self->s);
	self->s = NULL;
	Py_RETURN_NONE;
}

static PyObject *source_enter(Source *self, PyObject *unused)
{
	(void)unused;
	if (!self->s) {
		PyErr_SetString(PyExc_ValueError, "the source is closed");
		return NULL;
	}
	return Py_NewRef((PyObject *)self);
}

static PyObject *source_exit(Source *self, PyObject *args)
{
	(void)args;
	return source_close(self, NULL);
}

static PyObject *source_bytes(Source *self, void *unused)
{
	(void)unused;
	return PyMemoryView_FromObject((PyObject *)self);
}

static PyObject *source_fd(Source *self, void *unused)
{
	int fd;

	(void)unused;
	if (!self->s) {
		PyErr_SetString(PyExc_ValueError, "the source is closed");
		return NULL;
	}
	fd = offcode_source_fd(self->s);
	if (fd < 0)
		Py_RETURN_NONE;
	return PyLong_FromLong(fd);
}

static PyObject *source_size(Source *self, void *unused)
{
	uint64_t len = 0;

	(void)unused;
	if (!self->s) {
		PyErr_SetString(PyExc_ValueError, "the source is closed");
		return NULL;
	}
	offcode_source_bytes(self->s, &len);
	return PyLong_FromUnsignedLongLong(len);
}

static PyObject *source_closed(Source *self, void *unused)
{
	(void)unused;
	return PyBool_FromLong(!self->s);
}

static PyObject *source_name(Source *self, void *unused)
{
	(void)unused;
	return Py_NewRef(self->name);
}

static PyObject *source_repr(Source *self)
{
	uint64_t len = 0;

	if (!self->s)
		return PyUnicode_FromFormat("<offcode.Source %R, closed>", self->name);
	offcode_source_bytes(self->s, &len);
	return PyUnicode_FromFormat("<offcode.Source %R, %llu bytes, %s>", self->name,
				    (unsigned long long)len,
				    offcode_source_fd(self->s) < 0 ? "read" : "mapped");
}

static PyMethodDef source_methods[] = {
	{ "open_part", (PyCFunction)source_open_part, METH_VARARGS | METH_CLASS,
	  "open_part(path, want): a source that needs only the first want bytes: "
	  "a pipe or a device is read no further (nor refused for holding more), "
	  "a file is mapped whole." },
	{ "close", (PyCFunction)source_close, METH_NOARGS,
	  "Unmap or free its bytes (again: nothing).  BufferError while a view of "
	  "them (a memoryview, a slice of one, an offcode.open() of it) is not "
	  "released." },
	{ "__enter__", (PyCFunction)source_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)source_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef source_getset[] = {
	{ "bytes", (getter)source_bytes, NULL,
	  "Its bytes, a read-only memoryview valid until close() (release it, or "
	  "use it in a with block, before: close() refuses while one is out).", NULL },
	{ "fd", (getter)source_fd, NULL,
	  "The descriptor of a mapped file, the source's own (fstat it, copy from "
	  "it); None for bytes read into memory.", NULL },
	{ "size", (getter)source_size, NULL, "Its length in bytes.", NULL },
	{ "name", (getter)source_name, NULL,
	  "The path it was opened by, or a descriptor's name.", NULL },
	{ "closed", (getter)source_closed, NULL, "Whether it is closed.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject source_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offcode.Source",
	.tp_basicsize = sizeof(Source),
	.tp_dealloc = (destructor)source_dealloc,
	.tp_repr = (reprfunc)source_repr,
	.tp_as_buffer = &source_as_buffer,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Source(source, name=None): one input's bytes as offload ls reads them "
		  "(offcode_source_open_path, _open_fd): a regular file mapped, a pipe, "
		  "FIFO, device or standard input (\"-\") read once to its end, refused "
		  "past $OFFLOAD_STREAM_MAX bytes (1 GiB), a signal whose Python handler "
		  "raises (Ctrl-C's KeyboardInterrupt) stopping that read with its "
		  "exception though the writer stays open; a file descriptor is "
		  "duplicated (name: what messages call it).  A context manager; its "
		  "bytes lent through the buffer protocol (.bytes).  A mapped file cut "
		  "short (by another process, a walk's visitor) reads as zeros where its "
		  "lost pages were, the bytes before the cut as they were and the size as "
		  "it was (the library's SIGBUS handler, installed at import, puts zero "
		  "pages there, where an mmap's read would raise SIGBUS); walk() and "
		  "open() of it read the file by its descriptor, as it is now.",
	.tp_methods = source_methods,
	.tp_getset = source_getset,
	.tp_new = source_new,
};

PyObject *source_check_stdout(PyObject *mod, PyObject *arg)
{
	PyObject *path = NULL;
	offcode_error *err = NULL;
	int rc;

	(void)mod;
	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	rc = offcode_source_check_stdout(PyBytes_AS_STRING(path), &err);
	Py_DECREF(path);
	if (rc) {
		errors_raise(rc, err);
		offcode_error_free(err);
		return NULL;
	}
	Py_RETURN_NONE;
}
