/* _offcode: the C half of the offcode package, a thin layer over liboffcode
 * (include/offcode.h).  It hands out the artefact's listing as tuples and
 * its code as bytes; offcode/__init__.py makes the objects people use.
 *
 * One artefact must not be used from two threads at once (offcode.h), and
 * the long calls (open, read, prune) run without the GIL, so each artefact
 * has a lock that every call on it takes (waiting for it without the GIL),
 * and closing it takes too: an entry a call found cannot be freed under
 * it.  Over 800 lines: the artefact type, its entry and kernel views and
 * the error classes share that lock and the conversions; they are one
 * object model, split they would export helpers to each other. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <structmember.h>

#include <offcode.h>

/* ---- errors: one class per enum offcode_code, under offcode.Error ---- */

#define CODES (OFFCODE_BAD_HASH + 1)

static PyObject *error_base;
static PyObject *error_class[CODES];
static PyTypeObject error_record_type;

static PyStructSequence_Field record_fields[] = {
	{ "code", "the enum offcode_code value" },
	{ "code_name", "its name: 'truncated', 'malformed', ..." },
	{ "errno", "the errno of a failed system call, or 0" },
	{ "offset", "where in the data it failed, or None" },
	{ "path", "the file it concerns ('' when none)" },
	{ "reason", "what went wrong, the path left out" },
	{ "message", "'<path>': <reason>" },
	{ NULL, NULL },
};

static PyStructSequence_Desc record_desc = {
	"offcode.ErrorRecord",
	"One link of an error's chain, the outermost first.",
	record_fields, 7,
};

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* A message: bytes from files in it that are not UTF-8 kept as they are
 * (surrogateescape, as os.fsdecode does). */
static PyObject *decoded(const char *s)
{
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

static PyObject *record_of(const offcode_error *e)
{
	PyObject *r = PyStructSequence_New(&error_record_type);
	enum offcode_code code = offcode_error_code(e);
	const char *name = offcode_code_name(code);
	uint64_t offset;
	PyObject *off;

	if (!r)
		return NULL;
	if (offcode_error_offset(e, &offset)) {
		off = PyLong_FromUnsignedLongLong(offset);
	} else {
		off = Py_None;
		Py_INCREF(off);
	}
	PyStructSequence_SET_ITEM(r, 0, PyLong_FromLong(code));
	PyStructSequence_SET_ITEM(r, 1, PyUnicode_FromString(name ? name : "?"));
	PyStructSequence_SET_ITEM(r, 2, PyLong_FromLong(offcode_error_errno(e)));
	PyStructSequence_SET_ITEM(r, 3, off);
	PyStructSequence_SET_ITEM(r, 4, PyUnicode_DecodeFSDefault(or_empty(offcode_error_path(e))));
	PyStructSequence_SET_ITEM(r, 5, decoded(or_empty(offcode_error_reason(e))));
	PyStructSequence_SET_ITEM(r, 6, decoded(or_empty(offcode_error_message(e))));
	for (Py_ssize_t i = 0; i < 7; i++)
		if (!PyStructSequence_GET_ITEM(r, i)) {
			Py_DECREF(r);
			return NULL;
		}
	return r;
}

/* Raise the class of code (the record's own when there is one) with the
 * record's message, its fields as attributes and its chain. */
static PyObject *raise_error(int code, const offcode_error *e)
{
	PyObject *chain = NULL, *exc = NULL, *first, *cls;
	const offcode_error *link;

	if (e)
		code = offcode_error_code(e);
	if (code == OFFCODE_NOMEM && !e)
		return PyErr_NoMemory();
	cls = code > 0 && code < CODES ? error_class[code] : error_base;
	if (!e) {
		const char *name = offcode_code_name(code);

		PyErr_Format(cls, "%s", name ? name : "unknown error");
		return NULL;
	}
	chain = PyList_New(0);
	if (!chain)
		goto out;
	for (link = e; link; link = offcode_error_cause(link)) {
		PyObject *r = record_of(link);

		if (!r || PyList_Append(chain, r) < 0) {
			Py_XDECREF(r);
			goto out;
		}
		Py_DECREF(r);
	}
	first = PyList_GET_ITEM(chain, 0);
	exc = PyObject_CallFunctionObjArgs(cls, PyStructSequence_GET_ITEM(first, 6), NULL);
	if (!exc)
		goto out;
	if (PyObject_SetAttrString(exc, "code", PyStructSequence_GET_ITEM(first, 0)) < 0 ||
	    PyObject_SetAttrString(exc, "code_name", PyStructSequence_GET_ITEM(first, 1)) < 0 ||
	    PyObject_SetAttrString(exc, "errno", PyStructSequence_GET_ITEM(first, 2)) < 0 ||
	    PyObject_SetAttrString(exc, "offset", PyStructSequence_GET_ITEM(first, 3)) < 0 ||
	    PyObject_SetAttrString(exc, "path", PyStructSequence_GET_ITEM(first, 4)) < 0 ||
	    PyObject_SetAttrString(exc, "reason", PyStructSequence_GET_ITEM(first, 5)) < 0 ||
	    PyObject_SetAttrString(exc, "chain", chain) < 0)
		goto out;
	PyErr_SetObject(cls, exc);
out:
	Py_XDECREF(chain);
	Py_XDECREF(exc);
	return NULL;
}

/* ---- the artefact ---- */

typedef struct {
	PyObject_HEAD
	offcode_artifact *a;	/* set and cleared holding the GIL and lock */
	PyThread_type_lock lock;
	unsigned long walker;	/* the thread in each_code, or 0 */
	Py_buffer view;		/* the caller's bytes, borrowed while open */
	int has_view;
	/* A file of a package handed over by walk_layer: the library's, for
	 * the call alone (never closed here; a is cleared after it). */
	int borrowed;
} Artifact;

static PyTypeObject artifact_type;

/* Take self's lock (waiting without the GIL, so that whoever holds it can
 * finish): 0 with the GIL and the lock held and the artefact open, or -1
 * with an exception.  each_code holds the lock while its function runs:
 * a call on the artefact from there is refused, not deadlocked. */
static int take(Artifact *self)
{
	if (self->walker && self->walker == PyThread_get_thread_ident()) {
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

static int lock(Artifact *self)
{
	if (take(self) < 0)
		return -1;
	if (self->a)
		return 0;
	PyThread_release_lock(self->lock);
	PyErr_SetString(PyExc_ValueError, "the artefact is closed");
	return -1;
}

static void unlock(Artifact *self)
{
	PyThread_release_lock(self->lock);
}

/* Run stmt without the GIL (the lock held). */
#define UNLOCKED_GIL(stmt) do { \
		Py_BEGIN_ALLOW_THREADS \
		stmt; \
		Py_END_ALLOW_THREADS \
	} while (0)

/* PyArg "O&" converters of Python ints that fail with OverflowError past
 * the C type's range ("K" and "I" wrap silently: 2**64 would be 0, the
 * library's default, instead of refused). */
static int u64_arg(PyObject *o, void *to)
{
	unsigned long long v;

	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "an integer is required, not %.100s",
			     Py_TYPE(o)->tp_name);
		return 0;
	}
	v = PyLong_AsUnsignedLongLong(o);
	if (v == (unsigned long long)-1 && PyErr_Occurred())
		return 0;
	*(unsigned long long *)to = v;
	return 1;
}

static int uint_arg(PyObject *o, void *to)
{
	unsigned long long v;

	if (!u64_arg(o, &v))
		return 0;
	if (v > UINT_MAX) {
		PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C unsigned int");
		return 0;
	}
	*(unsigned *)to = (unsigned)v;
	return 1;
}

static int open_options(struct offcode_open_options *o, int verify,
			unsigned long long max_size, unsigned long long max_ratio)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->flags = verify ? OFFCODE_OPEN_VERIFY : 0;
	o->ccob_max_size = max_size;
	o->ccob_max_ratio = max_ratio;
	return 0;
}

static Artifact *artifact_new(void)
{
	Artifact *self = PyObject_New(Artifact, &artifact_type);

	if (!self)
		return NULL;
	self->a = NULL;
	self->walker = 0;
	self->has_view = 0;
	self->borrowed = 0;
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		Py_DECREF(self);
		return (Artifact *)PyErr_NoMemory();
	}
	return self;
}

/* 0, or -1 with an exception (closed from inside each_code).  Closed
 * already by the time the lock is taken (another thread's close() went
 * first while this one waited) is no error. */
static int artifact_release(Artifact *self)
{
	if (self->a) {
		if (take(self) < 0)
			return -1;
		if (!self->borrowed)
			offcode_close(self->a);
		self->a = NULL;
		unlock(self);
	}
	if (self->has_view) {
		PyBuffer_Release(&self->view);
		self->has_view = 0;
	}
	return 0;
}

static void artifact_dealloc(Artifact *self)
{
	/* nobody else holds it now: no call is under way */
	if (!self->borrowed)
		offcode_close(self->a);
	self->a = NULL;
	if (self->has_view)
		PyBuffer_Release(&self->view);
	if (self->lock)
		PyThread_free_lock(self->lock);
	PyObject_Free(self);
}

static int opened(Artifact *self)
{
	if (self->a)
		return 1;
	PyErr_SetString(PyExc_ValueError, "the artefact is closed");
	return 0;
}

/* Entry i, the lock held. */
static const offcode_entry *entry_of(Artifact *self, Py_ssize_t i)
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
			      &verify, u64_arg, &max_size, u64_arg, &max_ratio))
		return NULL;
	open_options(&o, verify, max_size, max_ratio);
	o.flags |= flags;
	self = artifact_new();
	if (!self) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_open_path(PyBytes_AS_STRING(path), &o, &self->a, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (rc) {
		raise_error(rc, err);
		offcode_error_free(err);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

/* open_path(path, verify, ccob_max_size, ccob_max_ratio) */
static PyObject *open_path(PyObject *mod, PyObject *args)
{
	(void)mod;
	return open_path_with(args, 0);
}

/* open_fd(fd, name, verify, ccob_max_size, ccob_max_ratio) */
static PyObject *open_fd(PyObject *mod, PyObject *args)
{
	PyObject *name = NULL;
	int fd, verify = 0, rc;
	unsigned long long max_size = 0, max_ratio = 0;
	struct offcode_open_options o;
	offcode_error *err = NULL;
	Artifact *self;

	(void)mod;
	if (!PyArg_ParseTuple(args, "iO&|pO&O&", &fd, PyUnicode_FSConverter, &name,
			      &verify, u64_arg, &max_size, u64_arg, &max_ratio))
		return NULL;
	open_options(&o, verify, max_size, max_ratio);
	self = artifact_new();
	if (!self) {
		Py_DECREF(name);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_open_fd(fd, PyBytes_AS_STRING(name), &o, &self->a, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(name);
	if (rc) {
		raise_error(rc, err);
		offcode_error_free(err);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

/* open_memory(buffer, name, verify, ccob_max_size, ccob_max_ratio): the
 * bytes are borrowed, not copied; the artefact holds the buffer (a
 * bytearray cannot be resized meanwhile). */
static PyObject *open_memory(PyObject *mod, PyObject *args)
{
	PyObject *name = NULL, *buf;
	int verify = 0, rc;
	unsigned long long max_size = 0, max_ratio = 0;
	struct offcode_open_options o;
	offcode_error *err = NULL;
	Artifact *self;

	(void)mod;
	if (!PyArg_ParseTuple(args, "OO&|pO&O&", &buf, PyUnicode_FSConverter, &name,
			      &verify, u64_arg, &max_size, u64_arg, &max_ratio))
		return NULL;
	open_options(&o, verify, max_size, max_ratio);
	o.flags |= OFFCODE_OPEN_BORROW;
	self = artifact_new();
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
	if (rc) {
		raise_error(rc, err);
		offcode_error_free(err);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

static PyObject *artifact_close(Artifact *self, PyObject *unused)
{
	(void)unused;
	if (artifact_release(self) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *artifact_closed(Artifact *self, void *unused)
{
	(void)unused;
	return PyBool_FromLong(!self->a);
}

/* ---- the listing ---- */

static PyObject *text_or_none(const char *s, size_t len)
{
	if (!s)
		Py_RETURN_NONE;
	return PyBytes_FromStringAndSize(s, (Py_ssize_t)len);
}

static PyObject *str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

static PyObject *u64_if(bool known, uint64_t v)
{
	if (!known)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(v);
}

/* A kind's own fields as a list of (key, type, number, text) rows, in
 * order; offcode/__init__.py nests them. */
static PyObject *fields_of(size_t n, int (*get)(const void *, size_t, struct offcode_field *),
			   const void *what)
{
	PyObject *list = PyList_New((Py_ssize_t)n);

	if (!list)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct offcode_field f;
		PyObject *row;

		memset(&f, 0, sizeof(f));
		if (get(what, i, &f)) {
			Py_DECREF(list);
			PyErr_SetString(PyExc_RuntimeError, "field past the count");
			return NULL;
		}
		row = Py_BuildValue("(ziKN)", f.key, (int)f.type,
				    (unsigned long long)f.number,
				    text_or_none(f.text, f.text_len));
		if (!row) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, row);
	}
	return list;
}

static int container_field(const void *c, size_t i, struct offcode_field *f)
{
	return offcode_container_field(c, i, f);
}

static int entry_field(const void *e, size_t i, struct offcode_field *f)
{
	return offcode_entry_field(e, i, f);
}

/* (inputs, containers, entries): each a list of tuples, which
 * offcode/__init__.py describes (Input, Container, Entry).  Objects are
 * named by their index in these lists. */
static PyObject *artifact_listing(Artifact *self, PyObject *unused)
{
	PyObject *inputs = NULL, *containers = NULL, *entries = NULL, *r = NULL;
	const offcode_artifact *a;
	size_t ni, nc, ne, e0 = 0;

	(void)unused;
	if (lock(self) < 0)
		return NULL;
	a = self->a;
	ni = offcode_input_count(a);
	nc = offcode_container_count(a);
	ne = offcode_entry_count(a);
	inputs = PyList_New((Py_ssize_t)ni);
	containers = PyList_New((Py_ssize_t)nc);
	entries = PyList_New((Py_ssize_t)ne);
	if (!inputs || !containers || !entries)
		goto out;
	for (size_t i = 0; i < ni; i++) {
		const offcode_input *in = offcode_input_at(a, i);
		const offcode_input *parent = offcode_input_parent(in);
		Py_ssize_t p = -1;
		size_t len = 0;
		const char *name = offcode_input_name(in, &len);
		PyObject *t;

		for (size_t k = 0; parent && k < i; k++)
			if (offcode_input_at(a, k) == parent)
				p = (Py_ssize_t)k;
		t = Py_BuildValue("(NsKKIn)", text_or_none(name, len),
				  offcode_input_format(in),
				  (unsigned long long)offcode_input_offset(in),
				  (unsigned long long)offcode_input_size(in),
				  offcode_input_depth(in), p);
		if (!t)
			goto out;
		PyList_SET_ITEM(inputs, (Py_ssize_t)i, t);
	}
	for (size_t i = 0; i < nc; i++) {
		const offcode_container *c = offcode_container_at(a, i);
		const offcode_input *in = offcode_container_input(c);
		uint64_t offset = 0;
		unsigned version = 0;
		uint32_t sindex = 0;
		const char *sname = NULL, *skind = NULL;
		bool has_offset = offcode_container_offset(c, &offset);
		bool has_version = offcode_container_version(c, &version);
		size_t n = offcode_container_entry_count(c);
		Py_ssize_t input = -1;
		PyObject *section, *t;

		for (size_t k = 0; k < ni; k++)
			if (offcode_input_at(a, k) == in)
				input = (Py_ssize_t)k;
		if (offcode_container_section(c, &sindex, &sname, &skind))
			section = Py_BuildValue("(INN)", (unsigned)sindex,
						text_or_none(sname, sname ? strlen(sname) : 0),
						str_or_none(skind));
		else
			section = (Py_INCREF(Py_None), Py_None);
		t = Py_BuildValue("(nIsNKNNNnn)", input,
				  offcode_container_number(c),
				  offcode_container_format(c),
				  u64_if(has_offset, offset),
				  (unsigned long long)offcode_container_size(c),
				  u64_if(has_version, version), section,
				  fields_of(offcode_container_field_count(c),
					    container_field, c),
				  (Py_ssize_t)e0, (Py_ssize_t)n);
		if (!t)
			goto out;
		PyList_SET_ITEM(containers, (Py_ssize_t)i, t);
		e0 += n;
	}
	/* Entries come container by container (offcode.h), so the entry's
	 * container is found by walking them alongside. */
	for (size_t i = 0, c = 0, end = 0; i < ne; i++) {
		const offcode_entry *e = offcode_entry_at(a, i);
		uint64_t offset = 0;
		bool has_offset = offcode_entry_offset(e, &offset);
		size_t lid = 0, lkind = 0, ltriple = 0, larch = 0;
		const char *id = offcode_entry_id(e, &lid);
		const char *kind = offcode_entry_offload_kind(e, &lkind);
		const char *triple = offcode_entry_triple(e, &ltriple);
		const char *arch = offcode_entry_target_id(e, &larch);
		PyObject *t;

		while (c < nc && i >= end + offcode_container_entry_count(offcode_container_at(a, c))) {
			end += offcode_container_entry_count(offcode_container_at(a, c));
			c++;
		}
		if (c >= nc || offcode_container_at(a, c) != offcode_entry_container(e)) {
			PyErr_SetString(PyExc_RuntimeError,
					"entries out of their containers' order");
			goto out;
		}
		t = Py_BuildValue("(nINNNNNNNKNNNN)", (Py_ssize_t)c,
				  offcode_entry_index(e),
				  text_or_none(id, lid), text_or_none(kind, lkind),
				  text_or_none(triple, ltriple),
				  text_or_none(arch, larch),
				  str_or_none(offcode_entry_processor(e)),
				  str_or_none(offcode_entry_features(e)),
				  /* (read when asked: image_kind(i)) */
				  (Py_INCREF(Py_None), Py_None),
				  (unsigned long long)offcode_entry_size(e),
				  u64_if(has_offset, offset),
				  PyBool_FromLong(offcode_entry_compressed(e)),
				  fields_of(offcode_entry_field_count(e),
					    entry_field, e),
				  str_or_none(offcode_entry_uri(e)));
		if (!t)
			goto out;
		PyList_SET_ITEM(entries, (Py_ssize_t)i, t);
	}
	r = PyTuple_Pack(3, inputs, containers, entries);
out:
	unlock(self);
	Py_XDECREF(inputs);
	Py_XDECREF(containers);
	Py_XDECREF(entries);
	return r;
}

static PyObject *artifact_path(Artifact *self, void *unused)
{
	(void)unused;
	if (!opened(self))
		return NULL;
	return PyUnicode_DecodeFSDefault(offcode_artifact_path(self->a));
}

static PyObject *artifact_size(Artifact *self, void *unused)
{
	(void)unused;
	if (!opened(self))
		return NULL;
	return PyLong_FromUnsignedLongLong(offcode_artifact_size(self->a));
}

/* ---- code ---- */

/* The artefact's record of the call that failed, raised (the lock held). */
static PyObject *last_error(Artifact *self, int rc)
{
	return raise_error(rc, offcode_last_error(self->a));
}

/* Entry i of the arg, the lock taken: NULL with an exception (and the lock
 * not held) when there is none. */
static const offcode_entry *locked_entry(Artifact *self, Py_ssize_t i)
{
	const offcode_entry *e;

	if (i == -1 && PyErr_Occurred())
		return NULL;
	if (lock(self) < 0)
		return NULL;
	e = entry_of(self, i);
	if (!e)
		unlock(self);
	return e;
}

/* read(i): entry i's code, decompressed, as bytes. */
static PyObject *artifact_read(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = locked_entry(self, PyLong_AsSsize_t(arg));
	offcode_artifact *a = self->a;
	uint64_t size = 0;
	PyObject *b = NULL;
	int rc;

	if (!e)
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_read(a, e, NULL, 0, &size));
	if (rc && rc != OFFCODE_RANGE) {
		last_error(self, rc);
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
		last_error(self, rc);
	}
out:
	unlock(self);
	return b;
}

/* read_into(i, buffer): entry i's code into a writable buffer; its length,
 * or offcode.RangeError when it does not fit. */
static PyObject *artifact_read_into(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	Py_buffer view;
	const offcode_entry *e;
	uint64_t size = 0;
	PyObject *r = NULL;
	int rc;

	if (!PyArg_ParseTuple(args, "nw*", &i, &view))
		return NULL;
	if (!(e = locked_entry(self, i))) {
		PyBuffer_Release(&view);
		return NULL;
	}
	UNLOCKED_GIL(rc = offcode_entry_read(self->a, e, view.buf, (size_t)view.len, &size));
	if (rc)
		last_error(self, rc);
	else
		r = PyLong_FromUnsignedLongLong(size);
	unlock(self);
	PyBuffer_Release(&view);
	return r;
}

/* code_size(i): the length of entry i's code, decompressed. */
static PyObject *artifact_code_size(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = locked_entry(self, PyLong_AsSsize_t(arg));
	uint64_t size = 0;
	PyObject *r = NULL;
	int rc;

	if (!e)
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_read(self->a, e, NULL, 0, &size));
	if (rc && rc != OFFCODE_RANGE)
		last_error(self, rc);
	else
		r = PyLong_FromUnsignedLongLong(size);
	unlock(self);
	return r;
}

/* write_path(i, path) and write_fd(i, fd) */
static PyObject *artifact_write_path(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	PyObject *path, *r = NULL;
	const offcode_entry *e;
	int rc;

	if (!PyArg_ParseTuple(args, "nO&", &i, PyUnicode_FSConverter, &path))
		return NULL;
	if (!(e = locked_entry(self, i))) {
		Py_DECREF(path);
		return NULL;
	}
	UNLOCKED_GIL(rc = offcode_entry_write_path(self->a, e, PyBytes_AS_STRING(path)));
	if (rc)
		last_error(self, rc);
	else
		r = (Py_INCREF(Py_None), Py_None);
	unlock(self);
	Py_DECREF(path);
	return r;
}

static PyObject *artifact_write_fd(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	int fd, rc;
	const offcode_entry *e;
	PyObject *r = NULL;

	if (!PyArg_ParseTuple(args, "ni", &i, &fd))
		return NULL;
	if (!(e = locked_entry(self, i)))
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_write_fd(self->a, e, fd));
	if (rc)
		last_error(self, rc);
	else
		r = (Py_INCREF(Py_None), Py_None);
	unlock(self);
	return r;
}

/* each_code(fn): fn(i, code) for every entry in order, each CCOB inflated
 * once.  The code is handed over as bytes, a copy: the library's bytes are
 * valid during the call only, and a memoryview of them (or a slice of one)
 * kept past it could not be taken back.  A true result of fn stops the
 * walk.  The lock is held throughout, fn running with the GIL. */
struct each {
	Artifact *self;
	PyObject *fn;
	PyThreadState *ts;
	size_t next;		/* the index of the entry to come */
	int failed;
};

static int each_one(void *ctx, const offcode_entry *e, const void *code, size_t size)
{
	struct each *w = ctx;
	PyObject *bytes, *r;
	size_t i = w->next, n = offcode_entry_count(w->self->a);
	int stop;

	/* Entries come in order: find e from where the last one was. */
	while (i < n && offcode_entry_at(w->self->a, i) != e)
		i++;
	w->next = i + 1;
	PyEval_RestoreThread(w->ts);
	bytes = PyBytes_FromStringAndSize(code, (Py_ssize_t)size);
	r = bytes ? PyObject_CallFunction(w->fn, "nO", (Py_ssize_t)i, bytes) : NULL;
	Py_XDECREF(bytes);
	if (!r) {
		w->failed = 1;
		stop = 1;
	} else {
		stop = PyObject_IsTrue(r) ? 2 : 0;
		Py_DECREF(r);
	}
	w->ts = PyEval_SaveThread();
	return stop;
}

static PyObject *artifact_each_code(Artifact *self, PyObject *fn)
{
	struct each w = { self, fn, NULL, 0, 0 };
	PyObject *r = NULL;
	int rc;

	if (!PyCallable_Check(fn)) {
		PyErr_SetString(PyExc_TypeError, "each_code() takes a callable");
		return NULL;
	}
	if (lock(self) < 0)
		return NULL;
	Py_INCREF(self);
	self->walker = PyThread_get_thread_ident();
	w.ts = PyEval_SaveThread();
	rc = offcode_code_foreach(self->a, each_one, &w);
	PyEval_RestoreThread(w.ts);
	self->walker = 0;
	if (w.failed)
		;
	else if (rc == 2)
		r = (Py_INCREF(Py_True), Py_True);
	else if (rc)
		last_error(self, rc);
	else
		r = (Py_INCREF(Py_None), Py_None);
	unlock(self);
	Py_DECREF(self);
	return r;
}

/* each_path(fn): every entry's code written to the file fn(i) names (a
 * path, or None to leave it out), in one walk (offcode_code_foreach_path):
 * the code never enters Python.  fn runs with the GIL, the lock held, as
 * each_code's does; an exception from it stops the walk and is raised. */
struct each_path {
	Artifact *self;
	PyObject *fn;
	PyThreadState *ts;
	size_t next;		/* the index of the entry to come */
	PyObject *path;		/* fn's last path (bytes), held until the next */
	int failed;
};

static int each_path_one(void *ctx, const offcode_entry *e, const char **path)
{
	struct each_path *w = ctx;
	size_t i = w->next, n = offcode_entry_count(w->self->a);
	PyObject *r;
	int stop = 0;

	while (i < n && offcode_entry_at(w->self->a, i) != e)
		i++;
	w->next = i + 1;
	PyEval_RestoreThread(w->ts);
	Py_CLEAR(w->path);
	r = PyObject_CallFunction(w->fn, "n", (Py_ssize_t)i);
	if (!r || (r != Py_None && !PyUnicode_FSConverter(r, &w->path))) {
		w->failed = 1;
		stop = 1;
	} else if (r != Py_None) {
		*path = PyBytes_AS_STRING(w->path);
	}
	Py_XDECREF(r);
	w->ts = PyEval_SaveThread();
	return stop;
}

static PyObject *artifact_each_path(Artifact *self, PyObject *fn)
{
	struct each_path w = { self, fn, NULL, 0, NULL, 0 };
	PyObject *r = NULL;
	int rc;

	if (!PyCallable_Check(fn)) {
		PyErr_SetString(PyExc_TypeError, "each_path() takes a callable");
		return NULL;
	}
	if (lock(self) < 0)
		return NULL;
	Py_INCREF(self);
	self->walker = PyThread_get_thread_ident();
	w.ts = PyEval_SaveThread();
	rc = offcode_code_foreach_path(self->a, each_path_one, &w);
	PyEval_RestoreThread(w.ts);
	self->walker = 0;
	Py_XDECREF(w.path);
	if (w.failed)
		;
	else if (rc)
		last_error(self, rc);
	else
		r = (Py_INCREF(Py_None), Py_None);
	unlock(self);
	Py_DECREF(self);
	return r;
}

/* image_kind(i): entry i's image kind, read from its code's first bytes
 * the first time it is asked (listing() leaves it out: a read of the file
 * for each entry, which a listing does without).  Allowed from inside
 * each_code and each_path, whose walk holds the lock on this thread: the
 * read touches nothing of the walk's. */
static PyObject *artifact_image_kind(Artifact *self, PyObject *arg)
{
	Py_ssize_t i = PyLong_AsSsize_t(arg);
	const offcode_entry *e;
	const char *kind;

	if (i == -1 && PyErr_Occurred())
		return NULL;
	if (self->walker && self->walker == PyThread_get_thread_ident()) {
		if (!(e = entry_of(self, i)))
			return NULL;
		return str_or_none(offcode_entry_image_kind(e));
	}
	if (!(e = locked_entry(self, i)))
		return NULL;
	UNLOCKED_GIL(kind = offcode_entry_image_kind(e));
	unlock(self);
	return str_or_none(kind);
}

/* ---- matching ---- */

/* matches(i, rules, exact) */
static PyObject *artifact_matches(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	const char *rules;
	int exact = 0, rc;
	bool match = false;
	const offcode_entry *e;
	PyObject *r = NULL;

	if (!PyArg_ParseTuple(args, "ns|p", &i, &rules, &exact))
		return NULL;
	if (!(e = locked_entry(self, i)))
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_matches(self->a, e, rules,
						exact ? OFFCODE_MATCH_EXACT : 0, &match));
	if (rc)
		last_error(self, rc);
	else
		r = PyBool_FromLong(match);
	unlock(self);
	return r;
}

/* ---- kernels ---- */

static PyObject *kernel_of(const offcode_kernel *k)
{
	PyObject *res = PyDict_New(), *banks = NULL, *desc = NULL, *r = NULL;
	struct offcode_kernel_descriptor d;

	if (!res)
		return NULL;
	for (int i = 0; i < OFFCODE_RESOURCES; i++) {
		uint64_t v;
		PyObject *o;

		if (!offcode_kernel_resource(k, i, &v))
			continue;
		o = PyLong_FromUnsignedLongLong(v);
		if (!o || PyDict_SetItemString(res, offcode_resource_name(i), o) < 0) {
			Py_XDECREF(o);
			goto out;
		}
		Py_DECREF(o);
	}
	banks = PyDict_New();
	if (!banks)
		goto out;
	for (unsigned b = 0; b < 18; b++) {
		uint64_t v;
		PyObject *o, *key;

		if (!offcode_kernel_constant_bytes(k, b, &v))
			continue;
		o = PyLong_FromUnsignedLongLong(v);
		key = PyUnicode_FromFormat("%u", b);
		if (!o || !key || PyDict_SetItem(banks, key, o) < 0) {
			Py_XDECREF(o);
			Py_XDECREF(key);
			goto out;
		}
		Py_DECREF(o);
		Py_DECREF(key);
	}
	if (offcode_kernel_descriptor(k, &d))
		desc = Py_BuildValue("{sKsIsIsIsIsIsIsI}",
				     "offset", (unsigned long long)d.offset,
				     "group_segment_fixed_size", d.group_segment_fixed_size,
				     "private_segment_fixed_size", d.private_segment_fixed_size,
				     "kernarg_size", d.kernarg_size,
				     "compute_pgm_rsrc1", d.compute_pgm_rsrc1,
				     "compute_pgm_rsrc2", d.compute_pgm_rsrc2,
				     "compute_pgm_rsrc3", d.compute_pgm_rsrc3,
				     "kernel_code_properties", (unsigned)d.kernel_code_properties);
	else
		desc = (Py_INCREF(Py_None), Py_None);
	if (!desc)
		goto out;
	r = Py_BuildValue("(NNOOO)", str_or_none(offcode_kernel_symbol(k)),
			  str_or_none(offcode_kernel_name(k)), res, banks, desc);
out:
	Py_DECREF(res);
	Py_XDECREF(banks);
	Py_XDECREF(desc);
	return r;
}

/* kernels(i): (source, code_object_version, target, processor,
 * ptx_version, [(symbol, name, resources, constant_bytes, descriptor)]),
 * or None where there are none to read (OFFCODE_NOTHING). */
static PyObject *artifact_kernels(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = locked_entry(self, PyLong_AsSsize_t(arg));
	const offcode_kernels *k = NULL;
	PyObject *list = NULL, *r = NULL;
	size_t n;
	int rc;

	if (!e)
		return NULL;
	UNLOCKED_GIL(rc = offcode_entry_kernels(self->a, e, &k));
	if (rc == OFFCODE_NOTHING) {
		r = (Py_INCREF(Py_None), Py_None);
		goto out;
	}
	if (rc) {
		last_error(self, rc);
		goto out;
	}
	n = offcode_kernels_count(k);
	list = PyList_New((Py_ssize_t)n);
	if (!list)
		goto out;
	for (size_t j = 0; j < n; j++) {
		PyObject *t = kernel_of(offcode_kernels_at(k, j));

		if (!t) {
			Py_CLEAR(list);
			goto out;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)j, t);
	}
	r = Py_BuildValue("(NINNNO)", str_or_none(offcode_kernels_source(k)),
			  offcode_kernels_code_object_version(k),
			  str_or_none(offcode_kernels_target(k)),
			  str_or_none(offcode_kernels_processor(k)),
			  str_or_none(offcode_kernels_ptx_version(k)), list);
out:
	Py_XDECREF(list);
	if (k)
		offcode_kernels_free(self->a, k);
	unlock(self);
	return r;
}

/* ---- packages and images (offcode_layer(3)), du's figures ---- */

/* open_stream(path, verify, ccob_max_size, ccob_max_ratio): a package or
 * an image opened with OFFCODE_OPEN_STREAM (any other file as open_path). */
static PyObject *open_stream(PyObject *mod, PyObject *args)
{
	(void)mod;
	return open_path_with(args, OFFCODE_OPEN_STREAM);
}

/* path_kind(path): "image", "deb", "wheel", "conda" or None. */
static PyObject *mod_path_kind(PyObject *mod, PyObject *arg)
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
	return str_or_none(kind);
}

/* layers(): [(name, compression, stored)] */
static PyObject *artifact_layers(Artifact *self, PyObject *unused)
{
	PyObject *list;

	(void)unused;
	if (lock(self) < 0)
		return NULL;
	list = PyList_New(0);
	for (size_t i = 0; list && i < offcode_layer_count(self->a); i++) {
		struct offcode_layer l = { .size = sizeof(l) };
		PyObject *t;

		offcode_layer_info(self->a, i, &l);
		t = Py_BuildValue("(ssK)", l.name, l.compression,
				  (unsigned long long)l.stored);
		if (!t || PyList_Append(list, t) < 0)
			Py_CLEAR(list);
		Py_XDECREF(t);
	}
	unlock(self);
	return list;
}

struct walk {
	Artifact *self;
	PyObject *fn;
	PyThreadState *ts;
	int failed;
};

/* The exception of a record, as an object (not raised). */
static PyObject *error_object(const offcode_error *e)
{
	PyObject *type, *value, *tb;

	raise_error(e ? (int)offcode_error_code(e) : OFFCODE_NOMEM, e);
	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	Py_XDECREF(type);
	Py_XDECREF(tb);
	return value;
}

static int walk_one(void *ctx, const struct offcode_member *m,
		    offcode_artifact *file, const offcode_error *err)
{
	struct walk *w = ctx;
	PyObject *member = NULL, *fileobj = NULL, *errobj = NULL, *r = NULL;
	Artifact *f = NULL;
	int stop;

	PyEval_RestoreThread(w->ts);
	member = Py_BuildValue("(ny#KK)", (Py_ssize_t)m->layer, m->name,
			       (Py_ssize_t)m->name_len,
			       (unsigned long long)m->index,
			       (unsigned long long)m->size);
	if (file && member && (f = artifact_new())) {
		f->a = file;
		f->borrowed = 1;
	}
	fileobj = f ? (PyObject *)f : (Py_INCREF(Py_None), Py_None);
	errobj = err ? error_object(err) : (Py_INCREF(Py_None), Py_None);
	if (member && (!file || f) && errobj)
		r = PyObject_CallFunctionObjArgs(w->fn, member, fileobj, errobj,
						 NULL);
	if (f) {	/* the library's again: closed with the walk's step */
		take(f);
		f->a = NULL;
		unlock(f);
	}
	Py_XDECREF(member);
	Py_XDECREF(fileobj);
	Py_XDECREF(errobj);
	if (!r) {
		w->failed = 1;
		stop = 1;
	} else {
		stop = PyObject_IsTrue(r) ? 2 : 0;
		Py_DECREF(r);
	}
	w->ts = PyEval_SaveThread();
	return stop;
}

/* walk_layer(i, fn, root): fn(member, file, error) for each file worth
 * reading; (members, files, file_bytes), or True when fn stopped it. */
static PyObject *artifact_walk_layer(Artifact *self, PyObject *args)
{
	Py_ssize_t i;
	int root = 0, rc;
	struct walk w = { .self = self };
	struct offcode_layer_stats st = { .size = sizeof(st) };
	PyObject *r = NULL;

	if (!PyArg_ParseTuple(args, "nO|p", &i, &w.fn, &root))
		return NULL;
	if (!PyCallable_Check(w.fn)) {
		PyErr_SetString(PyExc_TypeError, "walk_layer() takes a callable");
		return NULL;
	}
	if (i < 0) {
		PyErr_SetString(PyExc_IndexError, "no such layer");
		return NULL;
	}
	if (lock(self) < 0)
		return NULL;
	Py_INCREF(self);
	self->walker = PyThread_get_thread_ident();
	w.ts = PyEval_SaveThread();
	rc = offcode_layer_walk(self->a, (size_t)i, root ? OFFCODE_WALK_ROOT : 0,
				walk_one, &w, &st);
	PyEval_RestoreThread(w.ts);
	self->walker = 0;
	if (w.failed)
		;
	else if (rc == 2)
		r = (Py_INCREF(Py_True), Py_True);
	else if (rc == OFFCODE_RANGE)
		PyErr_SetString(PyExc_IndexError, "no such layer");
	else if (rc)
		last_error(self, rc);
	else
		r = Py_BuildValue("(KKK)", (unsigned long long)st.members,
				  (unsigned long long)st.files,
				  (unsigned long long)st.file_bytes);
	unlock(self);
	Py_DECREF(self);
	return r;
}

/* manifests(): [(digest, platform, (layer, ...))] */
static PyObject *artifact_manifests(Artifact *self, PyObject *unused)
{
	PyObject *list;

	(void)unused;
	if (lock(self) < 0)
		return NULL;
	list = PyList_New(0);
	for (size_t i = 0; list && i < offcode_manifest_count(self->a); i++) {
		struct offcode_manifest m = { .size = sizeof(m) };
		PyObject *layers, *t = NULL;

		offcode_manifest_info(self->a, i, &m);
		if ((layers = PyTuple_New((Py_ssize_t)m.layer_count)))
			for (size_t k = 0; k < m.layer_count; k++)
				PyTuple_SET_ITEM(layers, (Py_ssize_t)k,
						 PyLong_FromSize_t(m.layers[k]));
		if (layers)
			t = Py_BuildValue("(ssN)", m.digest, m.platform, layers);
		if (!t || PyList_Append(list, t) < 0)
			Py_CLEAR(list);
		Py_XDECREF(t);
	}
	unlock(self);
	return list;
}

static int root_one(void *ctx, size_t layer, uint64_t index, uint64_t size)
{
	PyObject *t = Py_BuildValue("(nKK)", (Py_ssize_t)layer,
				    (unsigned long long)index,
				    (unsigned long long)size);
	int rc = t ? PyList_Append(ctx, t) : -1;

	Py_XDECREF(t);
	return rc < 0 ? 1 : 0;
}

/* manifest_root(i): [(layer, index, size)], the lock and GIL held (each
 * row is a Python object). */
static PyObject *artifact_manifest_root(Artifact *self, PyObject *arg)
{
	Py_ssize_t i = PyLong_AsSsize_t(arg);
	PyObject *list;
	int rc;

	if (i == -1 && PyErr_Occurred())
		return NULL;
	if (lock(self) < 0)
		return NULL;
	if (i < 0 || (size_t)i >= offcode_manifest_count(self->a)) {
		unlock(self);
		PyErr_SetString(PyExc_IndexError, "no such manifest");
		return NULL;
	}
	if (!(list = PyList_New(0))) {
		unlock(self);
		return NULL;
	}
	rc = offcode_manifest_root(self->a, (size_t)i, root_one, list);
	if (rc == 1 && PyErr_Occurred())
		Py_CLEAR(list);
	else if (rc) {
		Py_CLEAR(list);
		last_error(self, rc);
	}
	unlock(self);
	return list;
}

/* du(i): (code, stored, rule_id, rule_target) */
static PyObject *artifact_du(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = locked_entry(self, PyLong_AsSsize_t(arg));
	uint64_t code, stored;
	const char *id, *target;
	size_t id_len, target_len;
	PyObject *r;

	if (!e)
		return NULL;
	offcode_entry_du_sizes(e, &code, &stored);
	id = offcode_entry_rule_id(e, &id_len);
	target = offcode_entry_rule_target(e, &target_len);
	r = Py_BuildValue("(KKNN)", (unsigned long long)code,
			  (unsigned long long)stored,
			  text_or_none(id, id_len),
			  text_or_none(target, target_len));
	unlock(self);
	return r;
}

/* file_facts(): (code object's (target, triple) or None, offload only,
 * [kpack archive paths]) */
static PyObject *artifact_file_facts(Artifact *self, PyObject *unused)
{
	const char *target, *triple, *const *paths;
	size_t n;
	PyObject *lone, *archives, *r = NULL;
	int rc;

	(void)unused;
	if (lock(self) < 0)
		return NULL;
	if (offcode_artifact_code_object(self->a, &target, &triple))
		lone = Py_BuildValue("(ss)", target, triple);
	else
		lone = (Py_INCREF(Py_None), Py_None);
	if ((rc = offcode_kpack_archives(self->a, &paths, &n))) {
		Py_XDECREF(lone);
		last_error(self, rc);
		unlock(self);
		return NULL;
	}
	archives = PyList_New(0);
	for (size_t i = 0; archives && i < n; i++) {
		PyObject *p = PyUnicode_DecodeFSDefault(paths[i]);

		if (!p || PyList_Append(archives, p) < 0)
			Py_CLEAR(archives);
		Py_XDECREF(p);
	}
	if (lone && archives)
		r = Py_BuildValue("(OOO)", lone,
				  offcode_artifact_offload_only(self->a)
					  ? Py_True : Py_False, archives);
	Py_XDECREF(lone);
	Py_XDECREF(archives);
	unlock(self);
	return r;
}

static PyMethodDef artifact_methods[] = {
	{ "close", (PyCFunction)artifact_close, METH_NOARGS, "Free the artefact." },
	{ "listing", (PyCFunction)artifact_listing, METH_NOARGS,
	  "(inputs, containers, entries) as tuples." },
	{ "read", (PyCFunction)artifact_read, METH_O, "Entry i's code as bytes." },
	{ "read_into", (PyCFunction)artifact_read_into, METH_VARARGS,
	  "Entry i's code into a writable buffer; its length." },
	{ "code_size", (PyCFunction)artifact_code_size, METH_O,
	  "The length of entry i's code, decompressed." },
	{ "write_path", (PyCFunction)artifact_write_path, METH_VARARGS,
	  "Entry i's code into a new file." },
	{ "write_fd", (PyCFunction)artifact_write_fd, METH_VARARGS,
	  "Entry i's code to a file descriptor." },
	{ "each_code", (PyCFunction)artifact_each_code, METH_O,
	  "fn(i, code) for each entry's code, as bytes." },
	{ "each_path", (PyCFunction)artifact_each_path, METH_O,
	  "Each entry's code written to the file fn(i) names, in one walk." },
	{ "image_kind", (PyCFunction)artifact_image_kind, METH_O,
	  "Entry i's image kind, read when first asked." },
	{ "matches", (PyCFunction)artifact_matches, METH_VARARGS,
	  "Whether entry i is taken by rules." },
	{ "kernels", (PyCFunction)artifact_kernels, METH_O, "Entry i's kernels." },
	{ "layers", (PyCFunction)artifact_layers, METH_NOARGS,
	  "A package's or an image's layers: (name, compression, stored)." },
	{ "walk_layer", (PyCFunction)artifact_walk_layer, METH_VARARGS,
	  "fn(member, file, error) for each file of layer i worth reading." },
	{ "manifests", (PyCFunction)artifact_manifests, METH_NOARGS,
	  "An image's manifests: (digest, platform, layers)." },
	{ "manifest_root", (PyCFunction)artifact_manifest_root, METH_O,
	  "The files of the root manifest i's layers make: (layer, index, size)." },
	{ "du", (PyCFunction)artifact_du, METH_O,
	  "Entry i as du counts it: (code, stored, rule_id, rule_target)." },
	{ "file_facts", (PyCFunction)artifact_file_facts, METH_NOARGS,
	  "(code object, offload only, kpack archives) of the file." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef artifact_getset[] = {
	{ "path", (getter)artifact_path, NULL, "The name it was opened by.", NULL },
	{ "size", (getter)artifact_size, NULL, "Its size in bytes.", NULL },
	{ "closed", (getter)artifact_closed, NULL, "Whether it is closed.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject artifact_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offcode._offcode.Artifact",
	.tp_basicsize = sizeof(Artifact),
	.tp_dealloc = (destructor)artifact_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An opened artefact (offcode_artifact).",
	.tp_methods = artifact_methods,
	.tp_getset = artifact_getset,
};

/* ---- prune and the rest ---- */

static PyObject *mod_prune(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *names[] = { "src", "dest", "keep", "drop", "exact", "allow_empty",
				 "keep_layout", "compress", "ccob_version",
				 "compression_level", "threads", "ccob_max_size",
				 "ccob_max_ratio", NULL };
	PyObject *in = NULL, *out = NULL;
	const char *keep = NULL, *drop = NULL;
	int exact = 0, allow_empty = 0, keep_layout = 0, compress = 0, level = 0, rc;
	unsigned ccob_version = 0, threads = 0;
	unsigned long long max_size = 0, max_ratio = 0;
	struct offcode_prune_options o;
	struct offcode_prune_result res;
	offcode_error *err = NULL;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|zzpppiO&iO&O&O&", names,
					 PyUnicode_FSConverter, &in,
					 PyUnicode_FSConverter, &out, &keep, &drop,
					 &exact, &allow_empty, &keep_layout, &compress,
					 uint_arg, &ccob_version, &level,
					 uint_arg, &threads, u64_arg, &max_size,
					 u64_arg, &max_ratio)) {
		Py_XDECREF(in);
		return NULL;
	}
	if (compress < OFFCODE_COMPRESS_NONE || compress > OFFCODE_COMPRESS_ZLIB) {
		Py_DECREF(in);
		Py_DECREF(out);
		PyErr_SetString(PyExc_ValueError, "no such compression");
		return NULL;
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.keep = keep;
	o.drop = drop;
	o.exact = exact;
	o.allow_empty = allow_empty;
	o.keep_layout = keep_layout;
	o.compress = (enum offcode_compress)compress;
	o.ccob_version = ccob_version;
	o.compression_level = level;
	o.threads = threads;
	o.ccob_max_size = max_size;
	o.ccob_max_ratio = max_ratio;
	memset(&res, 0, sizeof(res));
	res.size = sizeof(res);
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_prune(PyBytes_AS_STRING(in), PyBytes_AS_STRING(out), &o, &res, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(in);
	Py_DECREF(out);
	if (rc) {
		raise_error(rc, err);
		offcode_error_free(err);
		return NULL;
	}
	return Py_BuildValue("(KKnnO)", (unsigned long long)res.size_before,
			     (unsigned long long)res.size_after,
			     (Py_ssize_t)res.entries_kept, (Py_ssize_t)res.entries_dropped,
			     res.changed ? Py_True : Py_False);
}

static PyObject *mod_target_id_compatible(PyObject *mod, PyObject *args)
{
	const char *target, *request;

	(void)mod;
	if (!PyArg_ParseTuple(args, "ss", &target, &request))
		return NULL;
	return PyBool_FromLong(offcode_target_id_compatible(target, request));
}

static PyObject *mod_version(PyObject *mod, PyObject *unused)
{
	(void)mod;
	(void)unused;
	return PyUnicode_FromString(offcode_version());
}

static PyMethodDef module_methods[] = {
	{ "open_path", open_path, METH_VARARGS, "Open a file by its path." },
	{ "open_fd", open_fd, METH_VARARGS, "Open a file descriptor." },
	{ "open_memory", open_memory, METH_VARARGS, "Open bytes in memory." },
	{ "open_stream", open_stream, METH_VARARGS,
	  "Open a package or an image by its path, its files walked later." },
	{ "path_kind", mod_path_kind, METH_O,
	  "What a path names: image, deb, wheel, conda, or None." },
	{ "prune", (PyCFunction)(void (*)(void))mod_prune, METH_VARARGS | METH_KEYWORDS,
	  "offcode_prune." },
	{ "target_id_compatible", mod_target_id_compatible, METH_VARARGS,
	  "Whether a loader asked for request takes code built for target." },
	{ "version", mod_version, METH_NOARGS, "liboffcode's version." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "offcode._offcode",
	"liboffcode, bound (offcode/__init__.py is the interface).", -1,
	module_methods, NULL, NULL, NULL, NULL,
};

/* The classes of the codes: offcode.<Name>Error, under offcode.Error, and
 * under the built-in class that means the same where there is one (an
 * OSError for a system call, a MemoryError, a ValueError for a bad
 * argument). */
static const struct {
	int code;
	const char *name;
	PyObject **builtin;
} classes[] = {
	{ OFFCODE_OTHER, "OtherError", NULL },
	{ OFFCODE_SYSTEM, "SystemCallError", &PyExc_OSError },
	{ OFFCODE_TRUNCATED, "TruncatedError", NULL },
	{ OFFCODE_MALFORMED, "MalformedError", NULL },
	{ OFFCODE_DECOMPRESS, "DecompressError", NULL },
	{ OFFCODE_NOMEM, "OutOfMemoryError", &PyExc_MemoryError },
	{ OFFCODE_NOTHING, "NothingError", NULL },
	{ OFFCODE_FATAL, "FatalError", NULL },
	{ OFFCODE_CHANGED, "ChangedError", NULL },
	{ OFFCODE_INVALID, "InvalidError", &PyExc_ValueError },
	{ OFFCODE_RANGE, "RangeError", NULL },
	{ OFFCODE_UNSUPPORTED, "UnsupportedError", NULL },
	{ OFFCODE_BAD_HASH, "BadHashError", NULL },
};
_Static_assert(sizeof(classes) / sizeof(classes[0]) == CODES - 1,
	       "a class for each enum offcode_code but OFFCODE_OK");

PyMODINIT_FUNC PyInit__offcode(void)
{
	PyObject *m = PyModule_Create(&module);

	if (!m)
		return NULL;
	if (PyType_Ready(&artifact_type) < 0 ||
	    (!error_record_type.tp_name &&
	     PyStructSequence_InitType2(&error_record_type, &record_desc) < 0))
		goto fail;
	error_base = PyErr_NewExceptionWithDoc("offcode.Error",
		"A failure of liboffcode: .code (enum offcode_code), .code_name, "
		".errno, .offset, .path, .reason and .chain (ErrorRecord, the "
		"outermost first).", NULL, NULL);
	if (!error_base || PyModule_AddObjectRef(m, "Error", error_base) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		char qual[64];
		PyObject *bases, *cls;

		snprintf(qual, sizeof(qual), "offcode.%s", classes[i].name);
		bases = classes[i].builtin ?
			PyTuple_Pack(2, error_base, *classes[i].builtin) :
			PyTuple_Pack(1, error_base);
		if (!bases)
			goto fail;
		cls = PyErr_NewException(qual, bases, NULL);
		Py_DECREF(bases);
		if (!cls || PyModule_AddObjectRef(m, classes[i].name, cls) < 0)
			goto fail;
		error_class[classes[i].code] = cls;
	}
	if (PyModule_AddObjectRef(m, "ErrorRecord", (PyObject *)&error_record_type) < 0 ||
	    PyModule_AddObjectRef(m, "Artifact", (PyObject *)&artifact_type) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
