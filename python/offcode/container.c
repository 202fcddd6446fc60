/* container: an artefact's containers as objects of a type made here
 * (container.h; offcode.Container is its subclass, adding the methods).
 *
 * A container is one object whose numbers become Python objects when they
 * are read, its format the one interned str of its kind and its section
 * the one Section object of the containers of one section: the tuple of
 * ten values, the instance dict and the objects in them, made for each
 * of librocsparse's 142 containers, cost a listing a tenth of `offload
 * ls`'s run, and as many objects more for the collector to walk (issue
 * 37).
 *
 * Its entries are listing.c's, made when they are asked for, not at open:
 * an entry made by an iteration or an index and let go is freed at once,
 * so a listing that reads each entry once and keeps none holds one at a
 * time (made up front and held by their containers, librocsparse's 1,562
 * entries cost Python's listing more than a tenth of `offload ls` in
 * pages first touched and in the collector's passes over them at exit,
 * issue 37).  The list `entries` gives is made when first read and kept:
 * then its objects are the ones [i] and iteration give. */
#include "container.h"

#include <stddef.h>
#include <string.h>

#include <structmember.h>

#include "convert.h"
#include "listing.h"

typedef struct {
	PyObject_HEAD
	PyObject *input;	/* the offcode.Input it is in */
	PyObject *format;	/* its kind's name, interned */
	PyObject *section;	/* the offcode.Section it lies in, or None */
	PyObject *fields;	/* its kind's own fields; NULL: none, an empty
				 * dict made when first read */
	PyObject *entries;	/* a list once made (get_entries), or NULL */
	/* What makes its entries: the artefact (none for a walk's: it has
	 * no entries to make), their class, and where they are among the
	 * artefact's. */
	Artifact *handle;
	PyTypeObject *entry_cls;
	Py_ssize_t first, count;
	uint64_t offset, size;
	unsigned number, version;
	bool has_offset, has_version;
} Container;

static PyTypeObject container_type;

/* (its format, a str, is not the collector's: not visited) */
static int container_traverse(Container *self, visitproc visit, void *arg)
{
	Py_VISIT(self->input);
	Py_VISIT(self->section);
	Py_VISIT(self->fields);
	Py_VISIT(self->entries);
	Py_VISIT(self->entry_cls);
	return 0;
}

static int container_clear(Container *self)
{
	Py_CLEAR(self->input);
	Py_CLEAR(self->format);
	Py_CLEAR(self->section);
	Py_CLEAR(self->fields);
	Py_CLEAR(self->entries);
	Py_CLEAR(self->handle);
	Py_CLEAR(self->entry_cls);
	return 0;
}

static void container_dealloc(Container *self)
{
	PyObject_GC_UnTrack(self);
	container_clear(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Its entries as a list, made when first asked for and kept (an empty
 * one for a walk's container, which has none to make). */
static PyObject *entries_of(Container *self)
{
	PyObject *list;

	if (self->entries)
		return self->entries;
	list = self->handle ? listing_entry_range(self->handle, self->entry_cls, (PyObject *)self,
						  self->first, self->count)
			    : PyList_New(0);
	/* (the collector, run by an allocation, may have run code that asked
	 * for the list meanwhile: the one it was given is kept) */
	if (list && !self->entries)
		self->entries = list;
	else
		Py_XDECREF(list);
	return list ? self->entries : NULL;
}

static PyObject *get_entries(Container *self, void *unused)
{
	(void)unused;
	return Py_XNewRef(entries_of(self));
}

static PyObject *get_fields(Container *self, void *unused)
{
	(void)unused;
	if (!self->fields && !(self->fields = PyDict_New()))
		return NULL;
	return Py_NewRef(self->fields);
}

static PyObject *get_number(Container *self, void *unused)
{
	(void)unused;
	return PyLong_FromUnsignedLong(self->number);
}

static PyObject *get_offset(Container *self, void *unused)
{
	(void)unused;
	return convert_u64_if(self->has_offset, self->offset);
}

static PyObject *get_size(Container *self, void *unused)
{
	(void)unused;
	return PyLong_FromUnsignedLongLong(self->size);
}

static PyObject *get_version(Container *self, void *unused)
{
	(void)unused;
	return convert_u64_if(self->has_version, self->version);
}

static PyGetSetDef container_getset[] = {
	{ "number", (getter)get_number, NULL, "Its number in the file, as ls numbers it.", NULL },
	{ "offset", (getter)get_offset, NULL, "Where it lies in the file, or None.", NULL },
	{ "size", (getter)get_size, NULL, "Its size in bytes.", NULL },
	{ "version", (getter)get_version, NULL, "Its format's version, or None.", NULL },
	{ "fields", (getter)get_fields, NULL, "Its kind's own fields, as ls --json nests them.", NULL },
	{ "entries", (getter)get_entries, NULL, "Its entries, a list.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

/* The objects it holds read as members (read in place, where a getter is
 * a call: listing.c's entry_members). */
static PyMemberDef container_members[] = {
	{ "input", T_OBJECT_EX, offsetof(Container, input), READONLY,
	  "The input (file or member) it is in." },
	{ "format", T_OBJECT_EX, offsetof(Container, format), READONLY,
	  "\"bundle\", \"ccob\", \"offload-package\", \"nv-fatbin\", \"kpack\"..." },
	{ "section", T_OBJECT_EX, offsetof(Container, section), READONLY,
	  "The section it lies in (index, name, kind), or None." },
	{ NULL, 0, 0, 0, NULL },
};

/* A sequence of its entries: len, [i] (and slices), iteration; from the
 * list once it is made, else each entry made as it is asked for. */
static Py_ssize_t container_len(Container *self)
{
	if (self->entries)
		return PyList_GET_SIZE(self->entries);
	return self->handle ? self->count : 0;
}

static PyObject *entry_at(Container *self, Py_ssize_t k)
{
	return listing_entry_new(self->handle, self->entry_cls, (PyObject *)self, self->first + k,
				 k);
}

static PyObject *container_item(Container *self, PyObject *key)
{
	Py_ssize_t n = container_len(self), k, start, stop, step, len;
	PyObject *list;

	if (self->entries || !self->handle)
		return (list = entries_of(self)) ? PyObject_GetItem(list, key) : NULL;
	if (PyIndex_Check(key)) {
		if ((k = PyNumber_AsSsize_t(key, PyExc_IndexError)) == -1 && PyErr_Occurred())
			return NULL;
		if (k < 0)
			k += n;
		if (k < 0 || k >= n) {
			PyErr_SetString(PyExc_IndexError, "list index out of range");
			return NULL;
		}
		return entry_at(self, k);
	}
	if (!PySlice_Check(key)) {
		PyErr_Format(PyExc_TypeError, "list indices must be integers or slices, not %.200s",
			     Py_TYPE(key)->tp_name);
		return NULL;
	}
	if (PySlice_Unpack(key, &start, &stop, &step) < 0)
		return NULL;
	len = PySlice_AdjustIndices(n, &start, &stop, step);
	if (!(list = PyList_New(len)))
		return NULL;
	for (Py_ssize_t j = 0; j < len; j++) {
		/* (j * step stays inside the container: no step past it) */
		PyObject *e = entry_at(self, start + j * step);

		if (!e) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, j, e);
	}
	return list;
}

/* An iteration over a container whose entries are made as it goes. */
typedef struct {
	PyObject_HEAD
	Container *container;	/* NULL once done */
	Py_ssize_t next;
} ContainerIter;

static int container_iter_traverse(ContainerIter *self, visitproc visit, void *arg)
{
	Py_VISIT(self->container);
	return 0;
}

static void container_iter_dealloc(ContainerIter *self)
{
	PyObject_GC_UnTrack(self);
	Py_XDECREF(self->container);
	PyObject_GC_Del(self);
}

static PyObject *container_iter_next(ContainerIter *self)
{
	Container *c = self->container;

	if (!c)
		return NULL;
	/* (its list made meanwhile: the list's objects from here on) */
	if (self->next < container_len(c))
		return c->entries ? Py_NewRef(PyList_GET_ITEM(c->entries, self->next++))
				  : entry_at(c, self->next++);
	Py_CLEAR(self->container);
	return NULL;
}

/* (the collector's: kept in an attribute of its container's, it is in a
 * cycle) */
static PyTypeObject container_iter_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offcode._offcode.ContainerIterator",
	.tp_basicsize = sizeof(ContainerIter),
	.tp_dealloc = (destructor)container_iter_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_traverse = (traverseproc)container_iter_traverse,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)container_iter_next,
};

static PyObject *container_iter(Container *self)
{
	ContainerIter *it;

	if (self->entries || !self->handle) {
		PyObject *list = entries_of(self);

		return list ? PyObject_GetIter(list) : NULL;
	}
	if (!(it = PyObject_GC_New(ContainerIter, &container_iter_type)))
		return NULL;
	it->container = (Container *)Py_NewRef((PyObject *)self);
	it->next = 0;
	PyObject_GC_Track(it);
	return (PyObject *)it;
}

static PyMappingMethods container_mapping = {
	.mp_length = (lenfunc)container_len,
	.mp_subscript = (binaryfunc)container_item,
};

static PySequenceMethods container_sequence = {
	.sq_length = (lenfunc)container_len,
};

static PyTypeObject container_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offcode._offcode.Container",
	.tp_basicsize = sizeof(Container),
	.tp_dealloc = (destructor)container_dealloc,
	.tp_as_sequence = &container_sequence,
	.tp_as_mapping = &container_mapping,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "A container of an artefact (made by Artifact.containers()).",
	.tp_traverse = (traverseproc)container_traverse,
	.tp_clear = (inquiry)container_clear,
	.tp_iter = (getiterfunc)container_iter,
	.tp_getset = container_getset,
	.tp_members = container_members,
};

PyTypeObject *container_type_of(void)
{
	return &container_type;
}

int container_ready(void)
{
	return PyType_Ready(&container_iter_type) < 0 ? -1 : PyType_Ready(&container_type);
}

PyObject *container_entries(PyObject *c, Artifact *of)
{
	Container *self = (Container *)c;

	if (!PyObject_TypeCheck(c, &container_type) || self->handle != of) {
		PyErr_SetString(PyExc_TypeError, "entries() takes the containers of its "
				"artefact's containers()");
		return NULL;
	}
	return Py_XNewRef(entries_of(self));
}

static int container_field(const void *c, size_t i, struct offcode_field *f)
{
	return offcode_container_field(c, i, f);
}

/* The section's object: the one made for the container before when it
 * lies in the same section (*last), else a new one of section_cls. */
static PyObject *section_of(const offcode_container *c, PyTypeObject *section_cls,
			    PyObject **last, uint32_t *last_index, const char **last_name,
			    const char **last_kind)
{
	uint32_t index = 0;
	const char *name = NULL, *kind = NULL;
	PyObject *values, *args, *s;

	if (!offcode_container_section(c, &index, &name, &kind))
		Py_RETURN_NONE;
	if (*last && index == *last_index && name == *last_name && kind == *last_kind)
		return Py_NewRef(*last);
	/* (made as tuple.__new__ makes it: no Python code runs under the
	 * artefact's lock) */
	if (!(values = Py_BuildValue("(INN)", (unsigned)index,
				     name ? convert_file_text(name, strlen(name))
					  : PyUnicode_FromString(""),
				     convert_str_or_none(kind))))
		return NULL;
	args = PyTuple_Pack(1, values);
	Py_DECREF(values);
	s = args ? PyTuple_Type.tp_new(section_cls, args, NULL) : NULL;
	Py_XDECREF(args);
	if (!s)
		return NULL;
	Py_XSETREF(*last, Py_NewRef(s));
	*last_index = index;
	*last_name = name;
	*last_kind = kind;
	return s;
}

/* Container c as an object of cls in input. */
static PyObject *container_new(PyTypeObject *cls, const offcode_container *c, PyObject *input,
			       PyObject *section)
{
	Container *o;
	size_t nfields = offcode_container_field_count(c);

	if (!(o = (Container *)cls->tp_alloc(cls, 0)))
		return NULL;
	o->input = Py_NewRef(input);
	o->section = Py_NewRef(section);
	o->number = offcode_container_number(c);
	o->size = offcode_container_size(c);
	o->has_offset = offcode_container_offset(c, &o->offset);
	o->has_version = offcode_container_version(c, &o->version);
	if (!(o->format = PyUnicode_InternFromString(offcode_container_format(c))) ||
	    (nfields && !(o->fields = convert_fields(nfields, container_field, c)))) {
		Py_DECREF(o);
		return NULL;
	}
	return (PyObject *)o;
}

PyObject *container_list(Artifact *self, PyObject *args)
{
	PyTypeObject *cls, *section_cls, *entry_cls;
	PyObject *inputs, *list = NULL, *last = NULL;
	const offcode_artifact *a;
	uint32_t last_index = 0;
	const char *last_name = NULL, *last_kind = NULL;
	size_t ni, nc, first = 0;
	int collecting;

	if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyType_Type, &cls, &PyType_Type, &section_cls,
			      &PyList_Type, &inputs, &PyType_Type, &entry_cls))
		return NULL;
	if (!PyType_IsSubtype(cls, &container_type) ||
	    !PyType_IsSubtype(section_cls, &PyTuple_Type) ||
	    !PyType_IsSubtype(entry_cls, listing_entry_type())) {
		PyErr_SetString(PyExc_TypeError, "containers() makes subclasses of "
				"_offcode.Container, their sections of tuple, their "
				"entries of _offcode.Entry");
		return NULL;
	}
	if (handle_lock(self) < 0)
		return NULL;
	/* The collector off while they are made, as the entries are
	 * (listing.c): none is garbage before the list is handed back. */
	collecting = PyGC_Disable();
	a = self->a;
	ni = offcode_input_count(a);
	nc = offcode_container_count(a);
	if ((size_t)PyList_GET_SIZE(inputs) != ni) {
		PyErr_SetString(PyExc_ValueError, "containers() takes an input for each of inputs()'");
		goto out;
	}
	if (!(list = PyList_New((Py_ssize_t)nc)))
		goto out;
	for (size_t i = 0, k = 0; i < nc; i++) {
		const offcode_container *c = offcode_container_at(a, i);
		const offcode_input *in = offcode_container_input(c);
		PyObject *section, *o;

		/* (containers come input by input: the search starts at the
		 * last one's) */
		for (size_t tried = 0; tried < ni && offcode_input_at(a, k) != in; tried++)
			k = (k + 1) % ni;
		if (ni == 0 || offcode_input_at(a, k) != in) {
			PyErr_SetString(PyExc_RuntimeError, "a container in no input");
			Py_CLEAR(list);
			goto out;
		}
		section = section_of(c, section_cls, &last, &last_index, &last_name, &last_kind);
		o = section ? container_new(cls, c, PyList_GET_ITEM(inputs, (Py_ssize_t)k), section)
			    : NULL;
		Py_XDECREF(section);
		if (!o) {
			Py_CLEAR(list);
			goto out;
		}
		/* (entries come container by container, offcode.h) */
		((Container *)o)->handle = (Artifact *)Py_NewRef((PyObject *)self);
		((Container *)o)->entry_cls = (PyTypeObject *)Py_NewRef((PyObject *)entry_cls);
		((Container *)o)->first = (Py_ssize_t)first;
		((Container *)o)->count = (Py_ssize_t)offcode_container_entry_count(c);
		first += offcode_container_entry_count(c);
		PyList_SET_ITEM(list, (Py_ssize_t)i, o);
	}
out:
	if (collecting)
		PyGC_Enable();
	Py_XDECREF(last);
	handle_unlock(self);
	return list;
}

PyObject *container_of_record(PyTypeObject *cls, PyTypeObject *section_cls,
			      const offcode_container *c, PyObject *input)
{
	PyObject *last = NULL, *section, *o;
	uint32_t last_index = 0;
	const char *last_name = NULL, *last_kind = NULL;

	section = section_of(c, section_cls, &last, &last_index, &last_name, &last_kind);
	Py_XDECREF(last);
	if (!section)
		return NULL;
	o = container_new(cls, c, input, section);
	Py_DECREF(section);
	return o;
}
