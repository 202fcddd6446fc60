/* kernels: kernel lists as tuples, an entry's or the caller's code's
 * (kernels.h). */
#include "kernels.h"

#include "convert.h"
#include "errors.h"

/* One kernel: (symbol, name, resources, constant_bytes, descriptor). */
static PyObject *kernel_of(const offcode_kernel *k)
{
	PyObject *res = PyDict_New(), *banks = NULL, *desc = NULL, *r = NULL;
	struct offcode_kernel_descriptor d;

	if (!res)
		return NULL;
	for (int i = 0; i < OFFCODE_RESOURCES; i++) {
		uint64_t v;
		PyObject *o;

		if (!offcode_kernel_resource(k, i, &v))
			continue;
		o = PyLong_FromUnsignedLongLong(v);
		if (!o || PyDict_SetItemString(res, offcode_resource_name(i), o) < 0) {
			Py_XDECREF(o);
			goto out;
		}
		Py_DECREF(o);
	}
	banks = PyDict_New();
	if (!banks)
		goto out;
	for (unsigned b = 0; b < 18; b++) {
		uint64_t v;
		PyObject *o, *key;

		if (!offcode_kernel_constant_bytes(k, b, &v))
			continue;
		o = PyLong_FromUnsignedLongLong(v);
		key = PyUnicode_FromFormat("%u", b);
		if (!o || !key || PyDict_SetItem(banks, key, o) < 0) {
			Py_XDECREF(o);
			Py_XDECREF(key);
			goto out;
		}
		Py_DECREF(o);
		Py_DECREF(key);
	}
	if (offcode_kernel_descriptor(k, &d))
		desc = Py_BuildValue("{sKsIsIsIsIsIsIsI}",
				     "offset", (unsigned long long)d.offset,
				     "group_segment_fixed_size", d.group_segment_fixed_size,
				     "private_segment_fixed_size", d.private_segment_fixed_size,
				     "kernarg_size", d.kernarg_size,
				     "compute_pgm_rsrc1", d.compute_pgm_rsrc1,
				     "compute_pgm_rsrc2", d.compute_pgm_rsrc2,
				     "compute_pgm_rsrc3", d.compute_pgm_rsrc3,
				     "kernel_code_properties", (unsigned)d.kernel_code_properties);
	else
		desc = (Py_INCREF(Py_None), Py_None);
	if (!desc)
		goto out;
	r = Py_BuildValue("(NNOOO)", convert_str_or_none(offcode_kernel_symbol(k)),
			  convert_str_or_none(offcode_kernel_name(k)), res, banks, desc);
out:
	Py_DECREF(res);
	Py_XDECREF(banks);
	Py_XDECREF(desc);
	return r;
}

PyObject *kernels_tuple(const offcode_kernels *k)
{
	size_t n = offcode_kernels_count(k);
	PyObject *list = PyList_New((Py_ssize_t)n), *r;

	if (!list)
		return NULL;
	for (size_t j = 0; j < n; j++) {
		PyObject *t = kernel_of(offcode_kernels_at(k, j));

		if (!t) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)j, t);
	}
	r = Py_BuildValue("(NINNNON)", convert_str_or_none(offcode_kernels_source(k)),
			  offcode_kernels_code_object_version(k),
			  convert_str_or_none(offcode_kernels_target(k)),
			  convert_str_or_none(offcode_kernels_processor(k)),
			  convert_str_or_none(offcode_kernels_ptx_version(k)), list,
			  convert_str_or_none(offcode_kernels_target_id(k)));
	Py_DECREF(list);
	return r;
}

/* The buffer is held (a bytearray cannot be resized, a Source not closed)
 * while the library reads it without the GIL; what it hands back is the
 * caller's own, the bytes free to go once it returns. */
PyObject *kernels_of_code(PyObject *mod, PyObject *arg)
{
	Py_buffer view;
	offcode_kernels *k = NULL;
	offcode_error *err = NULL;
	PyObject *r = NULL;
	int rc;

	(void)mod;
	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_code_kernels(view.buf, (size_t)view.len, &k, &err);
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&view);
	if (rc == OFFCODE_NOTHING)
		r = (Py_INCREF(Py_None), Py_None);
	else if (rc)
		errors_raise(rc, err);
	else
		r = kernels_tuple(k);
	offcode_code_kernels_free(k);
	offcode_error_free(err);
	return r;
}
