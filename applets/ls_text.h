/* ls_text: ls's listing in text and roc-obj's lines, gathered from the
 * public streaming walk (include/offcode.h, offcode_walk_*) and printed
 * once the file is walked. */
#ifndef APPLETS_LS_TEXT_H
#define APPLETS_LS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../include/offcode.h"

/* A node of the listing, what ls prints of it copied out of the walk's
 * records (which live through their visit alone). */
struct ls_item {
	enum offcode_node_kind kind;	/* no _END: it completes a container */
	unsigned depth;
	uint64_t offset, size;
	char *name;		/* a member's or a section's, as stored */
	size_t name_len;
	/* INPUT: its words (offcode_input_words), with its name after them
	 * in the same block; an archive or a thin archive's member (shown
	 * without code under it) */
	char *words;
	bool archive, thin;
	/* SECTION: its index; CONTAINER: its number */
	unsigned number;
	/* CONTAINER */
	char *format, *what;	/* the library's words, copied */
	enum offcode_roc_obj roc;
	bool coded;
	size_t entries;		/* listed (-t counts those it takes) */
	char *summary;		/* known at its end */
	char *hash_why;		/* a hash checked and wrong: why */
	struct entry_text *text;	/* its entries' lines, or NULL */
	/* ENTRY (kept as items: roc-obj's, and a coded container's in
	 * text): its line's cells, its ID (bundles) and URI, why it does
	 * not decode */
	char *cell[LS_MAX_CELLS];
	int ncells, right;
	unsigned index;
	char *id, *uri, *why;
	size_t id_len;
	char *unread;		/* "nv-fatbin #0 entry 1 (sm_80)" */
	/* INPUT (a file that is one code object) and ENTRY, --kernels:
	 * kernels and why they cannot be read (ls_kernels.h), or NULL
	 * when none were read (an item is small: a listing holds many) */
	struct code_kernels *k;
};

struct ls_list {
	struct ls_item *v;
	size_t n, cap;
	struct rows *rs;	/* options: kernels, verify, -t, path, later */
};

/* The walk's visitor: each node kept as an item, or as a line of its
 * container's text (entries, in text), or passed by (entries -t does not
 * take, members without code once the next comes): 0, -1 out of memory. */
int ls_text_visit(void *ctx, const struct offcode_node *n);
/* Whether item i has anything under it; -t's sections and containers
 * with nothing left in them dropped. */
bool ls_text_has_children(const struct ls_list *l, size_t i);
void ls_text_drop_unselected(struct ls_list *l);
/* One file's tree as text. */
void ls_text(const struct ls_list *l, const char *path);
/* Why item i's kernels cannot be read, as ls says it after "cannot read
 * kernels in 'FILE': " (malloc'd). */
char *ls_text_unread(const struct ls_item *it);
void ls_list_free(struct ls_list *l);
/* Item it's kernels, made when first asked for (NULL out of memory). */
struct code_kernels *ls_text_kernels_row(struct ls_item *it);
/* "nv-fatbin #0 entry 1 (sm_80)": what names an entry whose kernels
 * cannot be read (malloc'd; NULL out of memory). */
char *ls_text_entry_name(const struct offcode_node *n);

#endif
