/* source: offcode.Source, one input's bytes as the library reads them
 * (offcode_source_*: a regular file mapped, a pipe, FIFO, device or
 * standard input read once, bounded), handed to Python through the
 * buffer protocol; and check_stdout. */
#ifndef OFFCODE_PY_SOURCE_H
#define OFFCODE_PY_SOURCE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* offcode.Source, made ready by the module's init. */
extern PyTypeObject source_type;
/* check_stdout(path): None, or the library's record raised (OtherError,
 * "input file is output file", when standard output writes to path). */
PyObject *source_check_stdout(PyObject *mod, PyObject *arg);

#endif
