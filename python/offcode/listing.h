/* listing: what an artefact holds, handed to Python for offcode/__init__.py
 * to make its objects of. */
#ifndef OFFCODE_PY_LISTING_H
#define OFFCODE_PY_LISTING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "handle.h"

/* listing(): (inputs, containers), each a list of tuples (_offcode.pyi
 * describes them); objects are named by their index in these lists. */
PyObject *listing_of(Artifact *self, PyObject *unused);
/* entries(cls, containers): every entry, an object of cls (a subclass of
 * _offcode.Entry) whose fields are read from the library's record when
 * asked for; containers, the objects made of listing()'s rows, each
 * entry's .container. */
PyObject *listing_entries(Artifact *self, PyObject *args);
/* _offcode.Entry, for the module to make ready and add. */
PyTypeObject *listing_entry_type(void);

#endif
