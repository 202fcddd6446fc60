/* code: an entry's code read, written, walked, matched and its kernels
 * listed (code.h). */
#include "code.h"

#include "convert.h"
#include "errors.h"
#include "handle.h"
#include "kernels.h"

/* read(i): entry i's code, decompressed, as bytes. */
PyObject *code_read(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = handle_locked_entry(self, PyLong_AsSsize_t(arg));
	offcode_artifact *a = self->a;
	uint64_t size = 0;
	PyObject *b = NULL;
	int rc;

	if (!e)
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_read(a, e, NULL, 0, &size));
	if (rc && rc != OFFCODE_RANGE) {
		handle_raise_last(self, rc);
		goto out;
	}
	if (size > PY_SSIZE_T_MAX) {
		PyErr_NoMemory();
		goto out;
	}
	b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
	if (!b)
		goto out;
	UNLOCKED_GIL(rc = offcode_entry_read(a, e, PyBytes_AS_STRING(b), (size_t)size, &size));
	if (rc) {
		Py_CLEAR(b);
		handle_raise_last(self, rc);
	}
out:
	handle_unlock(self);
	return b;
}

/* read_into(i, buffer): entry i's code into a writable buffer; its length,
 * or offcode.RangeError when it does not fit. */
PyObject *code_read_into(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	Py_buffer view;
	const offcode_entry *e;
	uint64_t size = 0;
	PyObject *r = NULL;
	int rc;

	if (!PyArg_ParseTuple(args, "nw*", &i, &view))
		return NULL;
	if (!(e = handle_locked_entry(self, i))) {
		PyBuffer_Release(&view);
		return NULL;
	}
	UNLOCKED_GIL(rc = offcode_entry_read(self->a, e, view.buf, (size_t)view.len, &size));
	if (rc)
		handle_raise_last(self, rc);
	else
		r = PyLong_FromUnsignedLongLong(size);
	handle_unlock(self);
	PyBuffer_Release(&view);
	return r;
}

/* code_size(i): the length of entry i's code, decompressed. */
PyObject *code_size(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = handle_locked_entry(self, PyLong_AsSsize_t(arg));
	uint64_t size = 0;
	PyObject *r = NULL;
	int rc;

	if (!e)
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_read(self->a, e, NULL, 0, &size));
	if (rc && rc != OFFCODE_RANGE)
		handle_raise_last(self, rc);
	else
		r = PyLong_FromUnsignedLongLong(size);
	handle_unlock(self);
	return r;
}

/* write_path(i, path) and write_fd(i, fd) */
PyObject *code_write_path(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	PyObject *path, *r = NULL;
	const offcode_entry *e;
	int rc;

	if (!PyArg_ParseTuple(args, "nO&", &i, PyUnicode_FSConverter, &path))
		return NULL;
	if (!(e = handle_locked_entry(self, i))) {
		Py_DECREF(path);
		return NULL;
	}
	UNLOCKED_GIL(rc = offcode_entry_write_path(self->a, e, PyBytes_AS_STRING(path)));
	if (rc)
		handle_raise_last(self, rc);
	else
		r = (Py_INCREF(Py_None), Py_None);
	handle_unlock(self);
	Py_DECREF(path);
	return r;
}

PyObject *code_write_fd(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	int fd, rc;
	const offcode_entry *e;
	PyObject *r = NULL;

	if (!PyArg_ParseTuple(args, "ni", &i, &fd))
		return NULL;
	if (!(e = handle_locked_entry(self, i)))
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_write_fd(self->a, e, fd));
	if (rc)
		handle_raise_last(self, rc);
	else
		r = (Py_INCREF(Py_None), Py_None);
	handle_unlock(self);
	return r;
}

/* each_code and each_path: one walk of every entry in order, the
 * library's, fn called for each with the GIL, the artefact's lock held on
 * this thread throughout (a call on the artefact from fn is refused, not
 * deadlocked: handle_take); an exception from fn stops the walk and is
 * raised.
 *
 * each_code(fn): fn(i, code) for every entry, each CCOB inflated once.
 * The code is handed over as bytes, a copy: the library's bytes are valid
 * during the call only, and a memoryview of them (or a slice of one) kept
 * past it could not be taken back.  A true result of fn stops the walk.
 *
 * each_path(fn): every entry's code written to the file fn(i) names (a
 * path, or None to leave it out), offcode_code_foreach_path: the code
 * never enters Python. */
struct code_walk {
	Artifact *self;
	PyObject *fn;
	PyThreadState *ts;	/* the thread's state while the library runs */
	size_t next;		/* the index of the entry to come */
	PyObject *path;		/* each_path: fn's last path (bytes), held until the next */
	int failed;		/* fn raised: its exception is the walk's */
	int stopped;		/* fn's true result stopped it (each_code) */
};

/* The GIL taken back for entry e: its index, found from where the last
 * entry was (they come in order). */
static Py_ssize_t walk_resume(struct code_walk *w, const offcode_entry *e)
{
	size_t i = w->next, n = offcode_entry_count(w->self->a);

	while (i < n && offcode_entry_at(w->self->a, i) != e)
		i++;
	w->next = i + 1;
	PyEval_RestoreThread(w->ts);
	return (Py_ssize_t)i;
}

/* fn's result r (NULL: it raised) let go and the GIL with it: what the
 * library's walk is told, nonzero to stop (an exception; fn's true result
 * when stops).  The flags say which: the walk returns that value, and a
 * failure of its own returns a code, any of which could be the same. */
static int walk_pause(struct code_walk *w, PyObject *r, int stops)
{
	int stop = 0;

	if (!r) {
		w->failed = 1;
		stop = 1;
	} else if (stops && PyObject_IsTrue(r)) {
		w->stopped = 1;
		stop = 1;
	}
	Py_XDECREF(r);
	w->ts = PyEval_SaveThread();
	return stop;
}

static int code_one(void *ctx, const offcode_entry *e, const void *code, size_t size)
{
	struct code_walk *w = ctx;
	Py_ssize_t i = walk_resume(w, e);
	PyObject *bytes = PyBytes_FromStringAndSize(code, (Py_ssize_t)size);
	PyObject *r = bytes ? PyObject_CallFunction(w->fn, "nO", i, bytes) : NULL;

	Py_XDECREF(bytes);
	return walk_pause(w, r, 1);
}

static int path_one(void *ctx, const offcode_entry *e, const char **path)
{
	struct code_walk *w = ctx;
	Py_ssize_t i = walk_resume(w, e);
	PyObject *r;

	Py_CLEAR(w->path);
	r = PyObject_CallFunction(w->fn, "n", i);
	if (r && r != Py_None) {
		if (PyUnicode_FSConverter(r, &w->path)) {
			*path = PyBytes_AS_STRING(w->path);
		} else {
			Py_DECREF(r);
			r = NULL;
		}
	}
	return walk_pause(w, r, 0);
}

/* The walk, fn's function code_one (each_code) or path_one (each_path):
 * True when fn stopped it, None when it went to the end. */
static PyObject *code_walk(Artifact *self, PyObject *fn, int paths)
{
	struct code_walk w = { .self = self, .fn = fn };
	PyObject *r = NULL;
	int rc;

	if (!PyCallable_Check(fn)) {
		PyErr_Format(PyExc_TypeError, "%s() takes a callable",
			     paths ? "each_path" : "each_code");
		return NULL;
	}
	if (handle_walk_begin(self, &w.ts) < 0)
		return NULL;
	rc = paths ? offcode_code_foreach_path(self->a, path_one, &w)
		   : offcode_code_foreach(self->a, code_one, &w);
	handle_walk_end(self, w.ts);
	Py_XDECREF(w.path);
	if (w.failed)
		;
	else if (w.stopped)
		r = (Py_INCREF(Py_True), Py_True);
	else if (rc)
		handle_raise_last(self, rc);
	else
		r = (Py_INCREF(Py_None), Py_None);
	handle_walk_done(self);
	return r;
}

PyObject *code_each_code(Artifact *self, PyObject *fn)
{
	return code_walk(self, fn, 0);
}

PyObject *code_each_path(Artifact *self, PyObject *fn)
{
	return code_walk(self, fn, 1);
}

/* image_kind(i): entry i's image kind, read from its code's first bytes
 * the first time it is asked (the listing leaves it out: a read of the
 * file for each entry, which a listing does without).  Allowed from inside
 * each_code and each_path, whose walk holds the lock on this thread: the
 * read touches nothing of the walk's. */
PyObject *code_image_kind_of(Artifact *self, Py_ssize_t i)
{
	const offcode_entry *e;
	const char *kind;

	if (handle_walking_here(self)) {
		if (!(e = handle_entry(self, i)))
			return NULL;
		kind = offcode_entry_image_kind(e);
		handle_mark_kind_read(self, i);
		return convert_str_or_none(kind);
	}
	/* Closed: a kind read while the file was open, by this entry's
	 * object or another of the same entry (made and let go: entries are
	 * made when asked for), is its record's, read with no file. */
	if (self->file_closed && handle_kind_was_read(self, i)) {
		if (handle_take(self) < 0)
			return NULL;
		kind = self->a ? offcode_entry_image_kind(offcode_entry_at(self->a, (size_t)i))
			       : NULL;
		handle_unlock(self);
		return convert_str_or_none(kind);
	}
	if (!(e = handle_locked_entry(self, i)))
		return NULL;
	UNLOCKED_GIL(kind = offcode_entry_image_kind(e));
	handle_mark_kind_read(self, i);
	handle_unlock(self);
	return convert_str_or_none(kind);
}

PyObject *code_image_kind(Artifact *self, PyObject *arg)
{
	Py_ssize_t i = PyLong_AsSsize_t(arg);

	if (i == -1 && PyErr_Occurred())
		return NULL;
	return code_image_kind_of(self, i);
}

/* ---- matching ---- */

/* matches(i, rules, exact) */
PyObject *code_matches(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	const char *rules;
	int exact = 0, rc;
	bool match = false;
	const offcode_entry *e;
	PyObject *r = NULL;

	if (!PyArg_ParseTuple(args, "ns|p", &i, &rules, &exact))
		return NULL;
	if (!(e = handle_locked_entry(self, i)))
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_matches(self->a, e, rules,
						exact ? OFFCODE_MATCH_EXACT : 0, &match));
	if (rc)
		handle_raise_last(self, rc);
	else
		r = PyBool_FromLong(match);
	handle_unlock(self);
	return r;
}

/* ---- kernels ---- */

/* kernels(i): kernels_tuple's tuple (kernels.h), or None where there are
 * none to read (OFFCODE_NOTHING). */
PyObject *code_kernels(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = handle_locked_entry(self, PyLong_AsSsize_t(arg));
	const offcode_kernels *k = NULL;
	PyObject *r = NULL;
	int rc;

	if (!e)
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_kernels(self->a, e, &k));
	if (rc == OFFCODE_NOTHING)
		r = (Py_INCREF(Py_None), Py_None);
	else if (rc)
		handle_raise_last(self, rc);
	else
		r = kernels_tuple(k);
	if (k)
		offcode_kernels_free(self->a, k);
	handle_unlock(self);
	return r;
}
