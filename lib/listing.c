/* listing: what liboffcode's walk kept of an artefact (keep.c), read
 * field by field: its inputs, containers and entries, named as ls --json
 * names them. */
#include <string.h>

#include "artifact_impl.h"
#include "keep.h"
#include "image_kind.h"

/* A text and its length (len may be NULL). */
static const char *text(const char *s, size_t n, size_t *len)
{
	if (len)
		*len = s ? n : 0;
	return s;
}

/* ---- inputs ---- */

size_t offcode_input_count(const offcode_artifact *a)
{
	return a->ninputs;
}

const offcode_input *offcode_input_at(const offcode_artifact *a, size_t i)
{
	return i < a->ninputs ? &a->inputs[i] : NULL;
}

unsigned offcode_input_depth(const offcode_input *in)
{
	return in->depth;
}

const offcode_input *offcode_input_parent(const offcode_input *in)
{
	return in->parent == (size_t)-1 ? NULL : &in->owner->inputs[in->parent];
}

const char *offcode_input_name(const offcode_input *in, size_t *len)
{
	input_need(in);
	return text(in->name, in->name_len, len);
}

const char *offcode_input_format(const offcode_input *in)
{
	return in->format;
}

uint64_t offcode_input_offset(const offcode_input *in)
{
	return in->offset;
}

uint64_t offcode_input_size(const offcode_input *in)
{
	return in->size;
}

/* ---- containers ---- */

size_t offcode_container_count(const offcode_artifact *a)
{
	return a->ncontainers;
}

const offcode_container *offcode_container_at(const offcode_artifact *a,
					      size_t i)
{
	return i < a->ncontainers ? &a->containers[i] : NULL;
}

const offcode_input *offcode_container_input(const offcode_container *c)
{
	return &c->owner->inputs[c->input];
}

unsigned offcode_container_number(const offcode_container *c)
{
	return c->number;
}

const char *offcode_container_format(const offcode_container *c)
{
	return c->format;
}

bool offcode_container_offset(const offcode_container *c, uint64_t *offset)
{
	if (c->has_offset && offset)
		*offset = c->offset;
	return c->has_offset;
}

uint64_t offcode_container_size(const offcode_container *c)
{
	return c->size;
}

bool offcode_container_version(const offcode_container *c,
			       unsigned *version)
{
	if (c->has_version && version)
		*version = c->version;
	return c->has_version;
}

bool offcode_container_section(const offcode_container *c, uint32_t *index,
			       const char **name, const char **kind)
{
	if (!c->in_section)
		return false;
	if (index)
		*index = c->section_index;
	if (name)
		*name = c->section_name;
	if (kind)
		*kind = c->section_kind;
	return true;
}

size_t offcode_container_entry_count(const offcode_container *c)
{
	return c->entries;
}

const offcode_entry *offcode_container_entry_at(const offcode_container *c,
						size_t i)
{
	/* (a walk's record counts the entries to come, which its handle
	 * never holds together: none, as offcode.h says) */
	if (c->owner->streaming || i >= c->entries)
		return NULL;
	return &c->owner->entries[c->first_entry + i];
}

static int field(const struct offcode_field *v, size_t n, size_t i,
		 struct offcode_field *f)
{
	if (i >= n || !f)
		return OFFCODE_RANGE;
	*f = v[i];
	return 0;
}

size_t offcode_container_field_count(const offcode_container *c)
{
	container_need(c);
	return c->nfields;
}

int offcode_container_field(const offcode_container *c, size_t i,
			    struct offcode_field *f)
{
	container_need(c);
	return field(c->fields, c->nfields, i, f);
}

/* ---- entries ---- */

size_t offcode_entry_count(const offcode_artifact *a)
{
	return a->nentries;
}

const offcode_entry *offcode_entry_at(const offcode_artifact *a, size_t i)
{
	return i < a->nentries ? &a->entries[i] : NULL;
}

const offcode_container *offcode_entry_container(const offcode_entry *e)
{
	return &e->owner->containers[e->container];
}

unsigned offcode_entry_index(const offcode_entry *e)
{
	return e->index;
}

const char *offcode_entry_id(const offcode_entry *e, size_t *len)
{
	entry_need(e, ENTRY_ID);
	return text(e->id, e->id_len, len);
}

const char *offcode_entry_offload_kind(const offcode_entry *e, size_t *len)
{
	entry_need(e, ENTRY_NAMES);
	return text(e->kind, e->kind_len, len);
}

const char *offcode_entry_triple(const offcode_entry *e, size_t *len)
{
	entry_need(e, ENTRY_NAMES);
	return text(e->triple, e->triple_len, len);
}

const char *offcode_entry_target_id(const offcode_entry *e, size_t *len)
{
	entry_need(e, ENTRY_NAMES);
	return text(e->arch, e->arch_len, len);
}

const char *offcode_entry_processor(const offcode_entry *e)
{
	entry_need(e, ENTRY_NAMES);
	return e->processor;
}

const char *offcode_entry_features(const offcode_entry *e)
{
	entry_need(e, ENTRY_NAMES);
	return e->features;
}

const char *offcode_entry_image_kind(const offcode_entry *e)
{
	/* The entry and its artefact are the caller's, not const: the
	 * header's const says the listing does not change. */
	entry_need(e, ENTRY_NAMES);
	if (e->image_later)
		return image_kind_read((offcode_artifact *)e->owner,
				       (offcode_entry *)e);
	return e->image_kind;
}

uint64_t offcode_entry_size(const offcode_entry *e)
{
	return e->size;
}

bool offcode_entry_offset(const offcode_entry *e, uint64_t *offset)
{
	if (e->has_offset && offset)
		*offset = e->offset;
	return e->has_offset;
}

const char *offcode_entry_uri(const offcode_entry *e)
{
	entry_need(e, ENTRY_URI);
	return e->uri;
}

bool offcode_entry_compressed(const offcode_entry *e)
{
	return e->compressed;
}

size_t offcode_entry_field_count(const offcode_entry *e)
{
	entry_need(e, ENTRY_FIELDS);
	return e->nfields;
}

int offcode_entry_field(const offcode_entry *e, size_t i,
			struct offcode_field *f)
{
	entry_need(e, ENTRY_FIELDS);
	return field(e->fields, e->nfields, i, f);
}
