/* listing: an artefact's inputs, containers and entries handed to Python
 * (listing.h). */
#include "listing.h"

#include <string.h>

#include "convert.h"
#include "handle.h"

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
				    convert_bytes_or_none(f.text, f.text_len));
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
PyObject *listing_of(Artifact *self, PyObject *unused)
{
	PyObject *inputs = NULL, *containers = NULL, *entries = NULL, *r = NULL;
	const offcode_artifact *a;
	size_t ni, nc, ne, e0 = 0;

	(void)unused;
	if (handle_lock(self) < 0)
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
		t = Py_BuildValue("(NsKKIn)", convert_bytes_or_none(name, len),
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
						convert_bytes_or_none(sname, sname ? strlen(sname) : 0),
						convert_str_or_none(skind));
		else
			section = (Py_INCREF(Py_None), Py_None);
		t = Py_BuildValue("(nIsNKNNNnn)", input,
				  offcode_container_number(c),
				  offcode_container_format(c),
				  convert_u64_if(has_offset, offset),
				  (unsigned long long)offcode_container_size(c),
				  convert_u64_if(has_version, version), section,
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
				  convert_bytes_or_none(id, lid), convert_bytes_or_none(kind, lkind),
				  convert_bytes_or_none(triple, ltriple),
				  convert_bytes_or_none(arch, larch),
				  convert_str_or_none(offcode_entry_processor(e)),
				  convert_str_or_none(offcode_entry_features(e)),
				  /* (read when asked: image_kind(i)) */
				  (Py_INCREF(Py_None), Py_None),
				  (unsigned long long)offcode_entry_size(e),
				  convert_u64_if(has_offset, offset),
				  PyBool_FromLong(offcode_entry_compressed(e)),
				  fields_of(offcode_entry_field_count(e),
					    entry_field, e),
				  convert_str_or_none(offcode_entry_uri(e)));
		if (!t)
			goto out;
		PyList_SET_ITEM(entries, (Py_ssize_t)i, t);
	}
	r = PyTuple_Pack(3, inputs, containers, entries);
out:
	handle_unlock(self);
	Py_XDECREF(inputs);
	Py_XDECREF(containers);
	Py_XDECREF(entries);
	return r;
}
