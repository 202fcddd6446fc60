/* keep: the walk of an artefact's headers (ops/inspect.h) kept as its
 * records, inputs, containers and entries (keep.h): every field at once
 * for an opened artefact; in a streaming walk (walk.c), each group of
 * fields when an accessor first asks for it, during the visit, from the
 * walk's node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keep.h"
#include "error.h"
#include "image_kind.h"
#include "nv.h"
#include "source.h"
#include "../ops/host.h"
#include "../ops/inspect.h"
#include "../ops/inspect_names.h"
#include "../ops/kind.h"
#include "../ops/entry.h"
#include "../ops/kinds.h"
#include "../formats/ccob.h"
#include "../formats/cubin.h"
#include "../formats/package.h"
#include "../core/env.h"
#include "../core/uri.h"

/* ---- the walk of the headers, kept ---- */

/* Room in *v (*cap records of size bytes) for record n: 16 at first, then
 * doubled, but at least as many as fill 128 KiB, glibc's threshold for a
 * block of its own, so that a large listing's array grows in place
 * (mremap) rather than being copied at each doubling into pages touched
 * for the first time (librocsparse's 1,562 entries: 33 page faults and
 * 0.2M instructions of an open), while a small one stays small (an
 * artefact of a few entries kept open among thousands). */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t c, block = (128 * 1024 + size - 1) / size;

	if (n < *cap)
		return 0;
	c = !*cap ? 16 : *cap * 2 > block ? *cap * 2 : block;
	if (!(p = realloc(*v, c * size)))
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

/* The node of the container open: in a streaming walk its record's
 * (containers[0], whole), else the one the walk last kept. */
static const struct inspect_node *open_container(const struct keep *k)
{
	return k->stream ? &k->a->containers[0].node : &k->container;
}

/* The kind's fields kept: their texts copied. */
static struct offcode_field *keep_fields(struct keep *k,
					 const struct kind_fields *kf,
					 size_t *n)
{
	struct offcode_field *f;

	*n = 0;
	if (!kf->n)
		return NULL;
	if (!(f = artifact_alloc(k->a, kf->n * sizeof(*f)))) {
		k->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < kf->n; i++) {
		const struct kind_field *s = &kf->v[i];
		static const enum offcode_field_type types[] = {
			[KIND_FIELD_U64] = OFFCODE_FIELD_UINT,
			[KIND_FIELD_HEX] = OFFCODE_FIELD_HEX,
			[KIND_FIELD_BOOL] = OFFCODE_FIELD_BOOL,
			[KIND_FIELD_TEXT] = OFFCODE_FIELD_TEXT,
			[KIND_FIELD_OPEN] = OFFCODE_FIELD_OBJECT,
			[KIND_FIELD_CLOSE] = OFFCODE_FIELD_END,
		};

		f[i] = (struct offcode_field){
			.key = s->key, .type = types[s->type],
			.number = s->u, .text_len = s->t.len,
			.text = artifact_keep(k->a, s->t.s, s->t.len, &k->oom),
		};
	}
	*n = kf->n;
	return f;
}

/* The input a node at depth d is in: the nearest one above it. */
static size_t input_above(const struct keep *k, unsigned d)
{
	while (d-- > 0)
		if (k->stack[d].kind == INSPECT_INPUT)
			return k->stack[d].index;
	return 0;
}

/* What ls prints of an input after "<file>: " (offcode_input_words),
 * or NULL for an ELF, COFF or PE file's, made of its headers when asked
 * for (words_later). */
static const char *input_words(const struct inspect_node *n)
{
	switch (n->format) {
	case INSPECT_ELF:
	case INSPECT_COFF:
	case INSPECT_PE:
		return NULL;
	case INSPECT_ARCHIVE:
		return "archive";
	case INSPECT_RAW:
		return "offload data";
	case INSPECT_THIN_MEMBER:
		return "thin archive member (not read)";
	case INSPECT_TEXT:
		return n->ld_script ? "linker script" : "text";
	case INSPECT_HOST:
		return n->host->ls_word;
	case INSPECT_OTHER:
		break;
	}
	return n->size ? "other data" : "empty";
}

/* len bytes at s with a NUL kept for input in: in the arena, unless a
 * streaming walk is visiting a node under it (the arena above in goes
 * with that node): then late (a->late), freed as in goes. */
static const char *input_keep(offcode_artifact *a, struct offcode_input *in,
			      const char *s, size_t len)
{
	struct input_late *l;
	bool oom = false;

	if (!a->live_keep || a->visiting == in) {
		const char *kept = artifact_keep(a, s, len, &oom);

		if (oom && a->live_keep)
			a->live_keep->oom = true;
		return kept;
	}
	if (!(l = malloc(sizeof(*l) + len + 1))) {
		a->live_keep->oom = true;
		return NULL;
	}
	memcpy(l->s, s, len);
	l->s[len] = 0;
	l->input = (size_t)(in - a->inputs);
	l->next = a->late;
	a->late = l;
	return l->s;
}

void artifact_input_fill(const struct offcode_input *cin)
{
	/* The record is the handle's, not const: the header's const says
	 * the listing does not change. */
	struct offcode_input *in = (struct offcode_input *)cin;
	offcode_artifact *a = (offcode_artifact *)in->owner;
	char words[96];

	if (in->words_later) {
		inspect_host_words(&in->host, words, sizeof(words));
		in->words = input_keep(a, in, words, strlen(words));
		in->words_later = false;
	}
	if (in->name_later) {
		in->name = input_keep(a, in, in->name, in->name_len);
		in->name_later = false;
	}
}

static int keep_input(struct keep *k, const struct inspect_node *n)
{
	static const char *const formats[] = {
		"elf", "archive", "raw", "thin-member", "other", "coff", "text",
		"pe", NULL,	/* INSPECT_HOST: its row's */
	};
	_Static_assert(sizeof(formats) / sizeof(formats[0]) == INSPECT_FORMATS,
		       "a name for each enum inspect_format");
	offcode_artifact *a = k->a;
	struct offcode_input *in;

	if (grow((void **)&a->inputs, &a->cap_inputs, a->ninputs,
		 sizeof(*in)) < 0)
		return -1;
	in = &a->inputs[a->ninputs];
	*in = (struct offcode_input){
		.owner = a, .depth = n->depth,
		.parent = n->depth ? input_above(k, n->depth) : (size_t)-1,
		.format = n->format == INSPECT_HOST ? n->host->json_format
						    : formats[n->format],
		.offset = n->offset, .size = n->size,
		.words = input_words(n),
	};
	in->words_later = !in->words;
	inspect_host_header(n, &in->host);
	if (n->format == INSPECT_ELF && n->offset <= a->len &&
	    n->size <= a->len - n->offset)
		in->cubin_arch = cubin_header_arch(a->data + n->offset,
						   (size_t)n->size);
	/* Where du looks for one code object with no container: an AMDGPU
	 * or CUDA ELF file, or text (PTX). */
	if (!n->depth)
		a->lone_candidate = (n->format == INSPECT_ELF &&
				     (n->machine == 224 || n->machine == 190)) ||
				    n->format == INSPECT_TEXT;
	if (n->depth) {
		in->name_len = n->name_len;
		if (k->stream) {	/* copied when asked for */
			in->name = n->name;
			in->name_later = true;
		} else
			in->name = artifact_keep(a, n->name, n->name_len,
						 &k->oom);
	} else {
		in->name = a->path;
		in->name_len = strlen(a->path);
	}
	k->stack[n->depth] = (struct open_node){ .kind = INSPECT_INPUT,
						 .index = a->ninputs++ };
	return 0;
}

/* Container c's kind's fields from n: those before its entries alone
 * (c->fields_head), or all of them. */
static int container_fields(struct keep *k, struct offcode_container *c,
			    const struct inspect_node *n)
{
	const struct kind *kind = kinds_get(n->container);
	/* (written before read: not its 1.4 KB zeroed for each) */
	struct kind_fields kf;

	kf.n = kf.nbuf = 0;
	if (kind->container_json)
		kind->container_json(n, &kf);
	if (kind->container_json_end && !c->fields_head)
		kind->container_json_end(n, &kf);
	c->fields = keep_fields(k, &kf, &c->nfields);
	return k->oom ? -1 : 0;
}

void artifact_container_fill(const struct offcode_container *cc)
{
	/* The record is the walk's, not const: the header's const says the
	 * listing does not change. */
	struct offcode_container *c = (struct offcode_container *)cc;
	offcode_artifact *a = (offcode_artifact *)c->owner;
	struct keep *k = a->live_keep;

	c->fields_later = false;
	if (!k)		/* (not in a visit: nothing to fill from) */
		return;
	/* Asked during an entry's visit, they go with its arena (walk.c
	 * makes them later again). */
	c->fields_for_entry = a->in_entry;
	if (container_fields(k, c, open_container(k)) < 0)
		k->oom = true;
}

void artifact_node_cut(struct inspect_node *n)
{
	n->name = NULL;
	n->name_len = 0;
	n->data = n->head = n->nv_base = NULL;
	n->triple = n->arch = NULL;
	n->decode_err = NULL;
}


/* bad_hash's record, for a hash checked and wrong: 0, or -1 out of
 * memory. */
static int keep_hash_error(struct offcode_container *c,
			   const struct inspect_node *n)
{
	char why[160];

	if (!c->bad_hash)
		return 0;
	kinds_bad_hash(n, why, sizeof(why));
	return (c->hash_error = error_new(OFFCODE_BAD_HASH, why)) ? 0 : -1;
}

/* Container c's record from n: its fields before its entries alone
 * (head), or all of them. */
static int fill_container(struct keep *k, struct offcode_container *c,
			  const struct inspect_node *n, bool head)
{
	offcode_artifact *a = k->a;
	const struct kind *kind = kinds_get(n->container);
	const struct open_node *up = n->depth ? &k->stack[n->depth - 1] : NULL;

	/* (all but its node zeroed, then written: not the node twice) */
	memset(c, 0, offsetof(struct offcode_container, node));
	c->owner = a;
	c->input = input_above(k, n->depth);
	c->number = n->number;
	c->format = kinds_name(n->container);
	c->has_offset = !n->in_bitcode;
	c->offset = n->offset;
	c->size = n->size;
	c->has_version = kind->versioned;
	c->version = n->version;
	c->first_entry = a->nentries;
	c->bad_hash = n->hash == INSPECT_HASH_BAD;
	c->alone = n->in_file && !n->in_bitcode && n->offset <= a->len &&
		   n->size <= a->len - n->offset;
	c->node = *n;
	if (k->stream)
		c->entries = n->entries;
	else
		artifact_node_cut(&c->node);
	if (up && up->kind == INSPECT_SECTION) {
		c->in_section = true;
		c->section_index = up->section_index;
		c->section_name = up->section_name;
		c->section_kind = up->section_kind;
		c->section_offset = up->section_offset;
		c->section_size = up->section_size;
	}
	/* A streaming walk's, when asked for (container_need), from its
	 * node as the record keeps it. */
	c->fields_head = head;
	if (k->stream)
		c->fields_later = true;
	else if (container_fields(k, c, n) < 0)
		return -1;
	return keep_hash_error(c, n);
}

int artifact_refill_container(struct keep *k, struct offcode_container *c,
			      const struct inspect_node *n)
{
	if (!k->stream) {
		offcode_error_free(c->hash_error);
		c->hash_error = NULL;
		return fill_container(k, c, n, false);
	}
	/* A streaming walk's, at its end: what its node n, c's own, says
	 * now (an update written over it, a CCOB's hash checked; when none
	 * came, what it was kept as), the rest as it was kept; all its
	 * fields when asked for. */
	c->fields = NULL;
	c->nfields = 0;
	c->fields_head = c->fields_for_entry = false;
	c->fields_later = true;
	if (!k->container_updated)
		return 0;
	offcode_error_free(c->hash_error);
	c->hash_error = NULL;
	c->number = n->number;
	c->has_offset = !n->in_bitcode;
	c->offset = n->offset;
	c->size = n->size;
	c->version = n->version;
	c->entries = n->entries;
	c->bad_hash = n->hash == INSPECT_HASH_BAD;
	c->alone = n->in_file && !n->in_bitcode && n->offset <= k->a->len &&
		   n->size <= k->a->len - n->offset;
	return keep_hash_error(c, n);
}

static int keep_container(struct keep *k, const struct inspect_node *n)
{
	offcode_artifact *a = k->a;
	const struct kind *kind = kinds_get(n->container);
	struct offcode_container *c;

	if (n->update)	/* a streamed CCOB's hash: walk.c's */
		return 0;
	if (grow((void **)&a->containers, &a->cap_containers,
		 a->ncontainers, sizeof(*c)) < 0)
		return -1;
	c = &a->containers[a->ncontainers];
	if (fill_container(k, c, n, k->stream) < 0)
		return -1;
	if (kind->packed && kind->packed(n, &k->packed_stored, &k->packed_raw))
		k->packed_depth = n->depth;
	if (!k->stream)		/* (a streaming walk's: c's node) */
		k->container = *n;
	k->container_updated = false;
	k->stack[n->depth] = (struct open_node){ .kind = INSPECT_CONTAINER,
						 .index = a->ncontainers++ };
	return 0;
}

/* The len bytes at s kept (NULL when s is), as the text kept last at
 * place when it is the same (an opened artefact's: struct keep's last). */
static const char *keep_shared(struct keep *k, unsigned place, const char *s,
			       size_t len)
{
	const char *p;

	if (!s)
		return NULL;
	if (k->stream)
		return artifact_keep(k->a, s, len, &k->oom);
	if (k->last[place].s && k->last[place].len == len &&
	    !memcmp(k->last[place].s, s, len))
		return k->last[place].s;
	if ((p = artifact_keep(k->a, s, len, &k->oom))) {
		k->last[place].s = p;
		k->last[place].len = len;
	}
	return p;
}

/* The processor and features of a target ID: "gfx90a:xnack+" is gfx90a
 * and xnack+. */
static void split_target(struct keep *k, struct offcode_entry *e)
{
	const char *colon;
	size_t plen;

	if (!e->arch)
		return;
	colon = memchr(e->arch, ':', e->arch_len);
	plen = colon ? (size_t)(colon - e->arch) : e->arch_len;
	e->processor = keep_shared(k, KEPT_PROCESSOR, e->arch, plen);
	e->features = colon ? keep_shared(k, KEPT_FEATURES, colon + 1,
					  e->arch_len - plen - 1)
			    : "";
}

/* Whether n's code is its bytes as the file stores them, so that reading
 * it is reading them (code.c), with no walk to it: what extract writes of
 * it is those bytes. */
static bool direct(const offcode_artifact *a, const struct kind *kind,
		   const struct inspect_node *n)
{
	struct entry_bytes b;

	return n->in_file && kind->entry_bytes == entry_bytes_stored &&
	       n->offset <= a->len && n->size <= a->len - n->offset &&
	       kinds_entry_bytes(n, INSPECT_HASH_UNCHECKED, &b) ==
		       ENTRY_WHOLE &&
	       b.data == a->data + n->offset && b.size == n->size;
}

/* v in decimal at out (up to 20 digits, no NUL): their count. */
static size_t put_decimal(char *out, uint64_t v)
{
	char digits[20];
	size_t n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = digits[n - 1 - i];
	return n;
}

/* uri_file(path, offset, size), kept: the file's part made once and
 * copied, the rest printed after it (not the path encoded again and the
 * URI copied for each entry), or NULL (k->oom when out of memory). */
static const char *keep_uri(struct keep *k, uint64_t offset, uint64_t size)
{
	char tail[64], *p;
	size_t len;

	if (!k->uri_head) {
		char *hash;

		if (!(k->uri_head = uri_file(k->a->path, 0, 0))) {
			k->oom = true;
			return NULL;
		}
		hash = strchr(k->uri_head, '#');
		k->uri_head_len = hash ? (size_t)(hash - k->uri_head) : strlen(k->uri_head);
	}
	/* (printed by hand: snprintf's parsing was a tenth of an open) */
	memcpy(tail, "#offset=", 8);
	len = 8 + put_decimal(tail + 8, offset);
	memcpy(tail + len, "&size=", 6);
	len += 6 + put_decimal(tail + len + 6, size);
	if (!(p = artifact_take(k->a, k->uri_head_len + len + 1))) {
		k->oom = true;
		return NULL;
	}
	memcpy(p, k->uri_head, k->uri_head_len);
	memcpy(p + k->uri_head_len, tail, len);
	p[k->uri_head_len + len] = 0;
	return p;
}

/* Whether kept (NUL-terminated, or NULL) holds the len bytes at s. */
static bool same_text(const char *kept, size_t kept_len, const char *s, size_t len)
{
	return kept && s && kept_len == len && !memcmp(kept, s, len);
}

/* What ls prints of entry e (n) on its line: the columns that name it,
 * where its code is; why it cannot be decoded. */
static int keep_presentation(struct keep *k, struct offcode_entry *e,
			     const struct kind *kind,
			     const struct inspect_node *n,
			     const struct inspect_target *t)
{
	struct kind_cells c;
	char buf[96];
	_Static_assert(KIND_CELLS == sizeof(e->cells) / sizeof(e->cells[0]),
		       "a kind's cells");

	_Static_assert(KEPT_PLACES - KEPT_CELL == KIND_CELLS, "a cell's place");

	kinds_entry_cells(n, t, &c);
	for (unsigned i = 0; i < c.n && i < KIND_CELLS; i++) {
		/* (a bundle's one cell is its ID, kept already) */
		e->cells[i].s = same_text(e->id, e->id_len, c.v[i].s,
					  c.v[i].len) ? e->id :
				keep_shared(k, KEPT_CELL + i, c.v[i].s,
					    c.v[i].len);
		e->cells[i].len = c.v[i].s ? c.v[i].len : 0;
	}
	e->ncells = c.n < KIND_CELLS ? c.n : KIND_CELLS;
	if (n->in_file)
		e->location = e->uri;
	else if (n->in_bitcode)
		e->location = "(in bitcode)";
	else if (kind->where && kind->where(n, buf, sizeof(buf)))
		e->location = artifact_keep(k->a, buf, strlen(buf), &k->oom);
	else
		e->location = "(compressed)";
	return 0;
}

/* An NVIDIA entry's header (offcode_entry_nv), its texts copied. */
static int keep_nv(struct keep *k, struct offcode_entry *e,
		   const struct inspect_node *n)
{
	struct offcode_nv_entry h, *nv;

	if (!nv_header(n, &h))
		return 0;
	if (!(nv = artifact_alloc(k->a, sizeof(*nv))))
		return -1;
	*nv = h;
	nv->identifier = artifact_keep(k->a, h.identifier, h.identifier_len,
				       &k->oom);
	nv->ptxas_options = artifact_keep(k->a, h.ptxas_options,
					  h.ptxas_options_len, &k->oom);
	e->nv = nv;
	return 0;
}

/* Entry e's fields of groups (ENTRY_*) from its node n. */
static int fill_entry(struct keep *k, struct offcode_entry *e,
		      const struct inspect_node *n, unsigned groups)
{
	offcode_artifact *a = k->a;
	const struct kind *kind = kinds_get(n->container);
	struct inspect_target t;

	/* (what they are made of filled first) */
	if (groups & ENTRY_SELECT)
		groups |= ENTRY_NAMES | ENTRY_ID;
	if ((groups & ENTRY_CELLS) && n->in_file)
		groups |= ENTRY_URI;
	groups &= e->lazy;
	e->lazy &= ~groups;
	if (groups & (ENTRY_NAMES | ENTRY_SELECT | ENTRY_CELLS))
		inspect_entry_target(n, &t);
	if ((groups & ENTRY_ID) && kind->ids) {
		e->id = artifact_keep(a, n->name, n->name_len, &k->oom);
		e->id_len = n->name_len;
	}
	if (groups & ENTRY_NAMES) {
		e->kind = keep_shared(k, KEPT_KIND, t.kind, t.kind_len);
		e->kind_len = t.kind_len;
		e->triple = keep_shared(k, KEPT_TRIPLE, t.triple, t.triple_len);
		e->triple_len = t.triple_len;
		e->arch = keep_shared(k, KEPT_ARCH, t.arch, t.arch_len);
		e->arch_len = t.arch_len;
		e->image_kind = keep_shared(k, KEPT_IMAGE, t.image, t.image_len);
		e->image_later = image_kind_later(n, &t);
		split_target(k, e);
	}
	if ((groups & ENTRY_URI) && n->in_file &&
	    !(e->uri = keep_uri(k, n->offset, n->size)))
		return -1;
	if (groups & ENTRY_FIELDS) {
		struct kind_text d[KIND_DETAILS];
		/* (its rows and buffers are written before they are read:
		 * not its 1.4 KB zeroed for each entry, a tenth of what
		 * keeping an entry cost; issue 37) */
		struct kind_fields kf;

		kf.n = kf.nbuf = 0;
		memset(d, 0, sizeof(d));
		if (kind->details)
			kind->details(n, d);
		if (kind->entry_json)
			kind->entry_json(n, open_container(k), d, &kf);
		e->fields = keep_fields(k, &kf, &e->nfields);
	}
	if (groups & ENTRY_SELECT) {
		/* As selection sees it (applets/selection.c's
		 * applet_entry_of). */
		char archbuf[24], *made = NULL;
		const char *sarch, *id = n->name ? n->name : "";
		size_t id_len = n->name_len, sarch_len;

		/* (a kind of no entry_id hook names it by its ID as it is:
		 * not copied to be compared) */
		if (kind->entry_id &&
		    !(id = made = kinds_entry_id(n, &t, &id_len)))
			return -1;
		/* (each the text kept above when it is the same, as it
		 * mostly is) */
		e->select_id = same_text(e->id, e->id_len, id, id_len) ? e->id :
			       artifact_keep(a, id, id_len, &k->oom);
		e->select_id_len = id_len;
		free(made);
		sarch = kinds_select_arch(n, &t, archbuf, sizeof(archbuf),
					  &sarch_len);
		e->select_arch = same_text(e->arch, e->arch_len, sarch,
					   sarch_len) ? e->arch :
				 artifact_keep(a, sarch, sarch_len, &k->oom);
		e->select_arch_len = sarch_len;
	}
	if ((groups & ENTRY_CELLS) && keep_presentation(k, e, kind, n, &t) < 0)
		return -1;
	if (groups & ENTRY_DU) {
		/* As its kind counts them, a packed container's share (the
		 * walk's state while the entry is: its keep, its visit). */
		e->du_code = e->du_stored = n->size;
		if (kind->sizes)
			kind->sizes(n, &e->du_code, &e->du_stored);
		if (!n->in_file && k->packed_depth && k->packed_raw)
			e->du_stored = (uint64_t)((unsigned __int128)
						  k->packed_stored * n->size /
						  k->packed_raw);
	}
	return k->oom ? -1 : 0;
}

void artifact_entry_fill(const struct offcode_entry *ce, unsigned groups)
{
	/* The record is the walk's, not const: the header's const says the
	 * listing does not change. */
	struct offcode_entry *e = (struct offcode_entry *)ce;
	const offcode_artifact *a = e->owner;
	struct keep *k = a->live_keep;

	if (!k || !a->live_entry || e != &a->entries[0]) {
		e->lazy = 0;	/* (not in its visit: nothing to fill from) */
		return;
	}
	if (fill_entry(k, e, a->live_entry, groups) < 0)
		k->oom = true;
}

static int keep_entry(struct keep *k, const struct inspect_node *n)
{
	offcode_artifact *a = k->a;
	const struct kind *kind = kinds_get(n->container);
	struct offcode_entry *e;

	if (!a->ncontainers)	/* an entry outside a container: none */
		return 0;
	if (grow((void **)&a->entries, &a->cap_entries, a->nentries,
		 sizeof(*e)) < 0)
		return -1;
	e = &a->entries[a->nentries];
	*e = (struct offcode_entry){
		.owner = a, .container = a->ncontainers - 1,
		.ordinal = a->nentries, .index = n->index,
		.size = n->size, .offset = n->offset, .has_offset = n->in_file,
		.compressed = !n->in_file && !n->in_bitcode,
		.lazy = ENTRY_LAZY,
	};
	/* (a streaming walk's is read from its node when asked for, nv.c:
	 * nothing copied for a visitor that does not ask) */
	if (!k->stream && keep_nv(k, e, n) < 0)
		return -1;
	if (n->decode_err &&
	    !(e->decode_error = error_from(n->decode_err, "")))
		return -1;
	if (k->stream) {
		/* The rest when asked for, during its visit (walk.c). */
		a->live_entry = n;
	} else {
		if (fill_entry(k, e, n, ENTRY_LAZY) < 0)
			return -1;
		e->direct = direct(a, kind, n);
	}
	if (!k->stream)
		a->containers[e->container].entries++;
	a->nentries++;
	return 0;
}

int artifact_keep_node(struct keep *k, const struct inspect_node *n)
{
	int rc = 0;

	if (n->depth >= k->depth_cap) {
		size_t cap = k->depth_cap * 2 + 8;
		struct open_node *s = realloc(k->stack, cap * sizeof(*s));

		if (!s)
			return -1;
		k->stack = s;
		k->depth_cap = cap;
	}
	if (n->depth && !n->update && k->packed_depth &&
	    n->depth <= k->packed_depth)
		k->packed_depth = 0;
	switch (n->kind) {
	case INSPECT_INPUT:
		rc = keep_input(k, n);
		break;
	case INSPECT_SECTION:
		k->stack[n->depth] = (struct open_node){
			.kind = INSPECT_SECTION,
			.section_index = n->section_index,
			.section_name = artifact_keep(k->a, n->name, n->name_len,
						      &k->oom),
			.section_kind = inspect_section_kind_name(n->section_kind),
			.section_offset = n->offset, .section_size = n->size };
		break;
	case INSPECT_CONTAINER:
		rc = keep_container(k, n);
		break;
	case INSPECT_ENTRY:
		rc = keep_entry(k, n);
		break;
	}
	return rc < 0 || k->oom ? -1 : 0;
}

static int keep_visit(void *ctx, const struct inspect_node *n)
{
	return artifact_keep_node(ctx, n);
}

static uint64_t next_data(const void *in, uint64_t off)
{
	return io_in_next_data(in, off);
}

void artifact_code_walk(const offcode_artifact *a, struct inspect_opts *o)
{
	*o = a->walk;
	o->inflate = true;
	o->stream = true;
	o->image_kinds = true;
	o->no_hash = !a->verify;
}

int artifact_walk(offcode_artifact *a)
{
	struct keep k = { .a = a };
	struct inspect_opts o = a->walk;
	struct err e;
	int rc;

	if (a->is_file) {
		o.next_data = next_data;
		o.data_ctx = &a->in;
	}
	rc = inspect_walk(a->data, a->len, &o, keep_visit, &k, &e);
	free(k.stack);
	free(k.uri_head);
	/* Cut short under the walk (what it read past the cut was zeros,
	 * offcode_catch_sigbus's or the page's tail): the change, whatever
	 * it made of them. */
	if (a->is_file && a->in.map && io_in_cut_since(a->in.map)) {
		err_code_file(&e, ERR_CHANGED, 0, a->path,
			      "file changed size while being read");
		return artifact_fail(a, &e);
	}
	if (rc == 0)
		return 0;
	if (rc != -1 || k.oom)
		err_nomem(&e);
	return artifact_fail(a, &e);
}
