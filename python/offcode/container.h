/* container: an artefact's containers handed to Python, objects of a type
 * of the extension's (offcode.Container is its subclass). */
#ifndef OFFCODE_PY_CONTAINER_H
#define OFFCODE_PY_CONTAINER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "handle.h"

/* containers(cls, section_cls, inputs, entry_cls): every container, an
 * object of cls (a subclass of _offcode.Container) whose numbers are read
 * when asked for; its section an object of section_cls (a tuple subclass:
 * index, name, kind), one for the containers of one section; its input
 * the object of inputs (made of inputs()' rows) at the input's index; its
 * entries objects of entry_cls (a subclass of _offcode.Entry), made when
 * asked for (listing_entry_new). */
PyObject *container_list(Artifact *self, PyObject *args);
/* The list of c's entries (a new reference), made when first asked for
 * and kept: c must be of the containers() of artefact of; NULL with an
 * exception. */
PyObject *container_entries(PyObject *c, Artifact *of);
/* Record c of a walk (valid during its visit) as an object of cls in
 * input, its section one of section_cls, its fields copied out; its
 * entries none (a walk hands each over as a node of its own). */
PyObject *container_of_record(PyTypeObject *cls, PyTypeObject *section_cls,
			      const offcode_container *c, PyObject *input);
/* _offcode.Container, for the module to add once container_ready() made
 * it and its iterator's type ready (0, or -1 with an exception). */
PyTypeObject *container_type_of(void);
int container_ready(void);

#endif
