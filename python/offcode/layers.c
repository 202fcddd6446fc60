/* layers: a package's or an image's layers and manifests walked, and the
 * figures offload du reads of an entry and a file (layers.h). */
#include "layers.h"

#include <sched.h>

#include "convert.h"
#include "errors.h"
#include "handle.h"

/* layers(): [(name, compression, stored)] */
PyObject *layers_list(Artifact *self, PyObject *unused)
{
	PyObject *list;

	(void)unused;
	if (handle_lock(self) < 0)
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
	handle_unlock(self);
	return list;
}

struct walk {
	Artifact *self;
	PyObject *fn;
	PyThreadState *ts;
	int failed;
	int stopped;	/* fn's true result stopped it (the walk returns that
			 * value, and a failure of its own a code: either could
			 * be 2) */
};

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
	if (file && member && (f = handle_new())) {
		f->a = file;
		f->borrowed = 1;
	}
	fileobj = f ? (PyObject *)f : (Py_INCREF(Py_None), Py_None);
	errobj = err ? errors_object(err) : (Py_INCREF(Py_None), Py_None);
	if (member && (!file || f) && errobj)
		r = PyObject_CallFunctionObjArgs(w->fn, member, fileobj, errobj,
						 NULL);
	/* The library's again, closed with the walk's step: once another
	 * thread's copy of one of its entries is done (listing.c; its lock
	 * let go meanwhile, which that copy may wait for). */
	while (f) {
		handle_take(f);
		if (!f->making) {
			f->a = NULL;
			handle_unlock(f);
			break;
		}
		handle_unlock(f);
		UNLOCKED_GIL(sched_yield());
	}
	Py_XDECREF(member);
	Py_XDECREF(fileobj);
	Py_XDECREF(errobj);
	if (!r) {
		w->failed = 1;
		stop = 1;
	} else {
		stop = w->stopped = PyObject_IsTrue(r) ? 1 : 0;
		Py_DECREF(r);
	}
	w->ts = PyEval_SaveThread();
	return stop;
}

/* walk_layer(i, fn, root): fn(member, file, error) for each file worth
 * reading; (members, files, file_bytes), or True when fn stopped it. */
PyObject *layers_walk(Artifact *self, PyObject *args)
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
	if (handle_walk_begin(self, &w.ts) < 0)
		return NULL;
	rc = offcode_layer_walk(self->a, (size_t)i, root ? OFFCODE_WALK_ROOT : 0,
				walk_one, &w, &st);
	handle_walk_end(self, w.ts);
	if (w.failed)
		;
	else if (w.stopped)
		r = (Py_INCREF(Py_True), Py_True);
	else if (rc == OFFCODE_RANGE)
		PyErr_SetString(PyExc_IndexError, "no such layer");
	else if (rc)
		handle_raise_last(self, rc);
	else
		r = Py_BuildValue("(KKK)", (unsigned long long)st.members,
				  (unsigned long long)st.files,
				  (unsigned long long)st.file_bytes);
	handle_walk_done(self);
	return r;
}

/* manifests(): [(digest, platform, (layer, ...))] */
PyObject *layers_manifests(Artifact *self, PyObject *unused)
{
	PyObject *list;

	(void)unused;
	if (handle_lock(self) < 0)
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
	handle_unlock(self);
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
PyObject *layers_manifest_root(Artifact *self, PyObject *arg)
{
	Py_ssize_t i = PyLong_AsSsize_t(arg);
	PyObject *list;
	int rc;

	if (i == -1 && PyErr_Occurred())
		return NULL;
	if (handle_lock(self) < 0)
		return NULL;
	if (i < 0 || (size_t)i >= offcode_manifest_count(self->a)) {
		handle_unlock(self);
		PyErr_SetString(PyExc_IndexError, "no such manifest");
		return NULL;
	}
	if (!(list = PyList_New(0))) {
		handle_unlock(self);
		return NULL;
	}
	rc = offcode_manifest_root(self->a, (size_t)i, root_one, list);
	if (rc == 1 && PyErr_Occurred())
		Py_CLEAR(list);
	else if (rc) {
		Py_CLEAR(list);
		handle_raise_last(self, rc);
	}
	handle_unlock(self);
	return list;
}

/* du(i): (code, stored, rule_id, rule_target) */
PyObject *layers_du(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = handle_locked_entry(self, PyLong_AsSsize_t(arg));
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
			  convert_bytes_or_none(id, id_len),
			  convert_bytes_or_none(target, target_len));
	handle_unlock(self);
	return r;
}

/* file_facts(): (code object's (target, triple) or None, offload only,
 * [kpack archive paths]) */
PyObject *layers_file_facts(Artifact *self, PyObject *unused)
{
	const char *target, *triple, *const *paths;
	size_t n;
	PyObject *lone, *archives, *r = NULL;
	int rc;

	(void)unused;
	if (handle_lock(self) < 0)
		return NULL;
	if (offcode_artifact_code_object(self->a, &target, &triple))
		lone = Py_BuildValue("(ss)", target, triple);
	else
		lone = (Py_INCREF(Py_None), Py_None);
	if ((rc = offcode_kpack_archives(self->a, &paths, &n))) {
		Py_XDECREF(lone);
		handle_raise_last(self, rc);
		handle_unlock(self);
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
	handle_unlock(self);
	return r;
}
