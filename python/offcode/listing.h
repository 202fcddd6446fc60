/* listing: what an artefact holds, handed to Python for offcode/__init__.py
 * to make its objects of. */
#ifndef OFFCODE_PY_LISTING_H
#define OFFCODE_PY_LISTING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

#include "handle.h"

/* inputs(): a list of tuples (_offcode.pyi describes them); an input is
 * named by its index in it. */
PyObject *listing_inputs(Artifact *self, PyObject *unused);
/* entries(containers): every entry, of containers()' list containers:
 * each container's entries list (container_entries), made if it was not,
 * one after another. */
PyObject *listing_entries(Artifact *self, PyObject *containers);
/* Entry i of self, at place k of container, an object of cls (a subclass
 * of _offcode.Entry) whose fields are read from the library's record when
 * asked for (copied out of it for a package's file handed to walk_layer's
 * function): NULL with an exception. */
PyObject *listing_entry_new(Artifact *self, PyTypeObject *cls, PyObject *container,
			    Py_ssize_t i, Py_ssize_t k);
/* Entries first to first + count - 1 of self, all in container, as a list
 * of listing_entry_new's objects: NULL with an exception. */
PyObject *listing_entry_range(Artifact *self, PyTypeObject *cls, PyObject *container,
			      Py_ssize_t first, Py_ssize_t count);
/* The texts a walk's entries share (as an artefact's do: listing_entries),
 * kept from one to the next: NULL with an exception. */
struct listing_texts *listing_texts_new(void);
void listing_texts_free(struct listing_texts *t);
/* Record e of a walk (valid during its visit) as an object of cls in
 * container, its fields copied out but image_kind, which reads code: read
 * from e when first asked for during the visit, or at its end for an
 * entry kept (listing_entry_let_go).  No artefact: what reads its code
 * raises ValueError. */
PyObject *listing_entry_of_record(PyTypeObject *cls, const offcode_entry *e,
				  PyObject *container, struct listing_texts *texts);
/* The visit of entry's record over: its image_kind read first when the
 * entry is kept (kept): 0, or -1 with an exception. */
int listing_entry_let_go(PyObject *entry, bool kept);
/* _offcode.Entry, for the module to make ready and add. */
PyTypeObject *listing_entry_type(void);

#endif
