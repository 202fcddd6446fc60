/* split: a kpack-split binary (offcode_split, include/offcode.h) as the
 * extension's Split object: its reference, wrappers, search paths and
 * archives handed out as tuples, each TOC entry's code read; and the
 * module's functions that open one and look at a code object's bytes.
 * offcode/_records.py makes the objects people use. */
#ifndef OFFCODE_PY_SPLIT_H
#define OFFCODE_PY_SPLIT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* open_split_path(path): a Split; offcode.NothingError for a file that
 * is no split binary (offcode_split_open_path's OFFCODE_NOTHING) */
PyObject *split_open_path(PyObject *mod, PyObject *args);
/* open_split_memory(buffer, name): the same of bytes, borrowed (not
 * copied) until closed; archives are looked for from name's directory */
PyObject *split_open_memory(PyObject *mod, PyObject *args);
/* split_image_kind(code): "elf", "bitcode", "cubin", "fatbin", "spirv"
 * or None, from its first bytes */
PyObject *split_image_kind(PyObject *mod, PyObject *arg);
/* split_code_for(code, target): (whether it is an AMDGPU code object for
 * target, what it is: its target ID, "no target" or "not an AMDGPU code
 * object") */
PyObject *split_code_for(PyObject *mod, PyObject *args);

#endif
