/* errors: the offcode.Error classes, one per enum offcode_code, and each
 * offcode_error chain turned into an exception of its code's class. */
#ifndef OFFCODE_PY_ERRORS_H
#define OFFCODE_PY_ERRORS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <offcode.h>

/* Raise the class of code (the record's own when there is one) with the
 * record's message, its fields as attributes and its chain (.chain, the
 * outermost first); NULL, for returning. */
PyObject *errors_raise(int code, const offcode_error *e);
/* Raise the class of code with one record the library did not make (a
 * failure it reports by code alone): path (str), reason, and the
 * message "'<path>': <reason>"; NULL, for returning. */
PyObject *errors_raise_own(int code, PyObject *path, const char *reason);
/* The library's interrupted hook (offcode_open_options and the others),
 * called with the GIL let go when a signal cuts a read of a pipe short:
 * the signal's Python handler runs (PyErr_CheckSignals); when it raised
 * (Ctrl-C's KeyboardInterrupt), 1, the call stops, and the exception
 * stays set for errors_raise to leave as the call's; else 0. */
int errors_interrupted(void *ctx);
/* The exception of a record, as an object (not raised). */
PyObject *errors_object(const offcode_error *e);
/* Module m is where the classes and ErrorRecord are added, when first
 * named (errors_getattr) or raised: 0, or -1 with an exception. */
int errors_add(PyObject *m);
/* The module's __getattr__ (PEP 562): a class or ErrorRecord, made and
 * added first if need be; AttributeError for any other name. */
PyObject *errors_getattr(PyObject *m, PyObject *name);

#endif
