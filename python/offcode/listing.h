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
/* entries(cls, containers): every entry, an object of cls (a subclass of
 * _offcode.Entry) whose fields are read from the library's record when
 * asked for; containers, containers()' objects, each entry's .container,
 * each given its entries (container_set_entries) unless it has them. */
PyObject *listing_entries(Artifact *self, PyObject *args);
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
