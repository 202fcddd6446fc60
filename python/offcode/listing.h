/* listing: what an artefact holds, handed to Python for offcode/__init__.py
 * to make its objects of. */
#ifndef OFFCODE_PY_LISTING_H
#define OFFCODE_PY_LISTING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "handle.h"

/* listing(): (inputs, containers, entries), each a list of tuples
 * (_offcode.pyi describes them); objects are named by their index in
 * these lists. */
PyObject *listing_of(Artifact *self, PyObject *unused);

#endif
