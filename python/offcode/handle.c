/* handle: the Artifact object and its lock (handle.h). */
#include "handle.h"

#include "errors.h"

static void handle_dealloc(Artifact *self)
{
	/* nobody else holds it now: no call is under way */
	if (!self->borrowed)
		offcode_close(self->a);
	self->a = NULL;
	if (self->free_texts)
		self->free_texts(self->texts);
	PyMem_Free(self->kind_read);
	if (self->has_view)
		PyBuffer_Release(&self->view);
	if (self->lock)
		PyThread_free_lock(self->lock);
	PyObject_Free(self);
}

PyTypeObject handle_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offcode._offcode.Artifact",
	.tp_basicsize = sizeof(Artifact),
	.tp_dealloc = (destructor)handle_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An opened artefact (offcode_artifact).",
};

int handle_walking_here(const Artifact *self)
{
	return self->walker && self->walker == PyThread_get_thread_ident();
}

int handle_take(Artifact *self)
{
	if (handle_walking_here(self)) {
		PyErr_SetString(PyExc_RuntimeError,
				"the artefact is in each_code(): read the code it hands over");
		return -1;
	}
	if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	return 0;
}

int handle_lock(Artifact *self)
{
	if (handle_take(self) < 0)
		return -1;
	if (self->a && !self->file_closed)
		return 0;
	PyThread_release_lock(self->lock);
	PyErr_SetString(PyExc_ValueError, "the artefact is closed");
	return -1;
}

void handle_unlock(Artifact *self)
{
	PyThread_release_lock(self->lock);
}

int handle_walk_begin(Artifact *self, PyThreadState **ts)
{
	if (handle_lock(self) < 0)
		return -1;
	Py_INCREF(self);
	self->walker = PyThread_get_thread_ident();
	*ts = PyEval_SaveThread();
	return 0;
}

void handle_walk_end(Artifact *self, PyThreadState *ts)
{
	PyEval_RestoreThread(ts);
	self->walker = 0;
}

void handle_walk_done(Artifact *self)
{
	handle_unlock(self);
	Py_DECREF(self);
}

Artifact *handle_new(void)
{
	Artifact *self = PyObject_New(Artifact, &handle_type);

	if (!self)
		return NULL;
	self->a = NULL;
	self->walker = 0;
	self->has_view = 0;
	self->borrowed = 0;
	self->making = 0;
	self->file_closed = 0;
	self->kind_read = NULL;
	self->texts = NULL;
	self->free_texts = NULL;
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		Py_DECREF(self);
		return (Artifact *)PyErr_NoMemory();
	}
	return self;
}

/* Its file let go, its records kept for the entries made and to be made
 * of them (freed with the handle): 0, or -1 with an exception (closed
 * from inside a walk).  Closed already by the time the lock is taken
 * (another thread's close() went first while this one waited) is no
 * error. */
static int handle_release(Artifact *self)
{
	if (self->a && !self->file_closed) {
		if (handle_take(self) < 0)
			return -1;
		if (self->borrowed)
			self->a = NULL;
		else if (self->a)
			offcode_close_file(self->a);
		self->file_closed = 1;
		handle_unlock(self);
	}
	if (self->has_view) {
		PyBuffer_Release(&self->view);
		self->has_view = 0;
	}
	return 0;
}

PyObject *handle_close(Artifact *self, PyObject *unused)
{
	(void)unused;
	if (handle_release(self) < 0)
		return NULL;
	Py_RETURN_NONE;
}

PyObject *handle_closed(Artifact *self, void *unused)
{
	(void)unused;
	return PyBool_FromLong(!self->a || self->file_closed);
}

static int opened(Artifact *self)
{
	if (self->a && !self->file_closed)
		return 1;
	PyErr_SetString(PyExc_ValueError, "the artefact is closed");
	return 0;
}

PyObject *handle_path(Artifact *self, void *unused)
{
	(void)unused;
	if (!opened(self))
		return NULL;
	return PyUnicode_DecodeFSDefault(offcode_artifact_path(self->a));
}

PyObject *handle_size(Artifact *self, void *unused)
{
	(void)unused;
	if (!opened(self))
		return NULL;
	return PyLong_FromUnsignedLongLong(offcode_artifact_size(self->a));
}

const offcode_entry *handle_entry(Artifact *self, Py_ssize_t i)
{
	const offcode_entry *e;

	if (i < 0 || (size_t)i >= offcode_entry_count(self->a)) {
		PyErr_SetString(PyExc_IndexError, "no such entry");
		return NULL;
	}
	e = offcode_entry_at(self->a, (size_t)i);
	if (!e)
		PyErr_SetString(PyExc_IndexError, "no such entry");
	return e;
}

const offcode_entry *handle_locked_entry(Artifact *self, Py_ssize_t i)
{
	const offcode_entry *e;

	if (i == -1 && PyErr_Occurred())
		return NULL;
	if (handle_lock(self) < 0)
		return NULL;
	e = handle_entry(self, i);
	if (!e)
		handle_unlock(self);
	return e;
}

void handle_mark_kind_read(Artifact *self, Py_ssize_t i)
{
	size_t n = offcode_entry_count(self->a);

	/* (no room: the kind is not read after close(), as before) */
	if (!self->kind_read && !(self->kind_read = PyMem_Calloc(n / 8 + 1, 1)))
		return;
	if (i >= 0 && (size_t)i < n)
		self->kind_read[i / 8] |= (unsigned char)(1u << (i % 8));
}

int handle_kind_was_read(const Artifact *self, Py_ssize_t i)
{
	return self->kind_read && i >= 0 && self->a && (size_t)i < offcode_entry_count(self->a) &&
	       (self->kind_read[i / 8] & (1u << (i % 8)));
}

PyObject *handle_raise_last(Artifact *self, int rc)
{
	return errors_raise(rc, offcode_last_error(self->a));
}
