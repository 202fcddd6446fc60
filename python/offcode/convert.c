/* convert: C values to Python objects and back (convert.h). */
#include "convert.h"

#include <limits.h>
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
