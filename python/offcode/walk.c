/* walk: liboffcode's streaming walk for Python (walk.h).
 *
 * The library hands each node's records to the visitor for the visit
 * alone, and keeps nothing after (include/offcode.h, "the walk").  The
 * visitor gets a Node whose input, container, entry and section are
 * snapshots: objects of the listing's types (listing.c's Entry,
 * container.c's Container, the caller's Input and Section), every field
 * copied out, so that one kept reads the same after its visit and a
 * pointer into the library's memory is never held past it.  What is
 * copied costs, so a snapshot is made when it is first read, and at the
 * visit's end for a node the visitor kept (it has a reference besides
 * the walk's): a visitor that reads a member's name alone makes no
 * entry, and one that keeps nodes keeps them whole.  An entry's image
 * kind, which reads its code's first bytes, is read when asked for
 * during the visit, or at its end for an entry kept.  The texts the
 * entries have alike (IDs, target IDs, the URIs' file part) are one str
 * each, as an opened artefact's are (listing.c).  The inputs above
 * the node and its container are made once for the nodes under them
 * (the objects the entries' .container and .input share), and let go as
 * the walk leaves them.
 *
 * The code (node.code, walked with OFFCODE_WALK_CODE) is bytes, copied
 * when first read during the visit: a memoryview of the library's bytes
 * could be released at the visit's end, but a slice of it or a buffer
 * taken from it (numpy.frombuffer) holds the same pointer and cannot be
 * taken back, so it would read freed memory; a copy of one code object
 * costs little beside inflating it.  Read after its visit, unread, it
 * raises ValueError (the bytes are gone).
 *
 * A path or an fd is mapped as `offload ls` maps its files (an
 * offcode_source, walked with its hints), so that the pages of a code
 * object read into Python are let go of after its visit: a visitor
 * reading every code object of a 1.6 GB library peaks at 82 MB, not at
 * the file's size.
 *
 * The GIL is let go while the library walks and taken back for each
 * visit; an exception from the visitor (KeyboardInterrupt among them,
 * signals checked after each visit) stops the walk, which the library
 * then unwinds, freeing all it had. */
#include "walk.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include <structmember.h>

#include <offcode.h>

#include "container.h"
#include "convert.h"
#include "errors.h"
#include "listing.h"

struct walk;

typedef struct {
	PyObject_HEAD
	struct walk *w;			/* its walk, during its visit alone */
	const struct offcode_node *n;	/* the library's, as long as w */
	PyObject *kind;			/* interned: "input", "entry"... */
	unsigned depth;
	bool has_code;
	uint64_t code_size;
	/* made when first read, or at the visit's end for a node kept */
	PyObject *input, *container, *entry, *section, *code, *hash_error,
		 *decode_error;
} Node;

struct walk {
	PyObject *visit, *make_input;
	PyTypeObject *entry_cls, *container_cls, *section_cls;
	PyThreadState *ts;	/* the thread's state while the library runs */
	unsigned long thread;	/* the thread walking */
	/* The inputs open above the node, by depth: each record and its
	 * object (NULL until one is asked for). */
	const offcode_input **in_rec;
	PyObject **in_obj;
	size_t in_cap;
	/* The container of the nodes since the last container's node. */
	const offcode_container *c_rec;
	PyObject *c_obj;
	struct listing_texts *texts;	/* what the entries share */
	/* A path's or an fd's bytes, mapped as `offload ls` maps them: the
	 * pages of a code object read into Python let go of after its visit
	 * (the walk's own hints let go of what it reads itself). */
	offcode_source *src;
	const uint8_t *base;
	uint64_t len;
	PyObject *result;	/* visit's true result, which stopped it */
	int failed;		/* visit raised: its exception is the walk's */
};

static const char *const kind_texts[] = {
	[OFFCODE_NODE_INPUT] = "input",
	[OFFCODE_NODE_SECTION] = "section",
	[OFFCODE_NODE_CONTAINER] = "container",
	[OFFCODE_NODE_ENTRY] = "entry",
	[OFFCODE_NODE_CONTAINER_END] = "container_end",
};
#define KINDS (sizeof(kind_texts) / sizeof(kind_texts[0]))
static PyObject *kind_names[KINDS];	/* interned, made at the first walk */

static PyTypeObject node_type;

/* ---- the snapshots, made of the records under the node ---- */

static int in_room(struct walk *w, size_t depth)
{
	size_t cap = w->in_cap ? w->in_cap : 8;
	const offcode_input **rec;
	PyObject **obj;

	if (depth < w->in_cap)
		return 0;
	while (cap <= depth)
		cap *= 2;
	if (!(rec = PyMem_Realloc(w->in_rec, cap * sizeof(*rec)))) {
		PyErr_NoMemory();
		return -1;
	}
	w->in_rec = rec;
	if (!(obj = PyMem_Realloc(w->in_obj, cap * sizeof(*obj)))) {
		PyErr_NoMemory();
		return -1;
	}
	w->in_obj = obj;
	memset(rec + w->in_cap, 0, (cap - w->in_cap) * sizeof(*rec));
	memset(obj + w->in_cap, 0, (cap - w->in_cap) * sizeof(*obj));
	w->in_cap = cap;
	return 0;
}

/* The inputs at depth from and below let go (a new input is at from). */
static void in_forget(struct walk *w, size_t from)
{
	for (size_t k = from; k < w->in_cap; k++) {
		Py_CLEAR(w->in_obj[k]);
		w->in_rec[k] = NULL;
	}
}

static void container_forget(struct walk *w)
{
	Py_CLEAR(w->c_obj);
	w->c_rec = NULL;
}

/* Input in's object (borrowed: the walk holds it while in is open),
 * its parent's made first. */
static PyObject *input_of(struct walk *w, const offcode_input *in)
{
	unsigned d = offcode_input_depth(in);
	const offcode_input *p = offcode_input_parent(in);
	PyObject *parent = Py_None, *o;
	const char *name;
	size_t len = 0;

	if (in_room(w, d) < 0)
		return NULL;
	if (w->in_obj[d] && w->in_rec[d] == in)
		return w->in_obj[d];
	if (p && offcode_input_depth(p) < d && !(parent = input_of(w, p)))
		return NULL;
	name = offcode_input_name(in, &len);
	o = PyObject_CallFunction(w->make_input, "NsKKIO", convert_bytes_or_none(name, len),
				  offcode_input_format(in),
				  (unsigned long long)offcode_input_offset(in),
				  (unsigned long long)offcode_input_size(in), d, parent);
	if (!o)
		return NULL;
	Py_XSETREF(w->in_obj[d], o);
	w->in_rec[d] = in;
	return o;
}

/* Container c's object (borrowed), made once for its entries' nodes. */
static PyObject *container_of(struct walk *w, const offcode_container *c)
{
	PyObject *input, *o;

	if (w->c_obj && w->c_rec == c)
		return w->c_obj;
	if (!(input = input_of(w, offcode_container_input(c))))
		return NULL;
	if (!(o = container_of_record(w->container_cls, w->section_cls, c, input)))
		return NULL;
	Py_XSETREF(w->c_obj, o);
	w->c_rec = c;
	return o;
}

/* ---- the node ---- */

/* Whether the node's records may be read (its visit running, on the
 * thread walking: another could be let run while a snapshot is made, as
 * Python code is called, and read on past the visit's end): else
 * ValueError naming what was asked for, or RuntimeError. */
static bool live(Node *self, const char *what)
{
	if (self->n && self->w->thread == PyThread_get_thread_ident())
		return true;
	if (self->n)
		PyErr_Format(PyExc_RuntimeError, "node.%s read by a thread other than "
			     "the one walking, during its visit", what);
	else
		PyErr_Format(PyExc_ValueError, "node.%s was not read during its visit: a "
			     "walk's records are the library's until the visit returns", what);
	return false;
}

static PyObject *node_input(Node *self, void *unused)
{
	PyObject *o;

	(void)unused;
	if (!self->input) {
		if (!live(self, "input"))
			return NULL;
		if (!self->n->input)
			self->input = Py_NewRef(Py_None);
		else if ((o = input_of(self->w, self->n->input)))
			self->input = Py_NewRef(o);
		else
			return NULL;
	}
	return Py_NewRef(self->input);
}

static PyObject *node_container(Node *self, void *unused)
{
	PyObject *o;

	(void)unused;
	if (!self->container) {
		if (!live(self, "container"))
			return NULL;
		if (!self->n->container)
			self->container = Py_NewRef(Py_None);
		else if ((o = container_of(self->w, self->n->container)))
			self->container = Py_NewRef(o);
		else
			return NULL;
	}
	return Py_NewRef(self->container);
}

static PyObject *node_entry(Node *self, void *unused)
{
	PyObject *c;

	(void)unused;
	if (!self->entry) {
		if (!live(self, "entry"))
			return NULL;
		if (!self->n->entry || !self->n->container)
			self->entry = Py_NewRef(Py_None);
		else if (!(c = container_of(self->w, self->n->container)) ||
			 !(self->entry = listing_entry_of_record(self->w->entry_cls,
								 self->n->entry, c,
								 self->w->texts)))
			return NULL;
	}
	return Py_NewRef(self->entry);
}

/* A section's node: (index, name, kind), as a container's section is. */
static PyObject *node_section(Node *self, void *unused)
{
	const struct offcode_node *n = self->n;
	PyObject *values, *args;

	(void)unused;
	if (!self->section) {
		if (!live(self, "section"))
			return NULL;
		if (n->kind != OFFCODE_NODE_SECTION) {
			self->section = Py_NewRef(Py_None);
			return Py_NewRef(Py_None);
		}
		if (!(values = Py_BuildValue("(INN)", (unsigned)n->section_index,
					     convert_file_text(n->section_name ? n->section_name : "",
							       n->section_name_len),
					     convert_str_or_none(n->section_kind))))
			return NULL;
		args = PyTuple_Pack(1, values);
		Py_DECREF(values);
		self->section = args ? PyTuple_Type.tp_new(self->w->section_cls, args, NULL) : NULL;
		Py_XDECREF(args);
		if (!self->section)
			return NULL;
	}
	return Py_NewRef(self->section);
}

static PyObject *node_code(Node *self, void *unused)
{
	(void)unused;
	if (!self->code) {
		if (!live(self, "code"))
			return NULL;
		if (!self->n->code || self->n->code_size > PY_SSIZE_T_MAX)
			self->code = Py_NewRef(Py_None);
		else if (!(self->code = PyBytes_FromStringAndSize(self->n->code,
								  (Py_ssize_t)self->n->code_size)))
			return NULL;
	}
	return Py_NewRef(self->code);
}

static PyObject *node_code_size(Node *self, void *unused)
{
	(void)unused;
	return convert_u64_if(self->has_code, self->code_size);
}

/* An error record of the node's as an offcode.Error object, or None. */
static PyObject *error_of(PyObject **slot, const offcode_error *e)
{
	if (!*slot && !(*slot = e ? errors_object(e) : Py_NewRef(Py_None)))
		return NULL;
	return Py_NewRef(*slot);
}

static PyObject *node_hash_error(Node *self, void *unused)
{
	(void)unused;
	if (!self->hash_error && !live(self, "hash_error"))
		return NULL;
	return error_of(&self->hash_error, self->hash_error || !self->n->container ? NULL :
			offcode_container_hash_error(self->n->container));
}

static PyObject *node_decode_error(Node *self, void *unused)
{
	(void)unused;
	if (!self->decode_error && !live(self, "decode_error"))
		return NULL;
	return error_of(&self->decode_error, self->decode_error || !self->n->entry ? NULL :
			offcode_entry_decode_error(self->n->entry));
}

/* A node the visitor kept: everything made now, but the code unless it
 * has none (its bytes are read during the visit, or not at all). */
static int node_keep(Node *self)
{
	static PyObject *(*const get[])(Node *, void *) = {
		node_input, node_container, node_entry, node_section, node_hash_error,
		node_decode_error,
	};

	for (size_t k = 0; k < sizeof(get) / sizeof(get[0]); k++) {
		PyObject *o = get[k](self, NULL);

		if (!o)
			return -1;
		Py_DECREF(o);
	}
	if (!self->code && !self->n->code)
		self->code = Py_NewRef(Py_None);
	return 0;
}

/* The collector's: a visitor may make a cycle of a node (one set on its
 * container, whose class has a __dict__), which would leak whole. */
static int node_traverse(Node *self, visitproc visit, void *arg)
{
	Py_VISIT(self->input);
	Py_VISIT(self->container);
	Py_VISIT(self->entry);
	Py_VISIT(self->section);
	Py_VISIT(self->hash_error);
	Py_VISIT(self->decode_error);
	return 0;
}

static int node_clear(Node *self)
{
	Py_CLEAR(self->input);
	Py_CLEAR(self->container);
	Py_CLEAR(self->entry);
	Py_CLEAR(self->section);
	Py_CLEAR(self->code);
	Py_CLEAR(self->hash_error);
	Py_CLEAR(self->decode_error);
	return 0;
}

static void node_dealloc(Node *self)
{
	PyObject_GC_UnTrack(self);
	node_clear(self);
	Py_CLEAR(self->kind);
	PyObject_GC_Del(self);
}

static PyObject *node_repr(Node *self)
{
	return PyUnicode_FromFormat("<offcode.Node %U depth=%u>", self->kind, self->depth);
}

static PyGetSetDef node_getset[] = {
	{ "input", (getter)node_input, NULL,
	  "The input (file or archive member) the node is in, or is.", NULL },
	{ "container", (getter)node_container, NULL,
	  "A container's node (its end's: with what is known then), an entry's: "
	  "its container; else None.", NULL },
	{ "entry", (getter)node_entry, NULL, "An entry's node: the entry; else None.", NULL },
	{ "section", (getter)node_section, NULL,
	  "A section's node: (index, name, kind); else None.", NULL },
	{ "code", (getter)node_code, NULL,
	  "An entry's code as bytes, walked with code=True (None when the walk "
	  "has it not whole); read during the visit.", NULL },
	{ "code_size", (getter)node_code_size, NULL,
	  "The length of node.code, read at no cost, or None.", NULL },
	{ "hash_error", (getter)node_hash_error, NULL,
	  "A CCOB's bad hash (verify=True, at its container_end), an "
	  "offcode.BadHashError object; else None.", NULL },
	{ "decode_error", (getter)node_decode_error, NULL,
	  "Why an entry could not be decoded (code=True), an offcode.Error object; "
	  "else None.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMemberDef node_members[] = {
	{ "kind", T_OBJECT_EX, offsetof(Node, kind), READONLY,
	  "\"input\", \"section\", \"container\", \"entry\" or \"container_end\"." },
	{ "depth", T_UINT, offsetof(Node, depth), READONLY,
	  "0 for the file, one more for each archive member or record under it." },
	{ NULL, 0, 0, 0, NULL },
};

static PyTypeObject node_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offcode._offcode.Node",
	.tp_basicsize = sizeof(Node),
	.tp_dealloc = (destructor)node_dealloc,
	.tp_repr = (reprfunc)node_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "A node of offcode.walk(), handed to its visitor.",
	.tp_traverse = (traverseproc)node_traverse,
	.tp_clear = (inquiry)node_clear,
	.tp_getset = node_getset,
	.tp_members = node_members,
};

PyTypeObject *walk_node_type(void)
{
	return &node_type;
}

/* ---- the walk ---- */

/* The pages of n's code, copied into Python, let go of where they are
 * the file's (a mapped file's resident memory would grow to the file's
 * size as a visitor reads every code object: ls --kernels' does). */
static void let_go_of_code(struct walk *w, const struct offcode_node *n)
{
	const uint8_t *c = n->code;

	if (w->src && c >= w->base && (uint64_t)(c - w->base) <= w->len &&
	    n->code_size <= w->len - (uint64_t)(c - w->base))
		offcode_source_reading(w->src, (uint64_t)(c - w->base), n->code_size, false);
}

/* The visit over, its records about to go: a node the visitor kept (a
 * reference besides the walk's) made whole, and its entry, kept with it
 * or alone, given its image kind: 0, or -1 with an exception (the
 * visitor's own, when it raised, the one raised). */
static int visit_end(Node *node)
{
	bool kept = Py_REFCNT(node) > 1;
	PyObject *et, *ev, *tb;
	int rc = 0;

	PyErr_Fetch(&et, &ev, &tb);
	if (kept && node_keep(node) < 0)
		rc = -1;
	if (node->entry && node->entry != Py_None &&
	    listing_entry_let_go(node->entry, rc == 0 && (kept || Py_REFCNT(node->entry) > 1)) < 0)
		rc = -1;
	if (et) {
		PyErr_Clear();
		PyErr_Restore(et, ev, tb);
		rc = -1;
	}
	return rc;
}

static int visit_one(void *ctx, const struct offcode_node *n)
{
	struct walk *w = ctx;
	Node *node;
	PyObject *r = NULL;
	int stop = 0, t;

	PyEval_RestoreThread(w->ts);
	switch (n->kind) {
	case OFFCODE_NODE_INPUT:
		in_forget(w, n->input ? offcode_input_depth(n->input) : 0);
		container_forget(w);
		break;
	case OFFCODE_NODE_SECTION:
	case OFFCODE_NODE_CONTAINER:
	case OFFCODE_NODE_CONTAINER_END:
		container_forget(w);
		break;
	case OFFCODE_NODE_ENTRY:
		break;
	}
	if ((unsigned)n->kind >= KINDS) {
		PyErr_Format(PyExc_RuntimeError, "a node of a kind unknown here (%d)",
			     (int)n->kind);
	} else if ((node = PyObject_GC_New(Node, &node_type))) {
		memset((char *)node + sizeof(PyObject), 0, sizeof(*node) - sizeof(PyObject));
		node->w = w;
		node->n = n;
		node->kind = Py_NewRef(kind_names[n->kind]);
		node->depth = n->depth;
		node->has_code = n->code != NULL;
		node->code_size = n->code ? n->code_size : 0;
		PyObject_GC_Track(node);
		r = PyObject_CallOneArg(w->visit, (PyObject *)node);
		if (visit_end(node) < 0)
			Py_CLEAR(r);
		if (node->code && node->code != Py_None)
			let_go_of_code(w, n);
		node->w = NULL;
		node->n = NULL;
		Py_DECREF(node);
	}
	/* (a visitor of C, list.append, runs no bytecode that would see a
	 * signal: Ctrl-C is seen here) */
	if (r && PyErr_CheckSignals() < 0)
		Py_CLEAR(r);
	if (!r) {
		w->failed = 1;
		stop = 1;
	} else if ((t = PyObject_IsTrue(r)) != 0) {
		if (t < 0)
			w->failed = 1;
		else
			w->result = Py_NewRef(r);
		stop = 1;
	}
	Py_XDECREF(r);
	w->ts = PyEval_SaveThread();
	return stop;
}

/* The walk of a path, an fd (opened as `offload ls` opens its files, an
 * image refused by offcode_walk_path) or a buffer, the GIL let go. */
static int walk_source(struct walk *w, const char *path, int fd, const Py_buffer *view,
		       const char *name, struct offcode_walk_options *o, offcode_error **err)
{
	struct offcode_source_options so;
	const char *kind;
	int rc;

	if (view)
		return offcode_walk_memory(view->buf, (size_t)view->len, name, o, visit_one,
					   w, err);
	/* (a source's "-" is standard input, a path's a file of that name) */
	if (path && (!strcmp(path, "-") ||
		     ((kind = offcode_path_kind(path)) && !strcmp(kind, "image"))))
		return offcode_walk_path(path, o, visit_one, w, err);
	so = (struct offcode_source_options){ .size = sizeof(so),
					      .interrupted = o->interrupted };
	rc = path ? offcode_source_open_path_with(path, &so, &w->src, err)
		  : offcode_source_open_fd_with(fd, name, &so, &w->src, err);
	if (rc)
		return rc;
	w->base = offcode_source_bytes(w->src, &w->len);
	o->next_data = offcode_source_next_data;
	o->reading = offcode_source_reading;
	o->hint_ctx = w->src;
	rc = offcode_walk_memory(w->base, (size_t)w->len, path ? path : name, o, visit_one,
				 w, err);
	offcode_source_close(w->src);
	w->src = NULL;
	return rc;
}

static int kinds_made(void)
{
	for (size_t k = 0; k < KINDS; k++)
		if (!kind_names[k] && !(kind_names[k] = PyUnicode_InternFromString(kind_texts[k])))
			return -1;
	return 0;
}

PyObject *walk_run(PyObject *mod, PyObject *args)
{
	PyObject *source, *name_arg, *name = NULL, *path = NULL, *r = NULL;
	const char *how;
	int code = 0, verify = 0;
	unsigned long long max_size = 0, max_ratio = 0;
	struct walk w;
	struct offcode_walk_options o;
	offcode_error *err = NULL;
	Py_buffer view;
	int has_view = 0, fd = -1, rc;

	(void)mod;
	memset(&w, 0, sizeof(w));
	if (!PyArg_ParseTuple(args, "OsOppO&O&OO!O!O!O", &source, &how, &name_arg, &code, &verify,
			      convert_u64_arg, &max_size, convert_u64_arg, &max_ratio,
			      &w.visit, &PyType_Type, &w.entry_cls, &PyType_Type,
			      &w.container_cls, &PyType_Type, &w.section_cls, &w.make_input))
		return NULL;
	if (!PyType_IsSubtype(w.entry_cls, listing_entry_type()) ||
	    !PyType_IsSubtype(w.container_cls, container_type_of()) ||
	    !PyType_IsSubtype(w.section_cls, &PyTuple_Type)) {
		PyErr_SetString(PyExc_TypeError, "walk() makes subclasses of _offcode.Entry, "
				"_offcode.Container and tuple");
		return NULL;
	}
	if (!PyCallable_Check(w.visit) || !PyCallable_Check(w.make_input)) {
		PyErr_SetString(PyExc_TypeError, "walk() takes a callable visitor");
		return NULL;
	}
	if (kinds_made() < 0)
		return NULL;
	if (name_arg != Py_None && !PyUnicode_FSConverter(name_arg, &name))
		return NULL;
	w.thread = PyThread_get_thread_ident();
	if (!(w.texts = listing_texts_new()))
		goto out;
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	/* (a hash is checked as a CCOB is inflated) */
	o.flags = (code || verify ? OFFCODE_WALK_CODE : 0) | (verify ? OFFCODE_WALK_VERIFY : 0);
	o.ccob_max_size = max_size;
	o.ccob_max_ratio = max_ratio;
	/* (a pipe read whole before the walk: Ctrl-C while it is read) */
	o.interrupted = errors_interrupted;
	if (!strcmp(how, "path")) {
		if (!PyUnicode_FSConverter(source, &path))
			goto out;
	} else if (!strcmp(how, "fd")) {
		long l = PyLong_AsLong(source);

		if (l == -1 && PyErr_Occurred())
			goto out;
		if (l < 0 || l > INT_MAX) {
			PyErr_SetString(PyExc_ValueError, "walk(): no such file descriptor");
			goto out;
		}
		fd = (int)l;
	} else if (!strcmp(how, "memory")) {
		if (PyObject_GetBuffer(source, &view, PyBUF_SIMPLE) < 0)
			goto out;
		has_view = 1;
	} else {
		PyErr_Format(PyExc_ValueError, "walk(): no source kind '%s'", how);
		goto out;
	}
	w.ts = PyEval_SaveThread();
	rc = walk_source(&w, path ? PyBytes_AS_STRING(path) : NULL, fd,
			 has_view ? &view : NULL, name ? PyBytes_AS_STRING(name) : NULL, &o,
			 &err);
	PyEval_RestoreThread(w.ts);
	if (w.failed)
		;
	else if (w.result)
		r = Py_NewRef(w.result);
	else if (rc)
		errors_raise(rc, err);
	else
		r = Py_NewRef(Py_None);
out:
	offcode_error_free(err);
	in_forget(&w, 0);
	container_forget(&w);
	PyMem_Free(w.in_rec);
	PyMem_Free(w.in_obj);
	listing_texts_free(w.texts);
	Py_XDECREF(w.result);
	if (has_view)
		PyBuffer_Release(&view);
	Py_XDECREF(path);
	Py_XDECREF(name);
	return r;
}
