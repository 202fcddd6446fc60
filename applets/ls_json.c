/* ls_json: the ls applet's JSON output, one object per file; the schema
 * is in man/offload-ls.1 and changes only with its version number. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_json.h"
#include "ls_json_kpack.h"
#include "ls_json_node.h"
#include "ls_json_put.h"
#include "ls_kernels.h"
#include "ls_kpack.h"
#include "ls_rows.h"
#include "../ops/inspect_names.h"
#include "../ops/kinds.h"
#include "../core/err.h"
#include "../core/json.h"
#include "../core/uri.h"
#include "../formats/kpack.h"

/* ---- the stream: each node printed as the walk gives it ---- */

/* The arrays under each kind of node, in the order they are printed. */
enum { MAX_ARRAYS = 2 };
static int arrays_of(const struct inspect_node *n, const char **key)
{
	switch (n->kind) {
	case INSPECT_INPUT:
		switch (n->format) {
		case INSPECT_ELF:
		case INSPECT_COFF:
		case INSPECT_PE:
			key[0] = "sections";
			key[1] = "containers";
			return 2;
		case INSPECT_RAW:
		case INSPECT_HOST:
			key[0] = "containers";
			return 1;
		case INSPECT_ARCHIVE:
			key[0] = "members";
			return 1;
		default:
			return 0;
		}
	case INSPECT_SECTION:
		key[0] = "containers";
		return 1;
	case INSPECT_CONTAINER:
		key[0] = "entries";
		return 1;
	default:
		return 0;
	}
}

static const char *array_for(enum inspect_kind k)
{
	return k == INSPECT_SECTION ? "sections" : k == INSPECT_CONTAINER ?
	       "containers" : k == INSPECT_INPUT ? "members" : "entries";
}

/* Close the array open in l (if any), and print the empty ones before
 * the one named want (all that are left when want is NULL); open want. */
static void to_array(struct ls_json_level *l, const char *want)
{
	const char *key[MAX_ARRAYS];
	int n = arrays_of(&l->r.n, key);

	if (l->array >= 0 && want && !strcmp(key[l->array], want))
		return;
	if (l->array >= 0)
		putchar(']');
	for (int k = l->array + 1; k < n; k++) {
		json_key(&l->first, key[k]);
		putchar('[');
		l->array = k;
		l->any = false;
		if (want && !strcmp(key[k], want))
			return;
		putchar(']');
	}
}

/* A node is printed once something under it is (archive members without
 * device code are left out, and with -t sections and containers without
 * a selected entry), or at once. */
static bool deferred(const struct ls_json *js, const struct inspect_node *n)
{
	if (n->kind == INSPECT_INPUT)
		return n->depth == 0 || (n->format != INSPECT_ARCHIVE &&
					 n->format != INSPECT_THIN_MEMBER);
	return js->rs->targets && js->rs->targets->n &&
	       (n->kind == INSPECT_SECTION || n->kind == INSPECT_CONTAINER);
}

/* Print level d's opening and fields, and its parents' first. */
static void show(struct ls_json *js, size_t d)
{
	struct ls_json_level *l = &js->lv[d];

	if (l->shown)
		return;
	if (!d && js->comma)
		putchar(',');	/* after the file before */
	if (!d)
		js->printed = true;
	if (d) {
		struct ls_json_level *p = &js->lv[d - 1];

		show(js, d - 1);
		to_array(p, array_for(l->r.n.kind));
		if (p->any)
			putchar(',');
		p->any = true;
	}
	l->shown = true;
	l->first = true;
	l->array = -1;
	putchar('{');
	switch (l->r.n.kind) {
	case INSPECT_INPUT:
		ls_json_input(js->rs, &l->r, &l->first, js->path);
		break;
	case INSPECT_SECTION:
		ls_json_section(&l->r.n, &l->first);
		break;
	default:
		ls_json_container(&l->r.n, &l->first);
		break;
	}
}

static void later(struct ls_json *js, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void later(struct ls_json *js, const char *what, const char *fmt, ...)
{
	va_list ap;

	js->rc = 1;
	if (!js->errs)
		return;
	fprintf(js->errs, "offload ls: error: %s '%s': ", what, js->path);
	va_start(ap, fmt);
	vfprintf(js->errs, fmt, ap);
	va_end(ap);
	fputc('\n', js->errs);
}

/* Close the deepest level: its arrays, a CCOB's hash, what failed in it. */
static void close_level(struct ls_json *js)
{
	struct ls_json_level *l = &js->lv[--js->n];
	const struct inspect_node *n = &l->r.n;

	if (!l->shown && n->depth == 0 && js->walked) {
		/* A file that is itself a code object is described. */
		if (ls_file_kernels(&l->r, js->data, js->len) < 0)
			js->oom = true;
		show(js, 0);
	}
	if (l->shown) {
		to_array(l, NULL);
		if (n->kind == INSPECT_INPUT && n->depth == 0 &&
		    n->format == INSPECT_ELF && js->walked)
			js->rc |= ls_json_kpack(js->rs, js->path, js->data,
						 js->len, js->verify,
						 js->errs, &js->oom);
		if (n->kind == INSPECT_CONTAINER)
			ls_json_container_end(n, &l->first);
		putchar('}');
		if (n->kind == INSPECT_CONTAINER &&
		    n->hash == INSPECT_HASH_BAD) {
			char why[160];

			kinds_bad_hash(n, why, sizeof(why));
			later(js, "bad hash in", "%s", why);
		}
		if (l->bad)
			later(js, "cannot decode", "nv-fatbin #%u at offset %"
			      PRIu64 ": %zu of %zu entr%s (%s); entry %u: %s",
			      n->number, n->offset, l->bad, l->listed,
			      l->listed == 1 ? "y" : "ies", l->bad_list,
			      l->first_bad, l->first_why ? l->first_why : "?");
		if (l->r.kernels_why && js->rs->kernels) {
			char *why = ls_kernels_unread(&l->r);

			later(js, "cannot read kernels in", "%s", why ? why : "?");
			free(why);
		}
	}
	free(l->first_why);
	ls_row_free(&l->r);
}

/* An entry: printed at once, what failed in it kept for the end. */
static int print_entry(struct ls_json *js, const struct inspect_node *n)
{
	struct ls_json_level *c = js->n ? &js->lv[js->n - 1] : NULL;
	struct row r;

	if (ls_row_fill(&r, n) < 0 ||
	    (js->rs->kernels && ls_entry_kernels(&r, n) < 0))
		return -1;
	if (js->verify && n->container == FATBIN_KPACK &&
	    ls_kpack_verify_entry(js->errs, js->path, n))
		js->rc = 1;
	if (c) {
		show(js, js->n - 1);
		to_array(c, "entries");
		if (c->any)
			putchar(',');
		c->any = true;
		c->listed++;
		if (kinds_get(n->container)->entry_coded &&
		    n->hash == INSPECT_HASH_BAD) {
			size_t len = strlen(c->bad_list);

			if (!c->bad++) {
				c->first_bad = n->index;
				c->first_why = r.why ? strdup(r.why) : NULL;
			}
			if (len + 16 < sizeof(c->bad_list))
				snprintf(c->bad_list + len, sizeof(c->bad_list) - len,
					 "%s%u", len ? ", " : "", n->index);
			else if (!strstr(c->bad_list, "..."))
				strcpy(c->bad_list + len, ", ...");
		}
	}
	ls_json_entry(js->rs, &r, c ? &c->r.n : NULL, js->path, -1);
	if (r.kernels_why && js->rs->kernels) {
		char *why = ls_kernels_unread(&r);

		later(js, "cannot read kernels in", "%s", why ? why : "?");
		free(why);
	}
	ls_row_free(&r);
	return 0;
}

int ls_json_visit(void *ctx, const struct inspect_node *n)
{
	struct ls_json *js = ctx;

	if (n->update) {
		/* A streamed CCOB's hash, known after its entries (printed
		 * after them). */
		if (n->depth < js->n && js->lv[n->depth].r.n.number == n->number) {
			js->lv[n->depth].r.n.hash = n->hash;
			js->lv[n->depth].r.n.computed_hash = n->computed_hash;
		}
		return 0;
	}
	if (n->kind == INSPECT_ENTRY && !ls_wanted(js->rs, n))
		return 0;
	while (js->n > n->depth)
		close_level(js);
	if (n->kind == INSPECT_ENTRY)
		return print_entry(js, n);
	if (js->n == js->cap) {
		size_t cap = js->cap ? 2 * js->cap : 16;
		struct ls_json_level *v = realloc(js->lv, cap * sizeof(*v));

		if (!v)
			return -1;
		js->lv = v;
		js->cap = cap;
	}
	memset(&js->lv[js->n], 0, sizeof(js->lv[js->n]));
	if (ls_row_fill(&js->lv[js->n].r, n) < 0)
		return -1;
	js->n++;
	if (!deferred(js, n))
		show(js, js->n - 1);
	return 0;
}

int ls_json_end(struct ls_json *js, bool walked)
{
	/* A walk that failed after some of the file was printed leaves it
	 * valid JSON: what was read, closed. */
	js->walked = walked;
	while (js->n)
		if (walked || js->lv[0].shown)
			close_level(js);
		else
			ls_row_free(&js->lv[--js->n].r);
	free(js->lv);
	js->lv = NULL;
	return js->oom ? -1 : js->rc;
}

void ls_json_directory(const char *path)
{
	bool f = true;

	putchar('{');
	json_text(&f, "path", path, strlen(path));
	json_key(&f, "format");
	fputs("\"directory\"", stdout);
	json_u64(&f, "offset", 0);
	json_u64(&f, "size", 0);
	json_key(&f, "kernels");
	fputs("null}", stdout);
}
