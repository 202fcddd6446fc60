/* nv: an NVIDIA entry's header (nv.h). */
#include "nv.h"

#include "convert.h"
#include "errors.h"

PyObject *nv_header(Artifact *self, PyObject *arg)
{
	const offcode_entry *e = handle_locked_entry(self, PyLong_AsSsize_t(arg));
	struct offcode_nv_entry nv = { .size = sizeof(nv) };
	PyObject *r = NULL;
	int rc;

	if (!e)
		return NULL;
	/* (a few words the walk kept: no call worth letting the GIL go for) */
	rc = offcode_entry_nv(e, &nv);
	if (rc == OFFCODE_NOTHING)
		r = (Py_INCREF(Py_None), Py_None);
	else if (rc)
		errors_raise(rc, NULL);
	else
		r = Py_BuildValue("(IINKNN)", nv.kind, nv.arch,
				  nv.variant && nv.variant[0] ?
				  PyUnicode_FromString(nv.variant) : Py_NewRef(Py_None),
				  (unsigned long long)nv.flags,
				  convert_file_text(nv.identifier, nv.identifier_len),
				  convert_file_text(nv.ptxas_options, nv.ptxas_options_len));
	handle_unlock(self);
	return r;
}
