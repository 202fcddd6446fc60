/* listing: what an artefact holds, handed to Python for offcode/__init__.py
 * to make its objects of. */
#ifndef OFFCODE_PY_LISTING_H
#define OFFCODE_PY_LISTING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "handle.h"

/* inputs(): a list of tuples (_offcode.pyi describes them); an input is
 * named by its index in it. */
PyObject *listing_inputs(Artifact *self, PyObject *unused);
/* entries(cls, containers): every entry, an object of cls (a subclass of
 * _offcode.Entry) whose fields are read from the library's record when
 * asked for; containers, containers()' objects, each entry's .container,
 * each given its entries (container_set_entries) unless it has them. */
PyObject *listing_entries(Artifact *self, PyObject *args);
/* Record e of a walk (valid during its visit) as an object of cls in
 * container, every field copied out (image_kind too): no artefact, so
 * what reads its code raises ValueError. */
PyObject *listing_entry_of_record(PyTypeObject *cls, const offcode_entry *e,
				  PyObject *container);
/* _offcode.Entry, for the module to make ready and add. */
PyTypeObject *listing_entry_type(void);

#endif
