/* _offcode: the C half of the offcode package, a thin layer over liboffcode
 * (include/offcode.h).  It hands out the artefact's listing and its code;
 * offcode/__init__.py makes the objects people use.  This file is the
 * module: its tables and prune; its parts, each with a header declaring
 * its functions, call none of this file:
 *   errors.c    the offcode.Error classes, a record chain raised
 *   convert.c   C values to Python objects and arguments to C values
 *   handle.c    the Artifact object and its lock
 *   open.c      the openers and their arguments
 *   listing.c   inputs and entries
 *   container.c containers
 *   code.c      an entry's code read, written, walked; matching, kernels
 *   layers.c    packages' and images' layers and manifests; du's figures
 *   kernels.c   kernel lists as tuples; the kernels of code at hand
 *   nv.c        an NVIDIA entry's header
 *   source.c    offcode.Source, one input's bytes; check_stdout
 *   walk.c      the streaming walk, its nodes
 *   split.c     kpack-split binaries (the Split object), a code object's
 *               image kind and target */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include <offcode.h>

#include "code.h"
#include "container.h"
#include "convert.h"
#include "errors.h"
#include "handle.h"
#include "kernels.h"
#include "layers.h"
#include "listing.h"
#include "nv.h"
#include "open.h"
#include "source.h"
#include "walk.h"
#include "split.h"

static PyMethodDef artifact_methods[] = {
	{ "close", (PyCFunction)handle_close, METH_NOARGS, "Free the artefact." },
	{ "inputs", (PyCFunction)listing_inputs, METH_NOARGS, "The inputs as tuples." },
	{ "containers", (PyCFunction)container_list, METH_VARARGS,
	  "Every container, an object of cls, its section of section_cls, in inputs." },
	{ "entries", (PyCFunction)listing_entries, METH_O,
	  "Every entry, its containers' lists of them one after another." },
	{ "read", (PyCFunction)code_read, METH_O, "Entry i's code as bytes." },
	{ "read_into", (PyCFunction)code_read_into, METH_VARARGS,
	  "Entry i's code into a writable buffer; its length." },
	{ "code_size", (PyCFunction)code_size, METH_O,
	  "The length of entry i's code, decompressed." },
	{ "write_path", (PyCFunction)code_write_path, METH_VARARGS,
	  "Entry i's code into a new file." },
	{ "write_fd", (PyCFunction)code_write_fd, METH_VARARGS,
	  "Entry i's code to a file descriptor." },
	{ "each_code", (PyCFunction)code_each_code, METH_O,
	  "fn(i, code) for each entry's code, as bytes." },
	{ "each_path", (PyCFunction)code_each_path, METH_O,
	  "Each entry's code written to the file fn(i) names, in one walk." },
	{ "image_kind", (PyCFunction)code_image_kind, METH_O,
	  "Entry i's image kind, read when first asked." },
	{ "matches", (PyCFunction)code_matches, METH_VARARGS,
	  "Whether entry i is taken by rules." },
	{ "kernels", (PyCFunction)code_kernels, METH_O, "Entry i's kernels." },
	{ "nv_header", (PyCFunction)nv_header, METH_O,
	  "Entry i's NVIDIA header: (kind, arch, variant, flags, identifier, "
	  "ptxas_options), or None." },
	{ "layers", (PyCFunction)layers_list, METH_NOARGS,
	  "A package's or an image's layers: (name, compression, stored)." },
	{ "walk_layer", (PyCFunction)layers_walk, METH_VARARGS,
	  "fn(member, file, error) for each file of layer i worth reading." },
	{ "manifests", (PyCFunction)layers_manifests, METH_NOARGS,
	  "An image's manifests: (digest, platform, layers)." },
	{ "manifest_root", (PyCFunction)layers_manifest_root, METH_O,
	  "The files of the root manifest i's layers make: (layer, index, size)." },
	{ "du", (PyCFunction)layers_du, METH_O,
	  "Entry i as du counts it: (code, stored, rule_id, rule_target)." },
	{ "file_facts", (PyCFunction)layers_file_facts, METH_NOARGS,
	  "(code object, offload only, kpack archives) of the file." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef artifact_getset[] = {
	{ "path", (getter)handle_path, NULL, "The name it was opened by.", NULL },
	{ "size", (getter)handle_size, NULL, "Its size in bytes.", NULL },
	{ "closed", (getter)handle_closed, NULL, "Whether it is closed.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};
/* ---- prune and the rest ---- */

static PyObject *mod_prune(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *names[] = { "src", "dest", "keep", "drop", "exact", "allow_empty",
				 "keep_layout", "compress", "ccob_version",
				 "compression_level", "threads", "ccob_max_size",
				 "ccob_max_ratio", NULL };
	PyObject *in = NULL, *out = NULL;
	const char *keep = NULL, *drop = NULL;
	int exact = 0, allow_empty = 0, keep_layout = 0, compress = 0, level = 0, rc;
	unsigned ccob_version = 0, threads = 0;
	unsigned long long max_size = 0, max_ratio = 0;
	struct offcode_prune_options o;
	struct offcode_prune_result res;
	offcode_error *err = NULL;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|zzpppiO&iO&O&O&", names,
					 PyUnicode_FSConverter, &in,
					 PyUnicode_FSConverter, &out, &keep, &drop,
					 &exact, &allow_empty, &keep_layout, &compress,
					 convert_uint_arg, &ccob_version, &level,
					 convert_uint_arg, &threads, convert_u64_arg, &max_size,
					 convert_u64_arg, &max_ratio)) {
		Py_XDECREF(in);
		return NULL;
	}
	if (compress < OFFCODE_COMPRESS_NONE || compress > OFFCODE_COMPRESS_ZLIB) {
		Py_DECREF(in);
		Py_DECREF(out);
		PyErr_SetString(PyExc_ValueError, "no such compression");
		return NULL;
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.keep = keep;
	o.drop = drop;
	o.exact = exact;
	o.allow_empty = allow_empty;
	o.keep_layout = keep_layout;
	o.compress = (enum offcode_compress)compress;
	o.ccob_version = ccob_version;
	o.compression_level = level;
	o.threads = threads;
	o.ccob_max_size = max_size;
	o.ccob_max_ratio = max_ratio;
	memset(&res, 0, sizeof(res));
	res.size = sizeof(res);
	Py_BEGIN_ALLOW_THREADS
	rc = offcode_prune(PyBytes_AS_STRING(in), PyBytes_AS_STRING(out), &o, &res, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(in);
	Py_DECREF(out);
	if (rc) {
		errors_raise(rc, err);
		offcode_error_free(err);
		return NULL;
	}
	return Py_BuildValue("(KKnnO)", (unsigned long long)res.size_before,
			     (unsigned long long)res.size_after,
			     (Py_ssize_t)res.entries_kept, (Py_ssize_t)res.entries_dropped,
			     res.changed ? Py_True : Py_False);
}

static PyObject *mod_target_id_compatible(PyObject *mod, PyObject *args)
{
	const char *target, *request;

	(void)mod;
	if (!PyArg_ParseTuple(args, "ss", &target, &request))
		return NULL;
	return PyBool_FromLong(offcode_target_id_compatible(target, request));
}

static PyObject *mod_version(PyObject *mod, PyObject *unused)
{
	(void)mod;
	(void)unused;
	return PyUnicode_FromString(offcode_version());
}

static PyMethodDef module_methods[] = {
	{ "open_path", open_path, METH_VARARGS, "Open a file by its path." },
	{ "open_fd", open_fd, METH_VARARGS, "Open a file descriptor." },
	{ "open_memory", open_memory, METH_VARARGS, "Open bytes in memory." },
	{ "open_stream", open_stream, METH_VARARGS,
	  "Open a package or an image by its path, its files walked later." },
	{ "walk", walk_run, METH_VARARGS,
	  "The streaming walk: visit(node) for each node of a file, as it comes." },
	{ "path_kind", open_path_kind, METH_O,
	  "What a path names: image, deb, wheel, conda, or None." },
	{ "prune", (PyCFunction)(void (*)(void))mod_prune, METH_VARARGS | METH_KEYWORDS,
	  "offcode_prune." },
	{ "target_id_compatible", mod_target_id_compatible, METH_VARARGS,
	  "Whether a loader asked for request takes code built for target." },
	{ "version", mod_version, METH_NOARGS, "liboffcode's version." },
	{ "code_kernels", kernels_of_code, METH_O,
	  "The kernels of a code object in a buffer, as Artifact.kernels gives them, or None." },
	{ "check_stdout", source_check_stdout, METH_O,
	  "Raise the library's record when standard output writes to path's file." },
	{ "open_split_path", split_open_path, METH_VARARGS,
	  "Open a kpack-split binary by its path (None: not one)." },
	{ "open_split_memory", split_open_memory, METH_VARARGS,
	  "Open a kpack-split binary in memory, named (None: not one)." },
	{ "split_image_kind", split_image_kind, METH_O,
	  "A code object's image kind, from its first bytes." },
	{ "split_code_for", split_code_for, METH_VARARGS,
	  "(whether code is an AMDGPU code object for target, what it is)." },
	{ "__getattr__", errors_getattr, METH_O,
	  "The error classes and ErrorRecord, made when first named." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "offcode._offcode",
	"liboffcode, bound (offcode/__init__.py is the interface).", -1,
	module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__offcode(void)
{
	PyObject *m = PyModule_Create(&module);

	if (!m)
		return NULL;
	/* A file cut short while the library reads its map (by a visitor,
	 * another process) is ChangedError, not a process dead of SIGBUS:
	 * the handler is the library's, installed once, any other SIGBUS
	 * passed on to the one before it (faulthandler's, when enabled
	 * first; else the default). */
	if (offcode_catch_sigbus() != OFFCODE_OK) {
		PyErr_SetFromErrno(PyExc_OSError);
		goto fail;
	}
	handle_type.tp_methods = artifact_methods;
	handle_type.tp_getset = artifact_getset;
	if (PyType_Ready(&handle_type) < 0 || PyType_Ready(listing_entry_type()) < 0 ||
	    container_ready() < 0 || PyType_Ready(&source_type) < 0 ||
	    PyType_Ready(walk_node_type()) < 0 ||
	    errors_add(m) < 0 ||
	    PyModule_AddObjectRef(m, "Artifact", (PyObject *)&handle_type) < 0 ||
	    PyModule_AddObjectRef(m, "Entry", (PyObject *)listing_entry_type()) < 0 ||
	    PyModule_AddObjectRef(m, "Container", (PyObject *)container_type_of()) < 0 ||
	    PyModule_AddObjectRef(m, "Source", (PyObject *)&source_type) < 0 ||
	    PyModule_AddObjectRef(m, "Node", (PyObject *)walk_node_type()) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
