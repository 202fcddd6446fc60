/* open: the module's functions that open an artefact (each an Artifact,
 * or NULL with the library's error raised), and path_kind. */
#ifndef OFFCODE_PY_OPEN_H
#define OFFCODE_PY_OPEN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* open_path(path, verify, ccob_max_size, ccob_max_ratio) */
PyObject *open_path(PyObject *mod, PyObject *args);
/* open_fd(fd, name, verify, ccob_max_size, ccob_max_ratio) */
PyObject *open_fd(PyObject *mod, PyObject *args);
/* open_memory(buffer, name, verify, ccob_max_size, ccob_max_ratio) */
PyObject *open_memory(PyObject *mod, PyObject *args);
/* open_stream(path, verify, ccob_max_size, ccob_max_ratio): a package or
 * an image, its files walked later (walk_layer) */
PyObject *open_stream(PyObject *mod, PyObject *args);
/* path_kind(path): "image", "deb", "wheel", "conda" or None */
PyObject *open_path_kind(PyObject *mod, PyObject *arg);

#endif
