/* kernels: a list of kernels (offcode_kernels) as the tuple
 * offcode/_records.py's Kernels is made of, for an entry's (code.c) and
 * for code the caller holds (the module's code_kernels). */
#ifndef OFFCODE_PY_KERNELS_H
#define OFFCODE_PY_KERNELS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <offcode.h>

/* (source, code_object_version, target, processor, ptx_version,
 * [(symbol, name, resources, constant_bytes, descriptor)], target_id);
 * NULL with an exception.  k is used by this thread alone meanwhile (its
 * names are demangled when first read). */
PyObject *kernels_tuple(const offcode_kernels *k);
/* code_kernels(buffer): the tuple of the kernels of the code object in
 * any object with the buffer protocol (offcode_code_kernels), None for
 * bytes that are none the library reads, or the damage raised. */
PyObject *kernels_of_code(PyObject *mod, PyObject *arg);

#endif
