/* ls_text: the ls applet's text listing (the default format), gathered
 * from the public streaming walk (include/offcode.h): a tree of files,
 * sections and containers, the entries of each in columns.  What is kept
 * is what is printed: an archive member with no code under it goes when
 * the next node comes, and a container's entries become lines of text as
 * they come. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "ls_kernels.h"
#include "ls_kpack.h"
#include "ls_text.h"

enum { MAX_CELLS = LS_MAX_CELLS };

/* ---- an entry's line ---- */

static char *dup_text(const char *s, size_t len)
{
	return s ? applet_escape(s, len, false) : strdup("-");
}

static char *fmt_u64(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return strdup(buf);
}

/* The entry's columns: what names it (its kind says which), its size and
 * where it is. */
static void entry_line(const offcode_entry *e, char **cell, int *ncells,
		       int *right)
{
	size_t n = offcode_entry_cell_count(e), len;
	int k = 0;

	for (size_t i = 0; i < n && k < MAX_CELLS - 2; i++) {
		const char *s = offcode_entry_cell(e, i, &len);

		cell[k++] = dup_text(s, len);
	}
	*right = k;
	cell[k++] = fmt_u64(offcode_entry_size(e));
	cell[k++] = strdup(offcode_entry_location(e));
	*ncells = k;
}

char *ls_text_entry_name(const struct offcode_node *n)
{
	size_t alen;
	const char *a = offcode_entry_target_id(n->entry, &alen);
	char *arch = a ? applet_escape(a, alen, false) : NULL, *s = NULL;
	const char *fmt = "%s #%u entry %u%s%s%s";
	int len = snprintf(NULL, 0, fmt, offcode_container_format(n->container),
			   offcode_container_number(n->container),
			   offcode_entry_index(n->entry), arch ? " (" : "",
			   arch ? arch : "", arch ? ")" : "");

	if (len >= 0 && (s = malloc((size_t)len + 1)))
		snprintf(s, (size_t)len + 1, fmt,
			 offcode_container_format(n->container),
			 offcode_container_number(n->container),
			 offcode_entry_index(n->entry), arch ? " (" : "",
			 arch ? arch : "", arch ? ")" : "");
	free(arch);
	return s;
}

char *ls_text_unread(const struct ls_item *it)
{
	char *why = NULL;
	int len;

	const char *reason = ls_kernels_why(it->k);

	if (it->kind == OFFCODE_NODE_INPUT || !it->unread)
		return strdup(reason);
	len = snprintf(NULL, 0, "%s: %s", it->unread, reason);
	if (len >= 0 && (why = malloc((size_t)len + 1)))
		snprintf(why, (size_t)len + 1, "%s: %s", it->unread, reason);
	return why;
}

/* Append s and its NUL to t's buffer. */
static int text_add(struct entry_text *t, const char *s, size_t len)
{
	if (len + 1 > t->cap - t->len) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		char *b;

		while (len + 1 > cap - t->len)
			cap *= 2;
		if (!(b = realloc(t->buf, cap)))
			return -1;
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, len);
	t->buf[t->len + len] = 0;
	t->len += len + 1;
	return 0;
}

/* With --kernels: the lines under entry n (its kernels, at indent) as
 * text, after its line's cells; why they cannot be read kept for the end
 * of the file. */
static int entry_kernels_text(struct rows *rs, struct entry_text *t,
			      const struct offcode_node *n, int indent)
{
	struct code_kernels k = { NULL, NULL };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc = -1;

	if (n->code && ls_code_kernels(&k, n->code, (size_t)n->code_size) < 0)
		goto out;
	if (!(f = open_memstream(&text, &len)))
		goto out;
	ls_print_code_kernels(f, rs, &k, indent);
	if (fclose(f) == 0 && text_add(t, text, len) == 0)
		rc = 0;
	if (k.error && rs->later) {
		char *name = ls_text_entry_name(n);

		fprintf(rs->later, "offload ls: error: cannot read kernels in "
			"'%s': %s: %s\n", rs->path, name ? name : "?",
			ls_kernels_why(&k));
		free(name);
	}
out:
	free(text);
	ls_code_kernels_free(&k);
	return rc;
}

/* Entry n of the container last kept, as a line of its text. */
static int entry_as_text(struct ls_list *l, const struct offcode_node *n)
{
	struct ls_item *c = &l->v[l->n - 1];
	struct entry_text *t = c->text;
	char *cell[MAX_CELLS] = { NULL };
	int ncells, right, rc = 0;

	if (!t && !(t = c->text = calloc(1, sizeof(*t))))
		return -1;
	entry_line(n->entry, cell, &ncells, &right);
	t->ncells = ncells;
	t->right = right;
	for (int k = 0; k < ncells; k++) {
		const char *s = cell[k] ? cell[k] : "?";
		size_t len = strlen(s);

		if (len > t->w[k])
			t->w[k] = len;
		if (!rc)
			rc = text_add(t, s, len);
		free(cell[k]);
	}
	t->n++;
	if (!rc && l->rs->kernels) {
		t->tails = true;
		rc = entry_kernels_text(l->rs, t, n, 2 * (int)n->depth + 2);
	}
	return rc;
}

/* ---- the items ---- */

struct code_kernels *ls_text_kernels_row(struct ls_item *it)
{
	if (!it->k)
		it->k = calloc(1, sizeof(*it->k));
	return it->k;
}

static void item_free(struct ls_item *it)
{
	if (it->kind != OFFCODE_NODE_INPUT)
		free(it->name);		/* an input's is in its words' block */
	free(it->words);
	free(it->summary);
	free(it->hash_why);
	free(it->format);
	free(it->what);
	if (it->text)
		free(it->text->buf);
	free(it->text);
	for (int k = 0; k < it->ncells; k++)
		free(it->cell[k]);
	free(it->id);
	free(it->uri);
	free(it->why);
	free(it->unread);
	if (it->k)
		ls_code_kernels_free(it->k);
	free(it->k);
	memset(it, 0, sizeof(*it));
}

void ls_list_free(struct ls_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		item_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static char *copy(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = 0;
	}
	return p;
}

static int fill(const struct ls_list *l, struct ls_item *it,
		const struct offcode_node *n)
{
	const char *s, *words;
	size_t len, wlen;

	memset(it, 0, sizeof(*it));
	it->kind = n->kind;
	it->depth = n->depth;
	switch (n->kind) {
	case OFFCODE_NODE_INPUT:
		s = offcode_input_format(n->input);
		it->archive = !strcmp(s, "archive");
		it->thin = !strcmp(s, "thin-member");
		it->offset = offcode_input_offset(n->input);
		it->size = offcode_input_size(n->input);
		s = offcode_input_name(n->input, &len);
		words = offcode_input_words(n->input);
		wlen = strlen(words);
		/* Its name and words in one block: a library's members come
		 * and go by the thousand. */
		if (!n->depth)
			len = 0;
		if (!(it->words = malloc(wlen + 1 + len + 1)))
			return -1;
		memcpy(it->words, words, wlen + 1);
		if (n->depth) {
			it->name = it->words + wlen + 1;
			memcpy(it->name, s, len);
			it->name[len] = 0;
		}
		it->name_len = len;
		return 0;
	case OFFCODE_NODE_SECTION:
		it->number = n->section_index;
		it->offset = n->section_offset;
		it->size = n->section_size;
		it->name_len = n->section_name_len;
		return (it->name = copy(n->section_name, n->section_name_len))
			       ? 0 : -1;
	case OFFCODE_NODE_CONTAINER:
		it->number = offcode_container_number(n->container);
		offcode_container_offset(n->container, &it->offset);
		it->size = offcode_container_size(n->container);
		if (!(it->format = strdup(offcode_container_format(
			      n->container))) ||
		    !(it->what = strdup(offcode_container_what(n->container))))
			return -1;
		it->roc = offcode_container_roc_obj(n->container);
		it->coded = offcode_container_coded(n->container);
		it->entries = offcode_container_entry_count(n->container);
		return 0;
	case OFFCODE_NODE_ENTRY:
		it->index = offcode_entry_index(n->entry);
		it->size = offcode_entry_size(n->entry);
		/* What is printed of it: its line in text, its ID and URI in
		 * roc-obj's; why it does not decode, or its kernels cannot
		 * be read. */
		if (l->rs->entries_as_text) {
			entry_line(n->entry, it->cell, &it->ncells,
				   &it->right);
		} else {
			if ((s = offcode_entry_id(n->entry, &len)) &&
			    !(it->id = copy(s, len)))
				return -1;
			it->id_len = len;
			if ((s = offcode_entry_uri(n->entry)) &&
			    !(it->uri = strdup(s)))
				return -1;
		}
		if (offcode_entry_decode_error(n->entry) &&
		    !(it->why = strdup(offcode_error_reason(
			      offcode_entry_decode_error(n->entry)))))
			return -1;
		if (l->rs->kernels && !(it->unread = ls_text_entry_name(n)))
			return -1;
		return 0;
	case OFFCODE_NODE_CONTAINER_END:
		break;
	}
	return 0;
}

/* m is an archive member that ls_shown leaves out, now that a node at
 * depth comes after it: nothing under it was kept. */
static bool hidden_member(const struct ls_item *m, unsigned depth)
{
	return m->kind == OFFCODE_NODE_INPUT && m->depth > 0 &&
	       m->depth >= depth && !m->archive && !m->thin;
}

/* The container item an entry or an end at depth d belongs to. */
static struct ls_item *container_of(struct ls_list *l, unsigned d)
{
	for (size_t i = l->n; i-- > 0;)
		if (l->v[i].kind == OFFCODE_NODE_CONTAINER && l->v[i].depth == d)
			return &l->v[i];
	return NULL;
}

/* A container's end: its summary, counting the entries listed, and a
 * hash found wrong. */
static int container_end(struct ls_list *l, const struct offcode_node *n)
{
	struct ls_item *c = container_of(l, n->depth);
	const offcode_error *bad = offcode_container_hash_error(n->container);
	char tail[256];

	if (!c)
		return 0;
	offcode_container_summary(n->container, c->entries, tail, sizeof(tail));
	if (!(c->summary = strdup(tail)))
		return -1;
	if (bad && !(c->hash_why = strdup(offcode_error_reason(bad))))
		return -1;
	return 0;
}

int ls_text_visit(void *ctx, const struct offcode_node *n)
{
	struct ls_list *l = ctx;
	struct rows *rs = l->rs;
	struct ls_item *it;

	if (n->kind == OFFCODE_NODE_CONTAINER_END)
		return container_end(l, n);
	if (n->kind == OFFCODE_NODE_ENTRY) {
		bool wanted = ls_wanted_entry(rs, n->entry);
		size_t klen, alen;
		const char *key = offcode_entry_id(n->entry, &klen);
		const char *arch = offcode_entry_target_id(n->entry, &alen);

		/* A kpack archive's entry (its TOC's key and target) is
		 * checked for its target (--verify). */
		if (rs->verify && rs->later && wanted &&
		    !strcmp(offcode_container_format(n->container), "kpack"))
			ls_kpack_verify_code(rs->later, rs->path, n->code,
					     n->code_size, key, klen, arch,
					     alen);
		if (!wanted) {
			/* Its container counts the entries listed. */
			struct ls_item *c = container_of(l, n->depth - 1);

			if (c)
				c->entries--;
			return 0;
		}
		/* A coded container's entries stay items: a --verify
		 * failure is reported from them (nv_undecoded). */
		if (rs->entries_as_text && !offcode_container_coded(n->container)
		    && l->n && l->v[l->n - 1].kind == OFFCODE_NODE_CONTAINER)
			return entry_as_text(l, n);
	}
	/* An archive member that closed with nothing under it is not shown
	 * (ls_shown): its item goes at once, so a library of many members
	 * costs memory only for what is printed. */
	while (l->n > 1 && hidden_member(&l->v[l->n - 1], n->depth))
		item_free(&l->v[--l->n]);
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct ls_item *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	it = &l->v[l->n];
	if (fill(l, it, n) < 0) {
		item_free(it);
		return -1;
	}
	l->n++;
	if (rs->kernels && n->kind == OFFCODE_NODE_ENTRY && n->code)
		return ls_text_kernels_row(it) ? ls_code_kernels(it->k, n->code,
							 (size_t)n->code_size)
					      : -1;
	return 0;
}

/* ---- the tree, printed ---- */

bool ls_text_has_children(const struct ls_list *l, size_t i)
{
	return (l->v[i].text && l->v[i].text->n) ||
	       (i + 1 < l->n && l->v[i + 1].depth > l->v[i].depth);
}

void ls_text_drop_unselected(struct ls_list *l)
{
	for (size_t i = l->n; i-- > 0;) {
		struct ls_item *it = &l->v[i];

		if ((it->kind != OFFCODE_NODE_SECTION &&
		     it->kind != OFFCODE_NODE_CONTAINER) ||
		    ls_text_has_children(l, i))
			continue;
		item_free(it);
		memmove(it, it + 1, (l->n - i - 1) * sizeof(*it));
		l->n--;
	}
}

/* Members without offload code are left out (a static library has many);
 * a thin archive's members, which are not read, are shown. */
static bool shown(const struct ls_list *l, size_t i)
{
	const struct ls_item *it = &l->v[i];

	return !(it->kind == OFFCODE_NODE_INPUT && it->depth > 0 &&
		 !it->archive && !it->thin && !ls_text_has_children(l, i));
}

/* Entry lines kept as text, printed in their columns. */
static void print_entry_text(const struct entry_text *t, int indent)
{
	const char *s = t->buf;

	for (size_t k = 0; k < t->n; k++) {
		printf("%*s", indent, "");
		for (int c = 0; c < t->ncells; c++) {
			if (c == t->ncells - 1)
				printf("%s\n", s);
			else if (c == t->right)
				printf("%*s  ", (int)t->w[c], s);
			else
				printf("%-*s  ", (int)t->w[c], s);
			s += strlen(s) + 1;
		}
		if (t->tails) {
			fputs(s, stdout);
			s += strlen(s) + 1;
		}
	}
}

/* The entries of the container at l->v[i], aligned in columns. */
static void print_entries(const struct ls_list *l, size_t i, int indent)
{
	size_t n = l->v[i].entries, w[MAX_CELLS] = { 0 };

	if (l->v[i].text) {
		print_entry_text(l->v[i].text, indent);
		return;
	}
	for (size_t k = 0; k < n && i + 1 + k < l->n; k++) {
		const struct ls_item *e = &l->v[i + 1 + k];

		for (int c = 0; c < e->ncells; c++)
			if (e->cell[c] && strlen(e->cell[c]) > w[c])
				w[c] = strlen(e->cell[c]);
	}
	for (size_t k = 0; k < n && i + 1 + k < l->n; k++) {
		const struct ls_item *e = &l->v[i + 1 + k];

		printf("%*s", indent, "");
		for (int c = 0; c < e->ncells; c++) {
			const char *s = e->cell[c] ? e->cell[c] : "?";

			if (c == e->ncells - 1)
				printf("%s\n", s);
			else if (c == e->right)
				printf("%*s  ", (int)w[c], s);
			else
				printf("%-*s  ", (int)w[c], s);
		}
		if (e->k)
			ls_print_code_kernels(stdout, l->rs, e->k, indent + 2);
	}
}

/* What a raw file's containers are, when all are of one kind. */
static void raw_kind(const struct ls_list *l, size_t i)
{
	const char *kind = NULL;

	for (size_t k = i + 1; k < l->n && l->v[k].depth > l->v[i].depth; k++) {
		if (l->v[k].kind != OFFCODE_NODE_CONTAINER)
			continue;
		if (kind && strcmp(kind, l->v[k].what))
			return;
		kind = l->v[k].what;
	}
	if (kind)
		printf(" (%s)", kind);
}

static void print_input(const struct ls_list *l, size_t i, const char *path)
{
	const struct ls_item *it = &l->v[i];
	const struct rows *rs = l->rs;
	char *name = applet_escape(it->depth ? it->name : path,
				   it->depth ? it->name_len : strlen(path),
				   false);

	printf("%*s%s%s: %s", 2 * it->depth, "", it->depth ? "member " : "",
	       name ? name : "?", it->words);
	free(name);
	if (!strcmp(it->words, "offload data"))
		raw_kind(l, i);
	if (it->k && (it->k->list || it->k->error))
		ls_describe_code(it->k);
	else if (!ls_text_has_children(l, i) && !it->thin)
		fputs(rs->targets && rs->targets->n ? ": nothing selected"
						    : ": no offload code", stdout);
	putchar('\n');
	if (rs->kernels && it->k)
		ls_print_code_kernels(stdout, rs, it->k, 2 * (it->depth + 1));
}

void ls_text(const struct ls_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ls_item *it = &l->v[i];
		char *name;

		if (!shown(l, i))
			continue;
		switch (it->kind) {
		case OFFCODE_NODE_INPUT:
			print_input(l, i, path);
			break;
		case OFFCODE_NODE_SECTION:
			name = applet_escape(it->name, it->name_len, false);
			printf("%*ssection [%u] %s: offset %" PRIu64 ", %" PRIu64
			       " bytes\n", 2 * it->depth, "", it->number,
			       name ? name : "?", it->offset, it->size);
			free(name);
			break;
		case OFFCODE_NODE_CONTAINER:
			printf("%*s%s #%u%s\n", 2 * it->depth, "", it->format,
			       it->number, it->summary ? it->summary : "");
			print_entries(l, i, 2 * (it->depth + 1));
			break;
		case OFFCODE_NODE_ENTRY:
		case OFFCODE_NODE_CONTAINER_END:
			break;
		}
	}
}
