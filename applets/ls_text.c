/* ls_text: the ls applet's text listing (the default format): a tree of
 * files, sections and containers, the entries of each in columns. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "ls_kernels.h"
#include "ls_rows.h"
#include "ls_text.h"
#include "../ops/inspect_names.h"
#include "../ops/kinds.h"
#include "../core/uri.h"
#include "../formats/kpack.h"
#include "../ops/host.h"
#include "../ops/inspect.h"

enum { MAX_CELLS = LS_MAX_CELLS };
_Static_assert(KIND_CELLS + 2 <= MAX_CELLS, "a kind's cells, the size, "
	       "the place");

/* One entry line: cells, the size one right-aligned. */
struct line {
	char *cell[MAX_CELLS];
	int ncells, right;
};

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

static char *location(const struct inspect_node *n, const char *path)
{
	const struct kind *k = kinds_get(n->container);
	char buf[96];

	if (n->in_file)
		return uri_file(path, n->offset, n->size);
	if (n->in_bitcode)
		return strdup("(in bitcode)");
	if (k->where && k->where(n, buf, sizeof(buf)))
		return strdup(buf);
	return strdup("(compressed)");
}

/* The entry's columns: what names it (its kind's row says which), its
 * size and where it is. */
static void entry_line(const struct inspect_node *n, const char *path,
		       struct line *l)
{
	struct inspect_target t;
	struct kind_cells c;
	int k = 0;

	inspect_entry_target(n, &t);
	kinds_entry_cells(n, &t, &c);
	memset(l, 0, sizeof(*l));
	for (unsigned i = 0; i < c.n; i++)
		l->cell[k++] = dup_text(c.v[i].s, c.v[i].len);
	l->right = k;
	l->cell[k++] = fmt_u64(n->size);
	l->cell[k++] = location(n, path);
	l->ncells = k;
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
			      const struct inspect_node *n, int indent)
{
	struct row r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc = -1;

	if (ls_row_fill(&r, n) < 0)
		return -1;
	if (ls_entry_kernels(&r, n) < 0)
		goto out;
	if (!(f = open_memstream(&text, &len)))
		goto out;
	ls_print_kernels(f, rs, &r, indent);
	if (fclose(f) == 0 && text_add(t, text, len) == 0)
		rc = 0;
	if (r.kernels_why && rs->later) {
		char *why = ls_kernels_unread(&r);

		fprintf(rs->later, "offload ls: error: cannot read kernels in "
			"'%s': %s\n", rs->path, why ? why : "out of memory");
		free(why);
	}
out:
	free(text);
	ls_row_free(&r);
	return rc;
}

/* Format the entry n of the container last kept into that container's
 * text (see struct entry_text). */
int ls_entry_as_text(struct rows *rs, const struct inspect_node *n)
{
	struct row *c = &rs->v[rs->n - 1];
	struct entry_text *t = c->text;
	struct line l;
	int rc = 0;

	if (!t && !(t = c->text = calloc(1, sizeof(*t))))
		return -1;
	entry_line(n, rs->path, &l);
	t->ncells = l.ncells;
	t->right = l.right;
	for (int k = 0; k < l.ncells; k++) {
		const char *s = l.cell[k] ? l.cell[k] : "?";
		size_t len = strlen(s);

		if (len > t->w[k])
			t->w[k] = len;
		if (!rc)
			rc = text_add(t, s, len);
		free(l.cell[k]);
	}
	t->n++;
	if (!rc && rs->kernels) {
		t->tails = true;
		rc = entry_kernels_text(rs, t, n, 2 * (int)n->depth + 2);
	}
	return rc;
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

/* The entries of the container at rs->v[i], aligned in columns. */
static void print_entries(const struct rows *rs, size_t i, const char *path,
			  int indent)
{
	size_t n = rs->v[i].n.entries, w[MAX_CELLS] = { 0 };
	struct line *l;

	if (rs->v[i].text) {
		print_entry_text(rs->v[i].text, indent);
		return;
	}
	if (!(l = calloc(n ? n : 1, sizeof(*l))))
		return;
	for (size_t k = 0; k < n && i + 1 + k < rs->n; k++) {
		entry_line(&rs->v[i + 1 + k].n, path, &l[k]);
		for (int c = 0; c < l[k].ncells; c++)
			if (l[k].cell[c] && strlen(l[k].cell[c]) > w[c])
				w[c] = strlen(l[k].cell[c]);
	}
	for (size_t k = 0; k < n && i + 1 + k < rs->n; k++) {
		printf("%*s", indent, "");
		for (int c = 0; c < l[k].ncells; c++) {
			const char *s = l[k].cell[c] ? l[k].cell[c] : "?";

			if (c == l[k].ncells - 1)
				printf("%s\n", s);
			else if (c == l[k].right)
				printf("%*s  ", (int)w[c], s);
			else
				printf("%-*s  ", (int)w[c], s);
			free(l[k].cell[c]);
		}
		ls_print_kernels(stdout, rs, &rs->v[i + 1 + k], indent + 2);
	}
	free(l);
}

/* What a raw file's containers are, when all are of one kind. */
static void raw_kind(const struct rows *rs, size_t i)
{
	int kind = -1;

	for (size_t k = i + 1; k < rs->n && rs->v[k].n.depth > rs->v[i].n.depth;
	     k++) {
		if (rs->v[k].n.kind != INSPECT_CONTAINER)
			continue;
		if (kind >= 0 && kind != (int)rs->v[k].n.container)
			return;
		kind = (int)rs->v[k].n.container;
	}
	if (kind >= 0)
		printf(" (%s)", fatbin_codecs[kind]->what);
}

static void print_input(const struct rows *rs, size_t i, const char *path)
{
	const struct inspect_node *n = &rs->v[i].n;
	char *name = applet_escape(n->depth ? n->name : path,
				   n->depth ? n->name_len : strlen(path), false);

	printf("%*s%s%s: ", 2 * n->depth, "", n->depth ? "member " : "",
	       name ? name : "?");
	free(name);
	switch (n->format) {
	case INSPECT_ELF:
	case INSPECT_COFF:
	case INSPECT_PE: {
		struct inspect_host_header h;
		char words[96];

		inspect_host_header(n, &h);
		inspect_host_words(&h, words, sizeof(words));
		fputs(words, stdout);
		break;
	}
	case INSPECT_ARCHIVE:
		fputs("archive", stdout);
		break;
	case INSPECT_RAW:
		fputs("offload data", stdout);
		raw_kind(rs, i);
		break;
	case INSPECT_THIN_MEMBER:
		fputs("thin archive member (not read)", stdout);
		break;
	case INSPECT_TEXT:
		fputs(n->ld_script ? "linker script" : "text", stdout);
		break;
	case INSPECT_HOST:
		fputs(n->host->ls_word, stdout);
		break;
	default:
		fputs(n->size ? "other data" : "empty", stdout);
		break;
	}
	if (rs->v[i].kernels || rs->v[i].kernels_why)
		ls_describe_code(&rs->v[i]);
	else if (!ls_has_children(rs, i) && n->format != INSPECT_THIN_MEMBER)
		fputs(rs->targets && rs->targets->n ? ": nothing selected"
						    : ": no offload code", stdout);
	putchar('\n');
	if (rs->kernels)
		ls_print_kernels(stdout, rs, &rs->v[i], 2 * (n->depth + 1));
}

static void print_container(const struct inspect_node *n)
{
	char tail[256];

	kinds_summary(n, tail, sizeof(tail));
	printf("%*s%s #%u%s\n", 2 * n->depth, "", kinds_name(n->container),
	       n->number, tail);
}

void ls_text(const struct rows *rs, const char *path)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct inspect_node *n = &rs->v[i].n;
		char *name;

		if (!ls_shown(rs, i))
			continue;
		switch (n->kind) {
		case INSPECT_INPUT:
			print_input(rs, i, path);
			break;
		case INSPECT_SECTION:
			name = applet_escape(n->name, n->name_len, false);
			printf("%*ssection [%u] %s: offset %" PRIu64 ", %" PRIu64
			       " bytes\n", 2 * n->depth, "", n->section_index,
			       name ? name : "?", n->offset, n->size);
			free(name);
			break;
		case INSPECT_CONTAINER:
			print_container(n);
			print_entries(rs, i, path, 2 * (n->depth + 1));
			break;
		default:
			break;
		}
	}
}
