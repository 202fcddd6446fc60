/* keep: the walk of an artefact's headers kept as its records (keep.c):
 * inputs, containers and entries filled from the walk's nodes, at once
 * for an opened artefact, when an accessor asks during a streaming walk's
 * visit (walk.c). */
#ifndef LIB_KEEP_H
#define LIB_KEEP_H

#include "artifact_impl.h"

/* What the walk of the headers has open at each depth: an input, a
 * section or a container, by index (sections: their fields). */
struct open_node {
	enum inspect_kind kind;
	size_t index;
	uint32_t section_index;
	const char *section_name, *section_kind;
	uint64_t section_offset, section_size;
};
/* The walk's visitor's state (artifact_keep_node), kept into k->a. */
/* The places of an entry's texts that keep_shared shares. */
enum {
	KEPT_KIND, KEPT_TRIPLE, KEPT_ARCH, KEPT_PROCESSOR, KEPT_FEATURES,
	KEPT_IMAGE, KEPT_CELL, KEPT_PLACES = KEPT_CELL + 4
};

struct keep {
	offcode_artifact *a;
	struct open_node *stack;
	size_t depth_cap;
	/* The last container's node (an open's: a streaming walk's is its
	 * record's, open_container). */
	struct inspect_node container;
	/* The container whose entries come now, if it compresses them
	 * together (du's share of its stored bytes): its depth, 0 none. */
	unsigned packed_depth;
	uint64_t packed_stored, packed_raw;
	/* Every URI's part before its '#', file://PATH, made once (NULL: not
	 * yet), as uri_file makes it: the path percent-encoded, '#' too;
	 * freed by whoever ends the walk. */
	char *uri_head;
	size_t uri_head_len;
	bool oom;
	/* An opened artefact's last text kept in each place an entry has
	 * (keep_shared): the next entry's, when the same, points at it (a
	 * library's entries name a few targets: kept once each, not once an
	 * entry, the arena's pages a third fewer).  Not in a streaming walk,
	 * whose texts go with their node. */
	struct { const char *s; size_t len; } last[KEPT_PLACES];
	/* A streaming walk's (walk.c): a container's record has its fields
	 * before its entries alone, and counts the entries to come; an
	 * update fills it again, all its fields. */
	bool stream;
	/* An update came for the container open (walk.c, written over its
	 * record's node): its record is made again from it at its end, not
	 * kept as it was. */
	bool container_updated;
};
/* Keep node n into k->a: 0, or -1 out of memory. */
int artifact_keep_node(struct keep *k, const struct inspect_node *n);
/* Container c's record made again from n (a streaming walk's: c's own
 * node), all its fields (walk.c, at its end). */
int artifact_refill_container(struct keep *k, struct offcode_container *c,
			      const struct inspect_node *n);
/* What a kept node points to cut off (NULL), as an open's container
 * keeps it, for the hooks that read its values. */
void artifact_node_cut(struct inspect_node *n);
/* Entry e's fields of groups (ENTRY_*) filled if they are not yet
 * (entry_need); out of memory, they stay NULL and the walk fails. */
void artifact_entry_fill(const struct offcode_entry *e, unsigned groups);
static inline void entry_need(const struct offcode_entry *e, unsigned groups)
{
	if (e && (e->lazy & groups))
		artifact_entry_fill(e, groups);
}
/* Container c's fields made if they are not yet (container_need). */
void artifact_container_fill(const struct offcode_container *c);
static inline void container_need(const struct offcode_container *c)
{
	if (c && c->fields_later)
		artifact_container_fill(c);
}
/* Input in's name and words filled if they are not yet (input_need). */
void artifact_input_fill(const struct offcode_input *in);
static inline void input_need(const struct offcode_input *in)
{
	if (in && (in->words_later || in->name_later))
		artifact_input_fill(in);
}
/* Walk a's bytes and keep what the walk finds: 0, or a code with a's
 * last error set. */
int artifact_walk(offcode_artifact *a);
/* The walk options for reading code: everything inflated, a CCOB's entries
 * one at a time. */
void artifact_code_walk(const offcode_artifact *a, struct inspect_opts *o);

#endif
