/* convert: C values to Python objects and Python arguments to C values,
 * as every part of the extension makes them. */
#ifndef OFFCODE_PY_CONVERT_H
#define OFFCODE_PY_CONVERT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include <offcode.h>

/* s, or "" for NULL. */
const char *convert_or_empty(const char *s);
/* A message or a name from a file as str: bytes that are not UTF-8 kept as
 * they are (surrogateescape, as os.fsdecode does); None for NULL. */
PyObject *convert_str_or_none(const char *s);
/* len bytes as bytes, None for NULL. */
PyObject *convert_bytes_or_none(const char *s, size_t len);
/* v, or None when not known. */
PyObject *convert_u64_if(bool known, uint64_t v);
/* A text of a file (an ID, a triple, a section's name) as ls --json writes
 * it: valid UTF-8 as it is, each other byte as the character of its value
 * (the "offcode-bytes" handler offcode/__init__.py registers); None for
 * NULL. */
PyObject *convert_file_text(const char *s, size_t len);
/* A kind's n fields, each read by get(what, i, ...), nested as ls --json
 * nests them: a dict. */
PyObject *convert_fields(size_t n,
			 int (*get)(const void *, size_t, struct offcode_field *),
			 const void *what);
/* PyArg "O&" converters of Python ints that fail with OverflowError past
 * the C type's range (to an unsigned long long, to an unsigned). */
int convert_u64_arg(PyObject *o, void *to);
int convert_uint_arg(PyObject *o, void *to);

#endif
