/* errors: each offcode_error chain raised as the offcode.Error subclass of
 * its code (errors.h). */
#include "errors.h"

#include "convert.h"

#define CODES (OFFCODE_BAD_HASH + 1)

static PyObject *error_base;
static PyObject *error_class[CODES];
static PyTypeObject error_record_type;

static PyStructSequence_Field record_fields[] = {
	{ "code", "the enum offcode_code value" },
	{ "code_name", "its name: 'truncated', 'malformed', ..." },
	{ "errno", "the errno of a failed system call, or 0" },
	{ "offset", "where in the data it failed, or None" },
	{ "path", "the file it concerns ('' when none)" },
	{ "reason", "what went wrong, the path left out" },
	{ "message", "'<path>': <reason>" },
	{ NULL, NULL },
};

static PyStructSequence_Desc record_desc = {
	"offcode.ErrorRecord",
	"One link of an error's chain, the outermost first.",
	record_fields, 7,
};

static PyObject *record_of(const offcode_error *e)
{
	PyObject *r = PyStructSequence_New(&error_record_type);
	enum offcode_code code = offcode_error_code(e);
	const char *name = offcode_code_name(code);
	uint64_t offset;
	PyObject *off;

	if (!r)
		return NULL;
	if (offcode_error_offset(e, &offset)) {
		off = PyLong_FromUnsignedLongLong(offset);
	} else {
		off = Py_None;
		Py_INCREF(off);
	}
	PyStructSequence_SET_ITEM(r, 0, PyLong_FromLong(code));
	PyStructSequence_SET_ITEM(r, 1, PyUnicode_FromString(name ? name : "?"));
	PyStructSequence_SET_ITEM(r, 2, PyLong_FromLong(offcode_error_errno(e)));
	PyStructSequence_SET_ITEM(r, 3, off);
	PyStructSequence_SET_ITEM(r, 4, PyUnicode_DecodeFSDefault(convert_or_empty(offcode_error_path(e))));
	PyStructSequence_SET_ITEM(r, 5, convert_str_or_none(convert_or_empty(offcode_error_reason(e))));
	PyStructSequence_SET_ITEM(r, 6, convert_str_or_none(convert_or_empty(offcode_error_message(e))));
	for (Py_ssize_t i = 0; i < 7; i++)
		if (!PyStructSequence_GET_ITEM(r, i)) {
			Py_DECREF(r);
			return NULL;
		}
	return r;
}

PyObject *errors_raise(int code, const offcode_error *e)
{
	PyObject *chain = NULL, *exc = NULL, *first, *cls;
	const offcode_error *link;

	if (e)
		code = offcode_error_code(e);
	if (code == OFFCODE_NOMEM && !e)
		return PyErr_NoMemory();
	cls = code > 0 && code < CODES ? error_class[code] : error_base;
	if (!e) {
		const char *name = offcode_code_name(code);

		PyErr_Format(cls, "%s", name ? name : "unknown error");
		return NULL;
	}
	chain = PyList_New(0);
	if (!chain)
		goto out;
	for (link = e; link; link = offcode_error_cause(link)) {
		PyObject *r = record_of(link);

		if (!r || PyList_Append(chain, r) < 0) {
			Py_XDECREF(r);
			goto out;
		}
		Py_DECREF(r);
	}
	first = PyList_GET_ITEM(chain, 0);
	exc = PyObject_CallFunctionObjArgs(cls, PyStructSequence_GET_ITEM(first, 6), NULL);
	if (!exc)
		goto out;
	if (PyObject_SetAttrString(exc, "code", PyStructSequence_GET_ITEM(first, 0)) < 0 ||
	    PyObject_SetAttrString(exc, "code_name", PyStructSequence_GET_ITEM(first, 1)) < 0 ||
	    PyObject_SetAttrString(exc, "errno", PyStructSequence_GET_ITEM(first, 2)) < 0 ||
	    PyObject_SetAttrString(exc, "offset", PyStructSequence_GET_ITEM(first, 3)) < 0 ||
	    PyObject_SetAttrString(exc, "path", PyStructSequence_GET_ITEM(first, 4)) < 0 ||
	    PyObject_SetAttrString(exc, "reason", PyStructSequence_GET_ITEM(first, 5)) < 0 ||
	    PyObject_SetAttrString(exc, "chain", chain) < 0)
		goto out;
	PyErr_SetObject(cls, exc);
out:
	Py_XDECREF(chain);
	Py_XDECREF(exc);
	return NULL;
}

PyObject *errors_object(const offcode_error *e)
{
	PyObject *type, *value, *tb;

	errors_raise(e ? (int)offcode_error_code(e) : OFFCODE_NOMEM, e);
	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	Py_XDECREF(type);
	Py_XDECREF(tb);
	return value;
}

/* The classes of the codes: offcode.<Name>Error, under offcode.Error, and
 * under the built-in class that means the same where there is one (an
 * OSError for a system call, a MemoryError, a ValueError for a bad
 * argument). */
static const struct {
	int code;
	const char *name;
	PyObject **builtin;
} classes[] = {
	{ OFFCODE_OTHER, "OtherError", NULL },
	{ OFFCODE_SYSTEM, "SystemCallError", &PyExc_OSError },
	{ OFFCODE_TRUNCATED, "TruncatedError", NULL },
	{ OFFCODE_MALFORMED, "MalformedError", NULL },
	{ OFFCODE_DECOMPRESS, "DecompressError", NULL },
	{ OFFCODE_NOMEM, "OutOfMemoryError", &PyExc_MemoryError },
	{ OFFCODE_NOTHING, "NothingError", NULL },
	{ OFFCODE_FATAL, "FatalError", NULL },
	{ OFFCODE_CHANGED, "ChangedError", NULL },
	{ OFFCODE_INVALID, "InvalidError", &PyExc_ValueError },
	{ OFFCODE_RANGE, "RangeError", NULL },
	{ OFFCODE_UNSUPPORTED, "UnsupportedError", NULL },
	{ OFFCODE_BAD_HASH, "BadHashError", NULL },
};
_Static_assert(sizeof(classes) / sizeof(classes[0]) == CODES - 1,
	       "a class for each enum offcode_code but OFFCODE_OK");

int errors_add(PyObject *m)
{
	if (!error_record_type.tp_name &&
	    PyStructSequence_InitType2(&error_record_type, &record_desc) < 0)
		return -1;
	error_base = PyErr_NewExceptionWithDoc("offcode.Error",
		"A failure of liboffcode: .code (enum offcode_code), .code_name, "
		".errno, .offset, .path, .reason and .chain (ErrorRecord, the "
		"outermost first).", NULL, NULL);
	if (!error_base || PyModule_AddObjectRef(m, "Error", error_base) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		char qual[64];
		PyObject *bases, *cls;

		snprintf(qual, sizeof(qual), "offcode.%s", classes[i].name);
		bases = classes[i].builtin ?
			PyTuple_Pack(2, error_base, *classes[i].builtin) :
			PyTuple_Pack(1, error_base);
		if (!bases)
			return -1;
		cls = PyErr_NewException(qual, bases, NULL);
		Py_DECREF(bases);
		if (!cls || PyModule_AddObjectRef(m, classes[i].name, cls) < 0)
			return -1;
		error_class[classes[i].code] = cls;
	}
	return PyModule_AddObjectRef(m, "ErrorRecord", (PyObject *)&error_record_type);
}
