/* walk: liboffcode's streaming walk (offcode_walk_*) for Python, each
 * node handed to a visitor as an object of the type made here
 * (_offcode.Node), memory flat in the file's size. */
#ifndef OFFCODE_PY_WALK_H
#define OFFCODE_PY_WALK_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* walk(source, how, name, code, verify, ccob_max_size, ccob_max_ratio, visit,
 *      entry_cls, container_cls, section_cls, make_input):
 * how "path" (source a path), "fd" (an int) or "memory" (a buffer, held
 * for the walk); visit(node) for each node; its first true result
 * returned (the walk stopped), else None; its exception raised. */
PyObject *walk_run(PyObject *mod, PyObject *args);
/* _offcode.Node, for the module to make ready and add. */
PyTypeObject *walk_node_type(void);

#endif
