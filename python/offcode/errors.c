/* errors: each offcode_error chain raised as the offcode.Error subclass of
 * its code (errors.h). */
#include "errors.h"

#include <errno.h>
#include <string.h>

#include "convert.h"

#define CODES (OFFCODE_BAD_HASH + 1)

/* Made when first named or raised (errors_ready): sixteen classes and a
 * struct sequence type, made at import, were half of what the module's
 * own start cost, and a listing raises none (issue 37). */
static PyObject *error_base;
static PyObject *error_class[CODES];
static PyTypeObject error_record_type;
static PyObject *error_module;	/* the module they are added to */
static int errors_ready(void);

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

/* Raise cls for chain, a list of records, the outermost first: its
 * message and fields the first's. */
static void raise_chain(PyObject *cls, PyObject *chain)
{
	PyObject *first = PyList_GET_ITEM(chain, 0);
	PyObject *exc = PyObject_CallFunctionObjArgs(cls, PyStructSequence_GET_ITEM(first, 6),
						     NULL);

	if (!exc)
		return;
	if (PyObject_SetAttrString(exc, "code", PyStructSequence_GET_ITEM(first, 0)) == 0 &&
	    PyObject_SetAttrString(exc, "code_name", PyStructSequence_GET_ITEM(first, 1)) == 0 &&
	    PyObject_SetAttrString(exc, "errno", PyStructSequence_GET_ITEM(first, 2)) == 0 &&
	    PyObject_SetAttrString(exc, "offset", PyStructSequence_GET_ITEM(first, 3)) == 0 &&
	    PyObject_SetAttrString(exc, "path", PyStructSequence_GET_ITEM(first, 4)) == 0 &&
	    PyObject_SetAttrString(exc, "reason", PyStructSequence_GET_ITEM(first, 5)) == 0 &&
	    PyObject_SetAttrString(exc, "chain", chain) == 0)
		PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
}

int errors_interrupted(void *ctx)
{
	PyGILState_STATE gil = PyGILState_Ensure();
	int stop = PyErr_CheckSignals() < 0;

	(void)ctx;
	PyGILState_Release(gil);
	return stop;
}

PyObject *errors_raise(int code, const offcode_error *e)
{
	PyObject *chain = NULL, *cls;
	const offcode_error *link;

	/* A call a signal cut short (a FIFO's open waiting for its writer,
	 * a pipe's read stopped by errors_interrupted): the signal's Python
	 * handler runs now, or ran in the hook, and what it raised (Ctrl-C's
	 * KeyboardInterrupt) is the call's exception, as Python's own calls
	 * raise it (PEP 475), not an EINTR with the handler's after it. */
	for (link = e; link; link = offcode_error_cause(link))
		if (offcode_error_errno(link) == EINTR) {
			if (PyErr_Occurred() || PyErr_CheckSignals() < 0)
				return NULL;
			break;
		}
	if (e)
		code = offcode_error_code(e);
	if (code == OFFCODE_NOMEM && !e)
		return PyErr_NoMemory();
	if (errors_ready() < 0)
		return NULL;
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
	raise_chain(cls, chain);
out:
	Py_XDECREF(chain);
	return NULL;
}

PyObject *errors_raise_own(int code, PyObject *path, const char *reason)
{
	const char *name = offcode_code_name(code);
	PyObject *r, *chain;

	if (errors_ready() < 0 || !(r = PyStructSequence_New(&error_record_type)))
		return NULL;
	PyStructSequence_SET_ITEM(r, 0, PyLong_FromLong(code));
	PyStructSequence_SET_ITEM(r, 1, PyUnicode_FromString(name ? name : "?"));
	PyStructSequence_SET_ITEM(r, 2, PyLong_FromLong(0));
	PyStructSequence_SET_ITEM(r, 3, Py_NewRef(Py_None));
	PyStructSequence_SET_ITEM(r, 4, Py_NewRef(path));
	PyStructSequence_SET_ITEM(r, 5, PyUnicode_FromString(reason));
	PyStructSequence_SET_ITEM(r, 6, PyUnicode_FromFormat("'%U': %s", path, reason));
	for (Py_ssize_t i = 0; i < 7; i++)
		if (!PyStructSequence_GET_ITEM(r, i)) {
			Py_DECREF(r);
			return NULL;
		}
	if (!(chain = Py_BuildValue("[N]", r)))
		return NULL;
	raise_chain(code > 0 && code < CODES ? error_class[code] : error_base, chain);
	Py_DECREF(chain);
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

/* The classes made and added to the module, once: 0, or -1 with an
 * exception (none published then: the next call tries again). */
static int errors_ready(void)
{
	PyObject *base, *made[CODES] = { NULL };
	int rc = -1;

	if (error_base)
		return 0;
	if (!error_record_type.tp_name &&
	    PyStructSequence_InitType2(&error_record_type, &record_desc) < 0)
		return -1;
	base = PyErr_NewExceptionWithDoc("offcode.Error",
		"A failure of liboffcode: .code (enum offcode_code), .code_name, "
		".errno, .offset, .path, .reason and .chain (ErrorRecord, the "
		"outermost first).", NULL, NULL);
	if (!base)
		return -1;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		char qual[64];
		PyObject *bases;

		snprintf(qual, sizeof(qual), "offcode.%s", classes[i].name);
		bases = classes[i].builtin ?
			PyTuple_Pack(2, base, *classes[i].builtin) :
			PyTuple_Pack(1, base);
		if (!bases)
			goto out;
		made[classes[i].code] = PyErr_NewException(qual, bases, NULL);
		Py_DECREF(bases);
		if (!made[classes[i].code])
			goto out;
	}
	/* (what ran meanwhile, the collector's finalizers, may have made
	 * them first: theirs stay) */
	if (error_base) {
		rc = 0;
		goto out;
	}
	if (PyModule_AddObjectRef(error_module, "Error", base) < 0 ||
	    PyModule_AddObjectRef(error_module, "ErrorRecord",
				  (PyObject *)&error_record_type) < 0)
		goto out;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (PyModule_AddObjectRef(error_module, classes[i].name,
					  made[classes[i].code]) < 0)
			goto out;
	error_base = Py_NewRef(base);
	for (int code = 0; code < CODES; code++)
		error_class[code] = Py_XNewRef(made[code]);
	rc = 0;
out:
	Py_DECREF(base);
	for (int code = 0; code < CODES; code++)
		Py_XDECREF(made[code]);
	return rc;
}

/* Whether name is one errors_ready adds. */
static int errors_named(PyObject *name)
{
	const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;

	if (!s) {
		PyErr_Clear();
		return 0;
	}
	if (!strcmp(s, "Error") || !strcmp(s, "ErrorRecord"))
		return 1;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(s, classes[i].name))
			return 1;
	return 0;
}

PyObject *errors_getattr(PyObject *m, PyObject *name)
{
	PyObject *v = NULL;

	if (errors_named(name)) {
		if (errors_ready() < 0)
			return NULL;
		v = PyDict_GetItemWithError(PyModule_GetDict(m), name);
		if (PyErr_Occurred())
			return NULL;
	}
	if (!v)
		PyErr_Format(PyExc_AttributeError,
			     "module 'offcode._offcode' has no attribute %R", name);
	return Py_XNewRef(v);
}

int errors_add(PyObject *m)
{
	error_module = Py_NewRef(m);
	return 0;
}
