/* listing: an artefact's inputs and entries handed to Python (listing.h;
 * its containers are container.c's).
 *
 * An entry is an object of the type made here (offcode.Entry is its
 * subclass), whose fields are read from the library's record when they
 * are asked for: a listing makes one object per entry and nothing per
 * field (a tuple of fourteen values and the objects in it for each entry,
 * made up front, cost a listing of librocsparse more than `offload ls`
 * takes).  An artefact's entry reads the record itself, which outlives
 * close() (offcode_close_file): the artefact it holds is freed with the
 * last object that holds it.  A record that goes sooner, a walk's or that
 * of a package's file handed to walk_layer's function, has its texts
 * copied into the entry when it is made, so that they read the same
 * after, as its numbers do. */
#define _GNU_SOURCE	/* memmem */
#include "listing.h"

#include <stddef.h>
#include <string.h>

#include <structmember.h>

#include "code.h"
#include "container.h"
#include "convert.h"
#include "handle.h"

static int entry_field(const void *e, size_t i, struct offcode_field *f)
{
	return offcode_entry_field(e, i, f);
}

/* inputs(): a list of tuples, which offcode/__init__.py describes (Input);
 * an input is named by its index in it. */
PyObject *listing_inputs(Artifact *self, PyObject *unused)
{
	PyObject *inputs = NULL;
	const offcode_artifact *a;
	size_t ni;

	(void)unused;
	if (handle_lock(self) < 0)
		return NULL;
	a = self->a;
	ni = offcode_input_count(a);
	if (!(inputs = PyList_New((Py_ssize_t)ni)))
		goto out;
	/* (an input's parent is most often the one before it had: a search
	 * for each of an archive's members was quadratic, 47 s for 200,000) */
	const offcode_input *last_parent = NULL;
	Py_ssize_t last_p = -1;

	for (size_t i = 0; i < ni; i++) {
		const offcode_input *in = offcode_input_at(a, i);
		const offcode_input *parent = offcode_input_parent(in);
		Py_ssize_t p = -1;
		size_t len = 0;
		const char *name = offcode_input_name(in, &len);
		unsigned sm = 0;
		bool cubin = offcode_input_cubin_arch(in, &sm);
		PyObject *t;

		if (parent && parent == last_parent)
			p = last_p;
		for (size_t k = 0; parent && p < 0 && k < i; k++)
			if (offcode_input_at(a, k) == parent)
				p = (Py_ssize_t)k;
		last_parent = parent;
		last_p = p;
		t = Py_BuildValue("(NsKKInN)", convert_bytes_or_none(name, len),
				  offcode_input_format(in),
				  (unsigned long long)offcode_input_offset(in),
				  (unsigned long long)offcode_input_size(in),
				  offcode_input_depth(in), p, convert_u64_if(cubin, sm));
		if (!t) {
			Py_CLEAR(inputs);
			goto out;
		}
		PyList_SET_ITEM(inputs, (Py_ssize_t)i, t);
	}
out:
	handle_unlock(self);
	return inputs;
}

/* ---- entries ---- */

/* The texts an entry copies out of its record, in the order of the
 * offcode_entry_* calls that give them. */
enum entry_text {
	TEXT_ID, TEXT_OFFLOAD_KIND, TEXT_TRIPLE, TEXT_ARCH, TEXT_PROCESSOR,
	TEXT_FEATURES, TEXT_URI, TEXTS
};

typedef struct {
	PyObject_VAR_HEAD
	Artifact *handle;	/* the artefact it is entry i of */
	Py_ssize_t i;
	PyObject *container;	/* the offcode.Container it is in */
	PyObject *fields;	/* its kind's own fields, made when first read */
	PyObject *image_kind;	/* read when first asked for, then kept */
	/* The URI's part before its '#' (file://PATH), as str: the same
	 * object for the entries of one file, whose URIs differ after it
	 * alone (the texts copied are most of a listing's memory, and a
	 * page first touched costs more than the copy). */
	PyObject *uri_file;
	/* Its ID and target ID as str (None for none), the texts most read:
	 * one object for the entries at one place of their containers that
	 * name the same (a library's bundles list the same targets in the
	 * same order), not one made at each read. */
	PyObject *id_str, *arch_str;
	/* A walk's record, during its visit: image_kind read from it when
	 * first asked for (it reads code: not made unless asked). */
	const offcode_entry *live;
	/* The record its texts are read from, the artefact's, which the
	 * handle keeps while the entry holds it; NULL: they are copied
	 * (bytes, text) */
	const offcode_entry *rec;
	uint64_t size, offset;
	unsigned index;
	bool has_offset, compressed;
	/* each text's place in bytes and its length; at NO_TEXT: none (NULL);
	 * TEXT_URI's is the part from its '#' when uri_file is set */
	struct { uint32_t at, len; } text[TEXTS];
	char bytes[];		/* the texts (one inside another is not copied
				 * again: the triple and arch of a bundle's ID) */
} Entry;

#define NO_TEXT UINT32_MAX

static PyTypeObject entry_type;

/* What can be in a cycle with it, alone: its container and its fields
 * (the artefact's handle and the strs are not the collector's; a visit
 * to each, twice over each new entry at the collector's next pass, was a
 * third of that pass). */
static int entry_traverse(Entry *self, visitproc visit, void *arg)
{
	Py_VISIT(self->container);
	Py_VISIT(self->fields);
	return 0;
}

static int entry_clear(Entry *self)
{
	Py_CLEAR(self->handle);
	Py_CLEAR(self->container);
	Py_CLEAR(self->fields);
	Py_CLEAR(self->image_kind);
	Py_CLEAR(self->uri_file);
	Py_CLEAR(self->id_str);
	Py_CLEAR(self->arch_str);
	return 0;
}

static void entry_dealloc(Entry *self)
{
	PyObject_GC_UnTrack(self);
	entry_clear(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Text t of record e (NULL: none), its length in *len. */
static const char *record_text(const offcode_entry *e, enum entry_text t, size_t *len)
{
	const char *s = NULL;

	switch (t) {
	case TEXT_ID:
		return offcode_entry_id(e, len);
	case TEXT_OFFLOAD_KIND:
		return offcode_entry_offload_kind(e, len);
	case TEXT_TRIPLE:
		return offcode_entry_triple(e, len);
	case TEXT_ARCH:
		return offcode_entry_target_id(e, len);
	case TEXT_PROCESSOR:
		s = offcode_entry_processor(e);
		break;
	case TEXT_FEATURES:
		s = offcode_entry_features(e);
		break;
	case TEXT_URI:
		s = offcode_entry_uri(e);
		break;
	case TEXTS:
		break;
	}
	*len = s ? strlen(s) : 0;
	return s;
}

static const char *entry_text(const Entry *self, enum entry_text t, size_t *len)
{
	if (self->rec)
		return record_text(self->rec, t, len);
	if (self->text[t].at == NO_TEXT)
		return NULL;
	*len = self->text[t].len;
	return self->bytes + self->text[t].at;
}

static PyObject *get_id_bytes(Entry *self, void *unused)
{
	size_t len = 0;
	const char *s = entry_text(self, TEXT_ID, &len);

	(void)unused;
	return convert_bytes_or_none(s, len);
}

static bool ascii(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

/* The texts read as ls --json writes them (file_text): closure is the
 * enum entry_text.  processor, features and uri are ours, not the file's:
 * UTF-8, or surrogateescape where a path in the URI is not. */
static PyObject *get_text(Entry *self, void *closure)
{
	enum entry_text t = (enum entry_text)(intptr_t)closure;
	size_t len = 0;
	const char *s = entry_text(self, t, &len);

	PyObject *ours, *uri;

	switch (t) {
	case TEXT_ID:
		return Py_NewRef(self->id_str);
	case TEXT_ARCH:
		return Py_NewRef(self->arch_str);
	case TEXT_OFFLOAD_KIND:
	case TEXT_TRIPLE:
		return convert_file_text(s, len);
	case TEXT_URI:
	case TEXT_PROCESSOR:
	case TEXT_FEATURES:
	case TEXTS:
		break;
	}
	if (!s)
		Py_RETURN_NONE;
	if (t == TEXT_URI && self->uri_file && PyUnicode_IS_ASCII(self->uri_file) &&
	    ascii(s, len)) {
		/* (the usual URI: made at once, not decoded and joined) */
		Py_ssize_t head = PyUnicode_GET_LENGTH(self->uri_file);

		if (!(uri = PyUnicode_New(head + (Py_ssize_t)len, 127)))
			return NULL;
		memcpy(PyUnicode_1BYTE_DATA(uri), PyUnicode_1BYTE_DATA(self->uri_file),
		       (size_t)head);
		memcpy(PyUnicode_1BYTE_DATA(uri) + head, s, len);
		return uri;
	}
	ours = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "surrogateescape");
	if (!ours || t != TEXT_URI || !self->uri_file)
		return ours;
	uri = PyUnicode_Concat(self->uri_file, ours);
	Py_DECREF(ours);
	return uri;
}

static PyObject *get_index(Entry *self, void *unused)
{
	(void)unused;
	return PyLong_FromUnsignedLong(self->index);
}

static PyObject *get_size(Entry *self, void *unused)
{
	(void)unused;
	return PyLong_FromUnsignedLongLong(self->size);
}

static PyObject *get_offset(Entry *self, void *unused)
{
	(void)unused;
	return convert_u64_if(self->has_offset, self->offset);
}

static PyObject *get_compressed(Entry *self, void *unused)
{
	(void)unused;
	return PyBool_FromLong(self->compressed);
}

/* An entry of offcode.walk() has no artefact: what reads its code through
 * one says so, rather than failing on None. */
static PyObject *get_handle(Entry *self, void *unused)
{
	(void)unused;
	if (!self->handle) {
		PyErr_SetString(PyExc_ValueError, "an entry of offcode.walk() has no "
				"artefact: its code is node.code, read during its visit "
				"(walk(code=True))");
		return NULL;
	}
	return Py_NewRef((PyObject *)self->handle);
}

static PyObject *get_i(Entry *self, void *unused)
{
	(void)unused;
	return PyLong_FromSsize_t(self->i);
}

/* Made when first read, from the record (NVIDIA's headers), or with a
 * copied entry when it is made; an empty dict for the rest. */
static PyObject *get_fields(Entry *self, void *unused)
{
	(void)unused;
	if (!self->fields && self->rec && offcode_entry_field_count(self->rec) &&
	    !(self->fields = convert_fields(offcode_entry_field_count(self->rec), entry_field,
					    self->rec)))
		return NULL;
	if (!self->fields && !(self->fields = PyDict_New()))
		return NULL;
	return Py_NewRef(self->fields);
}

/* Read from the code's first bytes the first time (the artefact open:
 * ValueError once it is closed, as reading its code does). */
static PyObject *get_image_kind(Entry *self, void *unused)
{
	(void)unused;
	if (!self->image_kind && !self->handle) {
		if (!self->live)
			Py_RETURN_NONE;
		self->image_kind = convert_str_or_none(offcode_entry_image_kind(self->live));
		return Py_XNewRef(self->image_kind);
	}
	if (!self->image_kind &&
	    !(self->image_kind = code_image_kind_of(self->handle, self->i)))
		return NULL;
	return Py_NewRef(self->image_kind);
}

#define TEXT(name, t, doc) { name, (getter)get_text, NULL, doc, (void *)(intptr_t)(t) }

static PyGetSetDef entry_getset[] = {
	{ "id_bytes", (getter)get_id_bytes, NULL, "id, the file's bytes.", NULL },
	TEXT("offload_kind", TEXT_OFFLOAD_KIND, "\"hipv4\", \"openmp\", \"cuda\", \"host\"... or None."),
	TEXT("triple", TEXT_TRIPLE, "\"amdgcn-amd-amdhsa\", \"nvptx64-nvidia-cuda\"... or None."),
	TEXT("processor", TEXT_PROCESSOR, "The target ID's processor (\"gfx90a\"), or None."),
	TEXT("features", TEXT_FEATURES, "The target ID's features (\"xnack+\"), or None."),
	TEXT("uri", TEXT_URI, "file://PATH#offset=N&size=N where its bytes lie as they are "
	     "(the path percent-encoded), or None."),
	{ "index", (getter)get_index, NULL, "Its index in its container.", NULL },
	{ "size", (getter)get_size, NULL, "Its size as stored.", NULL },
	{ "offset", (getter)get_offset, NULL, "Where its bytes lie in the file, or None.", NULL },
	{ "compressed", (getter)get_compressed, NULL, "Whether it is stored compressed.", NULL },
	{ "fields", (getter)get_fields, NULL, "Its kind's own fields, as ls --json nests them.", NULL },
	{ "image_kind", (getter)get_image_kind, NULL,
	  "\"elf\", \"bitcode\", \"cubin\", \"fatbin\", \"ptx\", \"spirv\" or None, "
	  "read from its code's first bytes when first asked for.", NULL },
	{ "_h", (getter)get_handle, NULL, "The artefact (_offcode.Artifact).", NULL },
	{ "_i", (getter)get_i, NULL, "Its index among the artefact's entries.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

/* The objects it holds read as members: Python 3.11 reads a member of a
 * slot-like type in place (LOAD_ATTR_SLOT) where a getter is a call, a
 * third of reading a listing's IDs and target IDs (issue 37). */
static PyMemberDef entry_members[] = {
	{ "id", T_OBJECT_EX, offsetof(Entry, id_str), READONLY,
	  "Its bundle ID or kpack TOC key (None for kinds that name none)." },
	{ "arch", T_OBJECT_EX, offsetof(Entry, arch_str), READONLY,
	  "The target ID (\"gfx90a:xnack+\") or NVIDIA arch (\"sm_80\"), or None." },
	{ "container", T_OBJECT_EX, offsetof(Entry, container), READONLY,
	  "The container it is in." },
	{ NULL, 0, 0, 0, NULL },
};

/* An artefact's entries are made when asked for, so one entry may be two
 * objects: equal, and hashed alike, when they are entry i of one
 * artefact (a walk's, of none, only to itself). */
static PyObject *entry_richcompare(PyObject *a, PyObject *b, int op)
{
	const Entry *x = (const Entry *)a, *y = (const Entry *)b;
	bool same;

	if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &entry_type))
		Py_RETURN_NOTIMPLEMENTED;
	same = x == y || (x->handle && x->handle == y->handle && x->i == y->i);
	return PyBool_FromLong(same == (op == Py_EQ));
}

static Py_hash_t entry_hash(PyObject *o)
{
	const Entry *self = (const Entry *)o;
	/* (the handle's address turned as object.__hash__ turns one: its
	 * low bits are alignment's) */
	uintptr_t p = (uintptr_t)self->handle;
	Py_hash_t h;

	if (!self->handle)
		return PyBaseObject_Type.tp_hash(o);
	h = (Py_hash_t)((p >> 4 | p << (8 * sizeof(p) - 4)) ^ (size_t)self->i * 1000003u);
	return h == -1 ? -2 : h;
}

static PyTypeObject entry_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "offcode._offcode.Entry",
	.tp_basicsize = offsetof(Entry, bytes),
	.tp_itemsize = 1,
	.tp_dealloc = (destructor)entry_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "One code object of an artefact (made by Artifact.entries()).",
	.tp_traverse = (traverseproc)entry_traverse,
	.tp_clear = (inquiry)entry_clear,
	.tp_getset = entry_getset,
	.tp_members = entry_members,
	.tp_richcompare = entry_richcompare,
	.tp_hash = entry_hash,
};

PyTypeObject *listing_entry_type(void)
{
	return &entry_type;
}

/* The file:// part of the URIs of the entries made so far: the last one
 * seen, as its bytes (a copy: a walk's records go after their visit) and
 * as str. */
struct uri_file {
	char *bytes;
	size_t len;
	PyObject *str;
};

/* uri's part before its '#' as the str shared with the entries before
 * (a new one when it differs), *rest the part from the '#'; NULL with an
 * exception, or with none when the URI has no '#' (copied whole). */
static PyObject *uri_file_of(struct uri_file *last, const char *uri, const char **rest)
{
	const char *hash = strchr(uri, '#');
	size_t len;

	if (!hash)
		return NULL;
	len = (size_t)(hash - uri);
	if (!last->str || last->len != len || memcmp(last->bytes, uri, len)) {
		PyObject *str = PyUnicode_DecodeUTF8(uri, (Py_ssize_t)len, "surrogateescape");
		char *copy;

		if (!str)
			return NULL;
		if (!(copy = PyMem_Malloc(len ? len : 1))) {
			Py_DECREF(str);
			return PyErr_NoMemory();
		}
		memcpy(copy, uri, len);
		PyMem_Free(last->bytes);
		Py_XSETREF(last->str, str);
		last->bytes = copy;
		last->len = len;
	}
	*rest = hash;
	return last->str;
}

static void uri_file_free(struct uri_file *last)
{
	PyMem_Free(last->bytes);
	Py_XDECREF(last->str);
}

/* Where text t lies inside text u, or NULL: at its usual places (a
 * bundle ID starts with its offload kind, then a '-' and its triple, and
 * ends with its target ID, which starts with its processor and ends with
 * its features), or with anywhere, anywhere in u.  memmem's setup, at each
 * of twenty pairs an entry, was a tenth of a listing's Python time (issue
 * 37). */
static const char *text_inside(const char *u, size_t ulen, const char *t, size_t tlen,
			       bool anywhere)
{
	const char *dash;

	if (tlen > ulen)
		return NULL;
	if (!memcmp(u, t, tlen))
		return u;
	if (!memcmp(u + ulen - tlen, t, tlen))
		return u + ulen - tlen;
	if (!anywhere)
		return NULL;
	dash = memchr(u, '-', ulen);
	if (dash && (size_t)(u + ulen - dash - 1) >= tlen && !memcmp(dash + 1, t, tlen))
		return dash + 1;
	return memmem(u, ulen, t, tlen);
}

/* The str of an entry's text (as convert_file_text makes it) that an
 * entry before it at the same place of its container had (*seen), or a
 * new one, kept there for the next. */
struct seen_text {
	char *bytes;
	size_t len;
	PyObject *str;
};

enum { SEEN_PLACES = 64 };	/* places told apart; the rest share */

struct seen {
	struct seen_text id[SEEN_PLACES], arch[SEEN_PLACES];
};

static PyObject *seen_text_of(struct seen_text *seen, const char *s, size_t len)
{
	PyObject *str;
	char *copy;

	if (!s)
		Py_RETURN_NONE;
	if (seen->str && seen->len == len && !memcmp(seen->bytes, s, len))
		return Py_NewRef(seen->str);
	if (!(str = convert_file_text(s, len)))
		return NULL;
	if (!(copy = PyMem_Malloc(len ? len : 1))) {
		Py_DECREF(str);
		return PyErr_NoMemory();
	}
	memcpy(copy, s, len);
	PyMem_Free(seen->bytes);
	seen->bytes = copy;
	seen->len = len;
	Py_XSETREF(seen->str, Py_NewRef(str));
	return str;
}

static void seen_free(struct seen *seen)
{
	for (int k = 0; k < SEEN_PLACES; k++) {
		PyMem_Free(seen->id[k].bytes);
		Py_XDECREF(seen->id[k].str);
		PyMem_Free(seen->arch[k].bytes);
		Py_XDECREF(seen->arch[k].str);
	}
}

/* The texts each text may lie inside (before it; -1: none): a bundle ID
 * holds its kind, triple and target ID, a target ID its processor and
 * features (tried in the ID too, where there is no target ID). */
static const int holders[TEXTS][2] = {
	[TEXT_ID] = { -1, -1 },
	[TEXT_OFFLOAD_KIND] = { TEXT_ID, -1 },
	[TEXT_TRIPLE] = { TEXT_ID, -1 },
	[TEXT_ARCH] = { TEXT_ID, -1 },
	[TEXT_PROCESSOR] = { TEXT_ARCH, TEXT_ID },
	[TEXT_FEATURES] = { TEXT_ARCH, TEXT_ID },
	[TEXT_URI] = { -1, -1 },
};

/* What entries made one after another share: the str of their URIs'
 * file:// part, of their IDs and target IDs. */
struct listing_texts {
	struct uri_file last;
	struct seen seen;
};

/* An object of cls with room bytes for texts, entry i of the artefact
 * (self; NULL: a walk's, of no artefact), record e, in container, at place
 * k of it, whose ID and target ID are id and arch: its numbers, ID and
 * target ID set; NULL with an exception. */
static Entry *entry_start(PyTypeObject *cls, Artifact *self, size_t i, const offcode_entry *e,
			  PyObject *container, size_t k, struct seen *seen, size_t room,
			  const char *id, size_t id_len, const char *arch, size_t arch_len)
{
	Entry *o = (Entry *)cls->tp_alloc(cls, (Py_ssize_t)room);

	if (!o)
		return NULL;
	o->handle = (Artifact *)Py_XNewRef((PyObject *)self);
	o->i = (Py_ssize_t)i;
	o->container = Py_NewRef(container);
	o->id_str = seen_text_of(&seen->id[k % SEEN_PLACES], id, id_len);
	o->arch_str = seen_text_of(&seen->arch[k % SEEN_PLACES], arch, arch_len);
	if (!o->id_str || !o->arch_str) {
		Py_DECREF(o);
		return NULL;
	}
	o->index = offcode_entry_index(e);
	o->size = offcode_entry_size(e);
	o->has_offset = offcode_entry_offset(e, &o->offset);
	o->compressed = offcode_entry_compressed(e);
	return o;
}

/* entry_start's, its texts and fields read from e when asked for. */
static PyObject *entry_of_record(PyTypeObject *cls, Artifact *self, size_t i,
				 const offcode_entry *e, PyObject *container, size_t k,
				 struct listing_texts *shared)
{
	size_t id_len = 0, arch_len = 0;
	const char *id = offcode_entry_id(e, &id_len);
	const char *arch = offcode_entry_target_id(e, &arch_len);
	Entry *o = entry_start(cls, self, i, e, container, k, &shared->seen, 0, id, id_len,
			       arch, arch_len);

	if (!o)
		return NULL;
	o->rec = e;
	for (int t = 0; t < TEXTS; t++)
		o->text[t].at = NO_TEXT;
	return (PyObject *)o;
}

/* entry_start's, its texts and fields copied out of e. */
static PyObject *entry_copied(PyTypeObject *cls, Artifact *self, size_t i,
			      const offcode_entry *e, PyObject *container, size_t k,
			      struct listing_texts *shared)
{
	const char *texts[TEXTS];
	size_t lens[TEXTS] = { 0 }, skip[TEXTS] = { 0 }, room = 0;
	int in[TEXTS];
	PyObject *uri_file = NULL;
	Entry *o;
	char *at;

	texts[TEXT_ID] = offcode_entry_id(e, &lens[TEXT_ID]);
	texts[TEXT_OFFLOAD_KIND] = offcode_entry_offload_kind(e, &lens[TEXT_OFFLOAD_KIND]);
	texts[TEXT_TRIPLE] = offcode_entry_triple(e, &lens[TEXT_TRIPLE]);
	texts[TEXT_ARCH] = offcode_entry_target_id(e, &lens[TEXT_ARCH]);
	texts[TEXT_PROCESSOR] = offcode_entry_processor(e);
	texts[TEXT_FEATURES] = offcode_entry_features(e);
	texts[TEXT_URI] = offcode_entry_uri(e);
	if (texts[TEXT_URI] &&
	    !(uri_file = uri_file_of(&shared->last, texts[TEXT_URI], &texts[TEXT_URI])) &&
	    PyErr_Occurred())
		return NULL;
	for (int t = TEXT_PROCESSOR; t <= TEXT_URI; t++)
		lens[t] = texts[t] ? strlen(texts[t]) : 0;
	/* Each text copied, or found inside one before it (itself copied or
	 * inside another) that holds it as a bundle's texts do: where.  Only
	 * the ID is searched all through (for the triple): the rest lie at
	 * one end of the text that holds them. */
	for (int t = 0; t < TEXTS; t++) {
		in[t] = -1;
		for (int h = 0; texts[t] && h < 2 && in[t] < 0; h++) {
			int u = holders[t][h];
			const char *found;

			if (u < 0 || !texts[u] ||
			    !(found = text_inside(texts[u], lens[u], texts[t], lens[t],
						  u == TEXT_ID && t == TEXT_TRIPLE)))
				continue;
			in[t] = u;
			skip[t] = (size_t)(found - texts[u]);
		}
		if (texts[t] && in[t] < 0) {
			if (lens[t] >= NO_TEXT - room) {
				PyErr_NoMemory();
				return NULL;
			}
			room += lens[t];
		}
	}
	if (!(o = entry_start(cls, self, i, e, container, k, &shared->seen, room,
			      texts[TEXT_ID], lens[TEXT_ID], texts[TEXT_ARCH], lens[TEXT_ARCH])))
		return NULL;
	o->uri_file = Py_XNewRef(uri_file);
	at = o->bytes;
	for (int t = 0; t < TEXTS; t++) {
		o->text[t].len = (uint32_t)lens[t];
		if (!texts[t]) {
			o->text[t].at = NO_TEXT;
		} else if (in[t] >= 0) {
			o->text[t].at = o->text[in[t]].at + (uint32_t)skip[t];
		} else {
			memcpy(at, texts[t], lens[t]);
			o->text[t].at = (uint32_t)(at - o->bytes);
			at += lens[t];
		}
	}
	if (offcode_entry_field_count(e) &&
	    !(o->fields = convert_fields(offcode_entry_field_count(e), entry_field, e))) {
		Py_DECREF(o);
		return NULL;
	}
	return (PyObject *)o;
}

/* The texts self's entries share, made when first needed and freed with
 * it (NULL with an exception). */
static struct listing_texts *handle_texts(Artifact *self)
{
	if (!self->texts) {
		if (!(self->texts = listing_texts_new()))
			return NULL;
		self->free_texts = listing_texts_free;
	}
	return self->texts;
}

PyObject *listing_entry_new(Artifact *self, PyTypeObject *cls, PyObject *container,
			    Py_ssize_t i, Py_ssize_t k)
{
	struct listing_texts *shared;
	const offcode_entry *e;
	PyObject *o;

	/* (a package's file's, after walk_layer's call: its records gone) */
	if (!self->a) {
		PyErr_SetString(PyExc_ValueError, "the artefact is closed");
		return NULL;
	}
	if (!(e = handle_entry(self, i)) || !(shared = handle_texts(self)))
		return NULL;
	if (!self->borrowed)
		return entry_of_record(cls, self, (size_t)i, e, container, (size_t)k, shared);
	/* (walk_layer's file: its records go when the call returns, which
	 * waits for this copy: layers.c) */
	self->making++;
	o = entry_copied(cls, self, (size_t)i, e, container, (size_t)k, shared);
	self->making--;
	return o;
}

PyObject *listing_entry_range(Artifact *self, PyTypeObject *cls, PyObject *container,
			      Py_ssize_t first, Py_ssize_t count)
{
	PyObject *list = PyList_New(count);

	for (Py_ssize_t k = 0; list && k < count; k++) {
		PyObject *o = listing_entry_new(self, cls, container, first + k, k);

		if (!o)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, k, o);
	}
	return list;
}

PyObject *listing_entries(Artifact *self, PyObject *given)
{
	PyObject *list;

	if (!PyList_Check(given)) {
		PyErr_SetString(PyExc_TypeError, "entries() takes the list containers() made");
		return NULL;
	}
	if (!(list = PyList_New(0)))
		return NULL;
	for (Py_ssize_t c = 0; c < PyList_GET_SIZE(given); c++) {
		PyObject *of = container_entries(PyList_GET_ITEM(given, c), self);

		if (!of || PyList_SetSlice(list, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, of) < 0) {
			Py_XDECREF(of);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(of);
	}
	return list;
}

struct listing_texts *listing_texts_new(void)
{
	struct listing_texts *t = PyMem_Calloc(1, sizeof(*t));

	if (!t)
		PyErr_NoMemory();
	return t;
}

void listing_texts_free(struct listing_texts *t)
{
	if (!t)
		return;
	uri_file_free(&t->last);
	seen_free(&t->seen);
	PyMem_Free(t);
}

PyObject *listing_entry_of_record(PyTypeObject *cls, const offcode_entry *e,
				  PyObject *container, struct listing_texts *texts)
{
	Entry *o = (Entry *)entry_copied(cls, NULL, (size_t)-1, e, container,
					 offcode_entry_index(e), texts);

	if (o)
		o->live = e;
	return (PyObject *)o;
}

int listing_entry_let_go(PyObject *entry, bool kept)
{
	Entry *o = (Entry *)entry;

	if (kept && o->live && !o->image_kind &&
	    !(o->image_kind = convert_str_or_none(offcode_entry_image_kind(o->live))))
		return -1;
	o->live = NULL;
	return 0;
}
