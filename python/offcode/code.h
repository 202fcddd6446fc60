/* code: the Artifact's methods that read an entry's code (entry i of the
 * listing), write it to files, walk every entry's, match an entry against
 * rules and list its kernels. */
#ifndef OFFCODE_PY_CODE_H
#define OFFCODE_PY_CODE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "handle.h"

/* read(i): entry i's code, decompressed, as bytes */
PyObject *code_read(Artifact *self, PyObject *arg);
/* read_into(i, buffer): its length, or offcode.RangeError */
PyObject *code_read_into(Artifact *self, PyObject *args);
/* code_size(i): the length of entry i's code, decompressed */
PyObject *code_size(Artifact *self, PyObject *arg);
/* write_path(i, path) and write_fd(i, fd) */
PyObject *code_write_path(Artifact *self, PyObject *args);
PyObject *code_write_fd(Artifact *self, PyObject *args);
/* each_code(fn): fn(i, code) for each entry in one walk; True when fn
 * stopped it */
PyObject *code_each_code(Artifact *self, PyObject *fn);
/* each_path(fn): each entry's code written to the file fn(i) names */
PyObject *code_each_path(Artifact *self, PyObject *fn);
/* image_kind(i): read from the code's first bytes when first asked (the
 * same for the C caller: entry i's kind, None, or NULL with an
 * exception) */
PyObject *code_image_kind(Artifact *self, PyObject *arg);
PyObject *code_image_kind_of(Artifact *self, Py_ssize_t i);
/* matches(i, rules, exact) */
PyObject *code_matches(Artifact *self, PyObject *args);
/* kernels(i): kernels_tuple's tuple (kernels.h) or None */
PyObject *code_kernels(Artifact *self, PyObject *arg);

#endif
