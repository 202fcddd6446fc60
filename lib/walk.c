/* walk: liboffcode's streaming walk (include/offcode.h, "the walk"): the
 * walk of the headers (ops/inspect.h) handed to the caller a node at a
 * time, as records of the same types as an artefact keeps (keep.c
 * fills both, artifact_keep_node), each given back after its visit: the
 * handle under it keeps the inputs open above the node, the one container
 * open and the one entry, and its arena is given back to where it was
 * when each was kept (artifact_release), so memory is what is open, not
 * what was walked: a library of 100,000 members, a CCOB of thousands of
 * code objects inflated one at a time (inspect_opts.stream), as `offload
 * ls` needs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_impl.h"
#include "keep.h"
#include "error.h"
#include "source.h"
#include "../ops/entry.h"
#include "../ops/inspect.h"
#include "../ops/inspect_ccob.h"
#include "../ops/inspect_names.h"
#include "../ops/kinds.h"
#include "../ops/image.h"
#include "../formats/fatbin_codec.h"

struct walker {
	struct keep k;
	offcode_walk_fn fn;
	void *ctx;
	bool code;		/* OFFCODE_WALK_CODE */
	/* OFFCODE_WALK_CCOB_LATER: the open CCOB's bytes as stored */
	bool ccob_later;
	const uint8_t *stored;
	uint64_t stored_len;
	/* Where the arena was before each kept input (by its index), and
	 * before the container open. */
	struct arena_mark *marks;
	size_t cap_marks;
	struct arena_mark container_mark;
	bool container_open;
	unsigned container_depth;
	int stopped;		/* fn's nonzero */
	/* The note of the map walked, when the bytes are one the library
	 * made (core/io_in): set, the file was cut short under the walk
	 * (offcode_catch_sigbus's handler put zeros where its pages were),
	 * and no node read from the zeros is handed over (a cut inside the
	 * last page read faults nowhere: the file's size says it at the
	 * end, io_in_cut_since). */
	const volatile bool *cut;
	bool cut_met;
	/* the caller's hints, for offcode_walk_memory */
	const struct offcode_walk_options *o;
};

static int call(struct walker *w, struct offcode_node *n)
{
	int rc;

	if (w->cut && *w->cut) {
		w->cut_met = true;
		return OFFCODE_CHANGED;
	}
	rc = w->fn(w->ctx, n);
	if (rc)
		w->stopped = rc;
	return rc;
}

/* The container open, after its entries: its record with all its
 * fields, as the last node said them (a streamed CCOB's update). */
static int close_container(struct walker *w)
{
	offcode_artifact *a = w->k.a;
	struct offcode_container *c = &a->containers[0];
	struct offcode_node n = { .size = sizeof(n),
				  .kind = OFFCODE_NODE_CONTAINER_END,
				  .depth = w->container_depth };
	int rc;

	w->container_open = false;
	if (artifact_refill_container(&w->k, c, &c->node) < 0)
		rc = -1;
	else {
		c->stored = w->stored;
		c->stored_len = w->stored_len;
		n.container = c;
		n.input = &a->inputs[c->input];
		rc = call(w, &n);
	}
	offcode_error_free(c->hash_error);
	c->hash_error = NULL;
	a->ncontainers = 0;
	artifact_release(a, w->container_mark);
	return rc;
}

/* An input at depth d comes: those at d and below it are done. */
static void pop_inputs(struct walker *w, unsigned d)
{
	offcode_artifact *a = w->k.a;
	size_t i = a->ninputs;

	while (i > 0 && a->inputs[i - 1].depth >= d)
		i--;
	if (i < a->ninputs) {
		input_free_late(a, i);
		artifact_release(a, w->marks[i]);
		a->ninputs = i;
	}
}

static int visit_input(struct walker *w, const struct inspect_node *n)
{
	offcode_artifact *a = w->k.a;
	struct offcode_node node = { .size = sizeof(node),
				     .kind = OFFCODE_NODE_INPUT,
				     .depth = n->depth };
	int rc;

	pop_inputs(w, n->depth);
	if (a->ninputs >= w->cap_marks) {
		size_t cap = w->cap_marks * 2 + 8;
		struct arena_mark *m = realloc(w->marks, cap * sizeof(*m));

		if (!m)
			return -1;
		w->marks = m;
		w->cap_marks = cap;
	}
	w->marks[a->ninputs] = artifact_mark(a);
	if (artifact_keep_node(&w->k, n) < 0)
		return -1;
	node.input = &a->inputs[a->ninputs - 1];
	/* (what it fills when asked for now goes in the arena above it) */
	a->visiting = node.input;
	rc = call(w, &node);
	a->visiting = NULL;
	return w->k.oom ? -1 : rc;
}

static int visit_section(struct walker *w, const struct inspect_node *n)
{
	offcode_artifact *a = w->k.a;
	const struct open_node *s;
	struct offcode_node node = { .size = sizeof(node),
				     .kind = OFFCODE_NODE_SECTION,
				     .depth = n->depth };
	int rc;

	if (artifact_keep_node(&w->k, n) < 0)
		return -1;
	s = &w->k.stack[n->depth];
	node.input = a->ninputs ? &a->inputs[a->ninputs - 1] : NULL;
	node.section_index = s->section_index;
	node.section_name = s->section_name;
	node.section_name_len = n->name_len;
	node.section_kind = s->section_kind;
	node.section_offset = s->section_offset;
	node.section_size = s->section_size;
	rc = call(w, &node);
	return w->k.oom ? -1 : rc;
}

static int visit_container(struct walker *w, const struct inspect_node *n)
{
	offcode_artifact *a = w->k.a;
	struct offcode_node node = { .size = sizeof(node),
				     .kind = OFFCODE_NODE_CONTAINER,
				     .depth = n->depth };
	int rc;

	w->container_mark = artifact_mark(a);
	a->ncontainers = 0;
	if (artifact_keep_node(&w->k, n) < 0)
		return -1;
	w->container_open = true;
	w->container_depth = n->depth;
	/* (a CCOB's bytes, to be inflated again by the caller) */
	w->stored = w->ccob_later && n->container == FATBIN_CCOB ? n->data
								  : NULL;
	w->stored_len = w->stored ? n->size : 0;
	a->containers[0].stored = w->stored;
	a->containers[0].stored_len = w->stored_len;
	node.container = &a->containers[0];
	node.input = &a->inputs[node.container->input];
	rc = call(w, &node);
	return w->k.oom ? -1 : rc;
}

static int visit_entry(struct walker *w, const struct inspect_node *n)
{
	offcode_artifact *a = w->k.a;
	struct arena_mark m = artifact_mark(a);
	struct offcode_node node = { .size = sizeof(node),
				     .kind = OFFCODE_NODE_ENTRY,
				     .depth = n->depth };
	struct offcode_entry *e;
	struct entry_bytes b;
	int rc = 0;

	a->nentries = 0;
	if (artifact_keep_node(&w->k, n) < 0)
		return -1;
	if (!a->nentries)	/* outside a container: none */
		return 0;
	node.entry = e = &a->entries[0];
	node.container = &a->containers[0];
	node.input = &a->inputs[node.container->input];
	/* Its code as offcode_entry_read gives it (the hash aside: a
	 * damaged CCOB's code is described too). */
	switch (w->code ? kinds_entry_bytes(n, INSPECT_HASH_UNCHECKED, &b)
			: ENTRY_ABSENT) {
	case ENTRY_WHOLE:
		node.code = b.data;
		node.code_size = b.size;
		break;
	case ENTRY_HEAD:	/* OFFCODE_WALK_CCOB_LATER */
		e->head = b.data;
		e->head_len = b.size < INSPECT_HEAD ? (size_t)b.size
							     : INSPECT_HEAD;
		break;
	case ENTRY_ABSENT:
	case ENTRY_UNDECODED:
	case ENTRY_DAMAGED:
		break;
	}
	a->in_entry = true;
	rc = call(w, &node);
	a->in_entry = false;
	if (w->k.oom)
		rc = -1;
	/* Its node goes: nothing is filled from it after its visit. */
	a->live_entry = NULL;
	a->entries[0].lazy = 0;
	offcode_error_free(a->entries[0].decode_error);
	a->entries[0].decode_error = NULL;
	a->nentries = 0;
	artifact_release(a, m);
	if (node.container->fields_for_entry) {
		/* (made in the arena given back: made again when asked) */
		struct offcode_container *c = &a->containers[0];

		c->fields = NULL;
		c->nfields = 0;
		c->fields_later = true;
		c->fields_for_entry = false;
	}
	return rc;
}

static int visit(void *ctx, const struct inspect_node *n)
{
	struct walker *w = ctx;

	if (n->update) {
		/* A streamed CCOB's hash, after its entries: said at its
		 * end. */
		if (w->container_open && n->depth == w->container_depth) {
			w->k.a->containers[0].node = *n;
			w->k.container_updated = true;
		}
		return 0;
	}
	if (n->depth >= w->k.depth_cap) {
		size_t cap = w->k.depth_cap * 2 + 8;
		struct open_node *s = realloc(w->k.stack, cap * sizeof(*s));

		if (!s)
			return -1;
		w->k.stack = s;
		w->k.depth_cap = cap;
	}
	if (w->container_open && n->depth <= w->container_depth) {
		int rc = close_container(w);

		if (rc)
			return rc;
	}
	switch (n->kind) {
	case INSPECT_INPUT:
		return visit_input(w, n);
	case INSPECT_SECTION:
		return visit_section(w, n);
	case INSPECT_CONTAINER:
		return visit_container(w, n);
	case INSPECT_ENTRY:
		return visit_entry(w, n);
	}
	return 0;
}

/* ---- the caller's hints, and a file's own ---- */

static uint64_t caller_next_data(const void *ctx, uint64_t off)
{
	const struct walker *w = ctx;

	return w->o->next_data(w->o->hint_ctx, off);
}

static void caller_reading(const void *ctx, uint64_t off, uint64_t len,
			   bool start)
{
	const struct walker *w = ctx;

	w->o->reading(w->o->hint_ctx, off, len, start);
}

static uint64_t file_next_data(const void *ctx, uint64_t off)
{
	const struct walker *w = ctx;

	return io_in_next_data(&w->k.a->in, off);
}

/* As `offload ls` reads a file: what the walk inflates read ahead, and
 * let go of after (sparse again, as the rest). */
static void file_reading(const void *ctx, uint64_t off, uint64_t len,
			 bool start)
{
	const struct walker *w = ctx;

	source_reading(&w->k.a->in, off, len, start);
}

/* The options, as far as the caller's version of the struct has them. */
static const struct offcode_walk_options *options(
	const struct offcode_walk_options *o, struct offcode_walk_options *buf)
{
	memset(buf, 0, sizeof(*buf));
	if (o)
		memcpy(buf, o, o->size < sizeof(*buf) ? o->size : sizeof(*buf));
	/* (a hook without the room for its context: none) */
	if (o && o->size < offsetof(struct offcode_walk_options,
				    interrupted_ctx) +
				   sizeof(o->interrupted_ctx))
		buf->interrupted = NULL;
	buf->size = sizeof(*buf);
	return buf;
}

/* Walk a's bytes (set by the caller) with o, handing nodes to fn. */
static int walk(offcode_artifact *a, const struct offcode_walk_options *o,
		offcode_walk_fn fn, void *ctx, offcode_error **err)
{
	struct walker w = { .k = { .a = a, .stream = true }, .fn = fn,
			    .ctx = ctx, .o = o,
			    .code = o->flags & OFFCODE_WALK_CODE };
	struct inspect_opts io = a->walk;
	struct err e;
	int rc;

	a->streaming = true;
	a->live_keep = &w.k;
	io.inflate = w.code;
	io.stream = w.code && !(o->flags & OFFCODE_WALK_CCOB_WHOLE);
	w.ccob_later = w.code && (o->flags & OFFCODE_WALK_CCOB_LATER);
	io.stream_ccob = w.ccob_later;
	io.accept_other = !(o->flags & OFFCODE_WALK_KNOWN);
	io.no_hash = !(o->flags & OFFCODE_WALK_VERIFY);
	io.ccob.progress = o->progress;
	io.ccob.progress_ctx = o->progress_ctx;
	io.data_ctx = &w;
	w.cut = a->len ? io_in_cut_note(a->data) : NULL;
	if (a->is_file) {
		io.next_data = file_next_data;
		io.reading = file_reading;
	} else {
		io.next_data = o->next_data ? caller_next_data : NULL;
		io.reading = o->reading ? caller_reading : NULL;
	}
	rc = inspect_walk(a->data, a->len, &io, visit, &w, &e);
	/* The container open ends, also when the walk failed in it (what it
	 * holds was handed over). */
	if (w.container_open && !w.stopped) {
		int end = close_container(&w);

		if (end && !rc)
			rc = end;
		if (end == -1)
			rc = -1;
	}
	a->live_keep = NULL;
	input_free_late(a, 0);
	free(w.k.stack);
	free(w.k.uri_head);
	free(w.marks);
	if (w.stopped)
		rc = w.stopped;
	else if (w.cut_met || (w.cut && io_in_cut_since(a->data))) {
		/* (whatever the walk made of the zeros: the change is the
		 * failure, as the tool says it) */
		err_code_file(&e, ERR_CHANGED, 0, a->path,
			      "file changed size while being read");
		rc = artifact_fail(a, &e);
		artifact_give_last(a, err);
		return rc;
	} else if (rc != 0) {
		if (rc != -1 || w.k.oom)
			err_nomem(&e);
		rc = artifact_fail(a, &e);
		artifact_give_last(a, err);
		return rc;
	}
	if (err)
		*err = NULL;
	return rc;
}

static int refused(offcode_error **err, enum offcode_code code,
		   const char *reason)
{
	if (err)
		*err = reason ? error_new(code, reason) : NULL;
	return code;
}

/* A handle for the walk (no image: its layers are offcode_layer_walk's). */
static offcode_artifact *handle(const char *name,
				const struct offcode_walk_options *o)
{
	struct offcode_open_options oo = {
		.size = sizeof(oo), .ccob_max_size = o->ccob_max_size,
		.ccob_max_ratio = o->ccob_max_ratio,
		.interrupted = o->interrupted,
		.interrupted_ctx = o->interrupted_ctx };

	return artifact_new(name, &oo);
}

int offcode_walk_fd(int fd, const char *name,
		    const struct offcode_walk_options *o, offcode_walk_fn fn,
		    void *ctx, offcode_error **err)
{
	struct offcode_walk_options ob;
	char fdname[32];
	offcode_artifact *a;
	int rc;

	if (!fn)
		return refused(err, OFFCODE_INVALID, "no visitor (fn is NULL)");
	o = options(o, &ob);
	if (!name) {
		snprintf(fdname, sizeof(fdname), "<fd %d>", fd);
		name = fdname;
	}
	if (!(a = handle(name, o)))
		return refused(err, OFFCODE_NOMEM, NULL);
	if ((rc = artifact_map_fd(a, fd)))
		artifact_give_last(a, err);
	else
		rc = walk(a, o, fn, ctx, err);
	offcode_close(a);
	return rc;
}

int offcode_walk_path(const char *path, const struct offcode_walk_options *o,
		      offcode_walk_fn fn, void *ctx, offcode_error **err)
{
	struct offcode_walk_options ob;
	struct io_stop stop;
	int fd, rc;

	if (!path || !fn)
		return refused(err, OFFCODE_INVALID, "no path, or no visitor");
	if (image_is(path))
		return refused(err, OFFCODE_UNSUPPORTED, "an image is walked "
			       "by offcode_layer_walk");
	options(o, &ob);
	stop = (struct io_stop){ .interrupted = ob.interrupted,
				 .ctx = ob.interrupted_ctx };
	if ((fd = io_in_open_wait(path, &stop)) < 0) {
		struct err e;

		err_sys(&e, path, errno);
		return error_give(error_from(&e, path), err);
	}
	rc = offcode_walk_fd(fd, path, o, fn, ctx, err);
	close(fd);
	return rc;
}

int offcode_walk_memory(const void *buf, size_t len, const char *name,
			const struct offcode_walk_options *o,
			offcode_walk_fn fn, void *ctx, offcode_error **err)
{
	struct offcode_walk_options ob;
	offcode_artifact *a;
	int rc;

	if ((!buf && len) || !fn)
		return refused(err, OFFCODE_INVALID, "no buffer, or no visitor");
	o = options(o, &ob);
	if (!(a = handle(name ? name : "<memory>", o)))
		return refused(err, OFFCODE_NOMEM, NULL);
	/* (never NULL, which the parsers may not be handed) */
	a->data = len ? buf : (const uint8_t *)"";
	a->len = len;
	rc = walk(a, o, fn, ctx, err);
	offcode_close(a);
	return rc;
}

/* ---- what ls prints of the records ---- */

const char *offcode_input_words(const offcode_input *in)
{
	input_need(in);
	return in ? in->words : NULL;
}

const char *offcode_container_what(const offcode_container *c)
{
	return c ? fatbin_codecs[c->node.container]->what : NULL;
}

void offcode_container_summary(const offcode_container *c, size_t entries,
			       char *buf, size_t cap)
{
	struct inspect_node n;

	if (!buf || !cap)
		return;
	buf[0] = 0;
	if (!c)
		return;
	/* (as an open keeps it, what it points to cut off, for a streaming
	 * walk's too) */
	n = c->node;
	artifact_node_cut(&n);
	n.entries = entries;
	kinds_summary(&n, buf, cap);
}

enum offcode_roc_obj offcode_container_roc_obj(const offcode_container *c)
{
	const struct kind *k = c ? kinds_get(c->node.container) : NULL;

	return !k ? OFFCODE_ROC_OBJ_IGNORED
	       : k->roc_obj_lists ? OFFCODE_ROC_OBJ_LISTED
	       : k->roc_obj_counts ? OFFCODE_ROC_OBJ_COUNTED
				   : OFFCODE_ROC_OBJ_IGNORED;
}

const offcode_error *offcode_container_hash_error(const offcode_container *c)
{
	return c ? c->hash_error : NULL;
}

bool offcode_container_coded(const offcode_container *c)
{
	return c && kinds_get(c->node.container)->entry_coded;
}

size_t offcode_entry_cell_count(const offcode_entry *e)
{
	entry_need(e, ENTRY_CELLS);
	return e ? e->ncells : 0;
}

const char *offcode_entry_cell(const offcode_entry *e, size_t i, size_t *len)
{
	entry_need(e, ENTRY_CELLS);
	if (!e || i >= e->ncells) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = e->cells[i].len;
	return e->cells[i].s;
}

const char *offcode_entry_location(const offcode_entry *e)
{
	entry_need(e, ENTRY_CELLS);
	return e ? e->location : NULL;
}

const offcode_error *offcode_entry_decode_error(const offcode_entry *e)
{
	return e ? e->decode_error : NULL;
}

const void *offcode_entry_head(const offcode_entry *e, size_t *len,
			       uint64_t *offset)
{
	bool has = e && e->head;

	if (len)
		*len = has ? e->head_len : 0;
	if (offset)
		*offset = has ? e->offset : 0;
	return has ? e->head : NULL;
}

const void *offcode_container_stored(const offcode_container *c,
				     uint64_t *len)
{
	if (len)
		*len = c && c->stored ? c->stored_len : 0;
	return c ? c->stored : NULL;
}
