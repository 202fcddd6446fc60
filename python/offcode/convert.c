/* convert: C values to Python objects and back (convert.h). */
#include "convert.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

const char *convert_or_empty(const char *s)
{
	return s ? s : "";
}

PyObject *convert_str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

PyObject *convert_bytes_or_none(const char *s, size_t len)
{
	if (!s)
		Py_RETURN_NONE;
	return PyBytes_FromStringAndSize(s, (Py_ssize_t)len);
}

PyObject *convert_u64_if(bool known, uint64_t v)
{
	if (!known)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(v);
}

/* ("K" and "I" wrap silently: 2**64 would be 0, the library's default,
 * instead of refused.) */
int convert_u64_arg(PyObject *o, void *to)
{
	unsigned long long v;

	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "an integer is required, not %.100s",
			     Py_TYPE(o)->tp_name);
		return 0;
	}
	v = PyLong_AsUnsignedLongLong(o);
	if (v == (unsigned long long)-1 && PyErr_Occurred())
		return 0;
	*(unsigned long long *)to = v;
	return 1;
}

int convert_uint_arg(PyObject *o, void *to)
{
	unsigned long long v;

	if (!convert_u64_arg(o, &v))
		return 0;
	if (v > UINT_MAX) {
		PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C unsigned int");
		return 0;
	}
	*(unsigned *)to = (unsigned)v;
	return 1;
}

/* A text of a file (an ID, a triple) as str: valid UTF-8 as it is, each
 * other byte as the character of its value (the "offcode-bytes" handler
 * offcode/__init__.py registers), as ls --json writes it. */
PyObject *convert_file_text(const char *s, size_t len)
{
	PyObject *r;

	if (!s)
		Py_RETURN_NONE;
	r = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, NULL);
	if (r || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
		return r;
	PyErr_Clear();
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "offcode-bytes");
}

/* A kind's own fields nested as ls --json nests them: a dict. */
PyObject *convert_fields(size_t n,
			 int (*get)(const void *, size_t, struct offcode_field *),
			 const void *what)
{
	enum { DEPTH = 16 };
	PyObject *stack[DEPTH];
	size_t depth = 0;

	if (!(stack[0] = PyDict_New()))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct offcode_field f;
		PyObject *value = NULL;
		int rc;

		memset(&f, 0, sizeof(f));
		if (get(what, i, &f)) {
			PyErr_SetString(PyExc_RuntimeError, "field past the count");
			goto fail;
		}
		switch (f.type) {
		case OFFCODE_FIELD_END:
			if (depth == 0) {
				PyErr_SetString(PyExc_RuntimeError, "a field's object closed twice");
				goto fail;
			}
			depth--;
			continue;
		case OFFCODE_FIELD_OBJECT:
			value = PyDict_New();
			break;
		case OFFCODE_FIELD_UINT:
			value = PyLong_FromUnsignedLongLong(f.number);
			break;
		case OFFCODE_FIELD_HEX: {
			char hex[19];

			snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)f.number);
			value = PyUnicode_FromString(hex);
			break;
		}
		case OFFCODE_FIELD_BOOL:
			value = PyBool_FromLong(f.number != 0);
			break;
		case OFFCODE_FIELD_TEXT:
			value = convert_file_text(f.text, f.text_len);
			break;
		}
		if (!value) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_RuntimeError, "a field of type %d",
					     (int)f.type);
			goto fail;
		}
		rc = PyDict_SetItemString(stack[depth], f.key ? f.key : "", value);
		if (rc == 0 && f.type == OFFCODE_FIELD_OBJECT) {
			if (depth + 1 == DEPTH) {
				PyErr_SetString(PyExc_RuntimeError, "fields nested too deep");
				rc = -1;
			} else {
				stack[++depth] = value;	/* borrowed: its parent holds it */
			}
		}
		Py_DECREF(value);
		if (rc < 0)
			goto fail;
	}
	return stack[0];
fail:
	Py_DECREF(stack[0]);
	return NULL;
}
