/* split: a kpack-split binary as the extension's Split object, and the
 * module's functions over a code object's bytes (split.h).
 *
 * An offcode_split keeps what it last gave (a wrapper's key, a lookup,
 * the code read, a URI) until the next call, so one handle serves one
 * thread at a time: each call takes the Split's lock, waiting for it
 * without the GIL, and opening and reading (files, inflating) run
 * without the GIL.  Its texts are decoded as ls --json writes them
 * (convert_file_text). */
#include "split.h"

#include <string.h>

#include <offcode.h>

#include "convert.h"
#include "errors.h"

typedef struct {
	PyObject_HEAD
	offcode_split *s;	/* set and cleared holding the GIL and lock */
	PyThread_type_lock lock;
	PyObject *path;		/* the name it was opened by (str) */
	Py_buffer view;		/* the caller's bytes, borrowed while open */
	int has_view;
} Split;

static PyTypeObject split_type;

static void split_dealloc(Split *self)
{
	/* nobody else holds it now: no call is under way */
	offcode_split_close(self->s);
	self->s = NULL;
	if (self->has_view)
		PyBuffer_Release(&self->view);
	if (self->lock)
		PyThread_free_lock(self->lock);
	Py_XDECREF(self->path);
	PyObject_Free(self);
}

/* Take self's lock, waiting without the GIL: 0 with it held and the
 * split binary open, or -1 with ValueError (closed) and it not held. */
static int split_lock(Split *self)
{
	if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	if (self->s)
		return 0;
	PyThread_release_lock(self->lock);
	PyErr_SetString(PyExc_ValueError, "the split binary is closed");
	return -1;
}

static void split_unlock(Split *self)
{
	PyThread_release_lock(self->lock);
}

static PyObject *split_close(Split *self, PyObject *unused)
{
	(void)unused;
	if (self->s) {
		if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
			Py_BEGIN_ALLOW_THREADS
			PyThread_acquire_lock(self->lock, WAIT_LOCK);
			Py_END_ALLOW_THREADS
		}
		offcode_split_close(self->s);
		self->s = NULL;
		PyThread_release_lock(self->lock);
	}
	if (self->has_view) {
		PyBuffer_Release(&self->view);
		self->has_view = 0;
	}
	Py_RETURN_NONE;
}

static PyObject *split_closed(Split *self, void *unused)
{
	(void)unused;
	return PyBool_FromLong(!self->s);
}

static PyObject *split_path(Split *self, void *unused)
{
	(void)unused;
	return Py_NewRef(self->path);
}

static PyObject *text(const char *s)
{
	return convert_file_text(s, s ? strlen(s) : 0);
}

/* (pattern, directory, directory found, archives found) of each search
 * path. */
static PyObject *searches(const offcode_split *s)
{
	size_t n = offcode_split_search_count(s);
	PyObject *list = PyList_New((Py_ssize_t)n);

	for (size_t i = 0; list && i < n; i++) {
		struct offcode_split_search p = { .size = sizeof(p) };
		PyObject *t;

		if (offcode_split_search(s, i, &p)) {
			PyErr_SetString(PyExc_RuntimeError, "no such search path");
			goto fail;
		}
		t = Py_BuildValue("(NNNn)", text(p.path), text(p.dir),
				  PyBool_FromLong(!p.no_dir), (Py_ssize_t)p.archives);
		if (!t)
			goto fail;
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	return list;
fail:
	Py_DECREF(list);
	return NULL;
}

/* Archive k's tuple: (search, path, target, error, damaged, (device,
 * inode) or None, version, compression scheme, size, entries), the TOC's
 * fields None and its entries 0 when it was not read. */
static PyObject *archive(const offcode_split *s, size_t k)
{
	struct offcode_split_archive a = { .size = sizeof(a) };
	PyObject *error, *id;

	if (offcode_split_archive(s, k, &a)) {
		PyErr_SetString(PyExc_RuntimeError, "no such archive");
		return NULL;
	}
	error = a.error ? errors_object(a.error) : Py_NewRef(Py_None);
	if (!error)
		return NULL;
	id = a.has_id ? Py_BuildValue("(KK)", (unsigned long long)a.device,
				      (unsigned long long)a.inode)
		      : Py_NewRef(Py_None);
	if (!id) {
		Py_DECREF(error);
		return NULL;
	}
	return Py_BuildValue("(nNNNNNNNNn)", (Py_ssize_t)a.search, text(a.path),
			     text(a.target), error, PyBool_FromLong(a.damaged), id,
			     convert_u64_if(!a.error, a.version),
			     convert_str_or_none(a.error ? NULL : a.compression_scheme),
			     convert_u64_if(!a.error, a.file_size),
			     (Py_ssize_t)a.entries);
}

/* facts(): (kernel name, unsplit wrappers, [(index, key)] of the HIPK
 * wrappers, [search path], [archive]) */
static PyObject *split_facts(Split *self, PyObject *unused)
{
	PyObject *wrappers = NULL, *paths = NULL, *archives = NULL, *r = NULL;
	offcode_split *s;
	size_t nw, na;

	(void)unused;
	if (split_lock(self) < 0)
		return NULL;
	s = self->s;
	nw = offcode_split_wrapper_count(s);
	na = offcode_split_archive_count(s);
	if (!(wrappers = PyList_New((Py_ssize_t)nw)))
		goto out;
	for (size_t w = 0; w < nw; w++) {
		uint64_t index = 0;
		const char *key = NULL;
		PyObject *t;

		if (offcode_split_wrapper(s, w, &index, &key)) {
			PyErr_SetString(PyExc_RuntimeError, "no such wrapper");
			goto out;
		}
		if (!(t = Py_BuildValue("(KN)", (unsigned long long)index, text(key))))
			goto out;
		PyList_SET_ITEM(wrappers, (Py_ssize_t)w, t);
	}
	if (!(paths = searches(s)) || !(archives = PyList_New((Py_ssize_t)na)))
		goto out;
	for (size_t k = 0; k < na; k++) {
		PyObject *t = archive(s, k);

		if (!t)
			goto out;
		PyList_SET_ITEM(archives, (Py_ssize_t)k, t);
	}
	r = Py_BuildValue("(NnOOO)", text(offcode_split_kernel_name(s)),
			  (Py_ssize_t)offcode_split_unsplit_count(s), wrappers,
			  paths, archives);
out:
	split_unlock(self);
	Py_XDECREF(wrappers);
	Py_XDECREF(paths);
	Py_XDECREF(archives);
	return r;
}

/* An archive's index from a Python int: -1 with an exception for none. */
static Py_ssize_t index_arg(PyObject *o)
{
	Py_ssize_t i = PyNumber_AsSsize_t(o, PyExc_IndexError);

	if (i == -1 && PyErr_Occurred())
		return -1;
	if (i < 0) {
		PyErr_SetString(PyExc_IndexError, "no such index");
		return -1;
	}
	return i;
}

/* Whether two indices parsed from a call's arguments can name
 * anything: 0 with IndexError for a negative one. */
static int indices_ok(Py_ssize_t a, Py_ssize_t b)
{
	if (a >= 0 && b >= 0)
		return 1;
	PyErr_SetString(PyExc_IndexError, "no such index");
	return 0;
}

/* entries(k): archive k's TOC entries, each (key, target, bundle ID,
 * code size, in the file as it is, offset or None); [] for an archive
 * not read. */
static PyObject *split_entries(Split *self, PyObject *arg)
{
	Py_ssize_t k = index_arg(arg);
	struct offcode_split_archive a = { .size = sizeof(a) };
	PyObject *list = NULL;

	if (k < 0 || split_lock(self) < 0)
		return NULL;
	if (offcode_split_archive(self->s, (size_t)k, &a)) {
		PyErr_SetString(PyExc_IndexError, "no such archive");
		goto out;
	}
	if (!(list = PyList_New(a.error ? 0 : (Py_ssize_t)a.entries)))
		goto out;
	for (size_t i = 0; !a.error && i < a.entries; i++) {
		struct offcode_split_entry en = { .size = sizeof(en) };
		PyObject *t;

		if (offcode_split_entry(self->s, (size_t)k, i, &en)) {
			PyErr_SetString(PyExc_RuntimeError, "no such entry");
			goto fail;
		}
		t = Py_BuildValue("(NNNKNN)", text(en.key), text(en.target),
				  text(en.bundle_id), (unsigned long long)en.code_size,
				  PyBool_FromLong(en.in_file),
				  convert_u64_if(en.in_file, en.offset));
		if (!t)
			goto fail;
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	goto out;
fail:
	Py_CLEAR(list);
out:
	split_unlock(self);
	return list;
}

/* codes(k, w): the indices of archive k's entries that hold wrapper w's
 * code object, in TOC order ([] for none, or an archive not read). */
static PyObject *split_codes(Split *self, PyObject *args)
{
	Py_ssize_t k, w;
	PyObject *list = NULL;
	size_t n;

	if (!PyArg_ParseTuple(args, "nn", &k, &w) || !indices_ok(k, w))
		return NULL;
	if (split_lock(self) < 0)
		return NULL;
	if ((size_t)k >= offcode_split_archive_count(self->s) ||
	    (size_t)w >= offcode_split_wrapper_count(self->s)) {
		PyErr_SetString(PyExc_IndexError, "no such archive or wrapper");
		goto out;
	}
	n = offcode_split_code_count(self->s, (size_t)k, (size_t)w);
	if (!(list = PyList_New((Py_ssize_t)n)))
		goto out;
	for (size_t x = 0; x < n; x++) {
		PyObject *i = PyLong_FromSize_t(offcode_split_code(self->s, (size_t)k,
								   (size_t)w, x));

		if (!i) {
			Py_CLEAR(list);
			goto out;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)x, i);
	}
out:
	split_unlock(self);
	return list;
}

/* read(k, i, max_size=0, max_ratio=0): entry i of archive k's code,
 * decompressed, as bytes (the library's buffer copied: it is the
 * handle's until the next read). */
static PyObject *split_read(Split *self, PyObject *args)
{
	Py_ssize_t k, i;
	unsigned long long max_size = 0, max_ratio = 0;
	offcode_error *err = NULL;
	const void *code = NULL;
	uint64_t size = 0;
	PyObject *r = NULL;
	int rc;

	if (!PyArg_ParseTuple(args, "nn|O&O&", &k, &i, convert_u64_arg, &max_size,
			      convert_u64_arg, &max_ratio) ||
	    !indices_ok(k, i))
		return NULL;
	if (split_lock(self) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_split_read(self->s, (size_t)k, (size_t)i, max_size, max_ratio,
				&code, &size, &err);
	Py_END_ALLOW_THREADS
	if (rc)
		errors_raise(rc, err);
	else if (size > PY_SSIZE_T_MAX)
		PyErr_NoMemory();
	else
		r = PyBytes_FromStringAndSize(code, (Py_ssize_t)size);
	split_unlock(self);
	offcode_error_free(err);
	return r;
}

/* uri(k, i): entry i of archive k's file:// URI, when its code lies in
 * the file as it is; else None. */
static PyObject *split_uri(Split *self, PyObject *args)
{
	Py_ssize_t k, i;
	const char *uri;
	PyObject *r;

	if (!PyArg_ParseTuple(args, "nn", &k, &i) || !indices_ok(k, i))
		return NULL;
	if (split_lock(self) < 0)
		return NULL;
	uri = offcode_split_uri(self->s, (size_t)k, (size_t)i);
	r = convert_str_or_none(uri);
	split_unlock(self);
	return r;
}

static PyMethodDef split_methods[] = {
	{ "close", (PyCFunction)split_close, METH_NOARGS, "Free the split binary." },
	{ "facts", (PyCFunction)split_facts, METH_NOARGS,
	  "(kernel name, unsplit, wrappers, search paths, archives) as tuples." },
	{ "entries", (PyCFunction)split_entries, METH_O,
	  "Archive k's TOC entries: (key, target, bundle ID, size, in_file, offset)." },
	{ "codes", (PyCFunction)split_codes, METH_VARARGS,
	  "The entries of archive k that hold wrapper w's code object." },
	{ "read", (PyCFunction)split_read, METH_VARARGS,
	  "Entry i of archive k's code, decompressed, as bytes." },
	{ "uri", (PyCFunction)split_uri, METH_VARARGS,
	  "Entry i of archive k's file:// URI, or None." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef split_getset[] = {
	{ "path", (getter)split_path, NULL, "The name it was opened by.", NULL },
	{ "closed", (getter)split_closed, NULL, "Whether it is closed.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject split_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offcode._offcode.Split",
	.tp_basicsize = sizeof(Split),
	.tp_dealloc = (destructor)split_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An opened kpack-split binary (offcode_split).",
	.tp_methods = split_methods,
	.tp_getset = split_getset,
};

/* A new Split named path (str), not open yet; NULL with an exception.
 * (The type is made ready here, when first used: a listing makes none.) */
static Split *split_new(PyObject *path)
{
	Split *self;

	if (!PyType_HasFeature(&split_type, Py_TPFLAGS_READY) &&
	    PyType_Ready(&split_type) < 0)
		return NULL;
	if (!(self = PyObject_New(Split, &split_type)))
		return NULL;
	self->s = NULL;
	self->has_view = 0;
	self->path = Py_NewRef(path);
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		Py_DECREF(self);
		return (Split *)PyErr_NoMemory();
	}
	return self;
}

/* What an opener made: self, or the error raised (NothingError for a file
 * that is no split binary). */
static PyObject *opened(Split *self, int rc, offcode_error *err)
{
	if (rc == OFFCODE_OK)
		return (PyObject *)self;
	/* (the library gives no record of a file that is no split binary:
	 * its reason is what kpack join says of one) */
	if (rc == OFFCODE_NOTHING && !err)
		errors_raise_own(OFFCODE_NOTHING, self->path,
				 "not a kpack-split binary (no .rocm_kpack_ref section)");
	else
		errors_raise(rc, err);
	offcode_error_free(err);
	Py_DECREF(self);
	return NULL;
}

PyObject *split_open_path(PyObject *mod, PyObject *args)
{
	PyObject *path = NULL, *name;
	offcode_error *err = NULL;
	Split *self;
	int rc;

	(void)mod;
	if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path))
		return NULL;
	name = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(path));
	self = name ? split_new(name) : NULL;
	Py_XDECREF(name);
	if (!self) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_split_open_path(PyBytes_AS_STRING(path), &self->s, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	return opened(self, rc, err);
}

PyObject *split_open_memory(PyObject *mod, PyObject *args)
{
	PyObject *buf, *path = NULL, *name;
	offcode_error *err = NULL;
	Split *self;
	int rc;

	(void)mod;
	if (!PyArg_ParseTuple(args, "OO&", &buf, PyUnicode_FSConverter, &path))
		return NULL;
	name = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(path));
	self = name ? split_new(name) : NULL;
	Py_XDECREF(name);
	if (!self) {
		Py_DECREF(path);
		return NULL;
	}
	if (PyObject_GetBuffer(buf, &self->view, PyBUF_SIMPLE) < 0) {
		Py_DECREF(path);
		Py_DECREF(self);
		return NULL;
	}
	self->has_view = 1;
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_split_open_memory(self->view.buf, (size_t)self->view.len,
				       PyBytes_AS_STRING(path), &self->s, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	return opened(self, rc, err);
}

PyObject *split_image_kind(PyObject *mod, PyObject *arg)
{
	Py_buffer view;
	const char *kind;

	(void)mod;
	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
		return NULL;
	kind = offcode_split_image_kind(view.buf, (uint64_t)view.len);
	PyBuffer_Release(&view);
	return convert_str_or_none(kind);
}

PyObject *split_code_for(PyObject *mod, PyObject *args)
{
	Py_buffer view;
	const char *target;
	char got[256];
	bool ok;

	(void)mod;
	if (!PyArg_ParseTuple(args, "y*s", &view, &target))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ok = offcode_split_code_for(view.buf, (uint64_t)view.len, target, got,
				    sizeof(got));
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&view);
	return Py_BuildValue("(NN)", PyBool_FromLong(ok), text(got));
}
