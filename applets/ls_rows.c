/* ls_rows: the rows of the internal walk's nodes that kpack's lines
 * print, their kernels, and cuobjdump's -t. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_kernels.h"
#include "ls_rows.h"
#include "messages.h"
#include "selection.h"
#include "../ops/kinds.h"

int ls_row_fill(struct row *r, const struct inspect_node *n)
{
	struct kind_text d[KIND_DETAILS];
	char *p;

	r->n = *n;
	r->n.data = NULL;
	r->n.nv_base = NULL;
	r->n.decode_err = NULL;
	r->why = NULL;
	r->kernels = (struct code_kernels){ NULL, NULL };
	r->kernels_why = NULL;
	memset(r->detail, 0, sizeof(r->detail));
	memset(d, 0, sizeof(d));
	if (n->kind == INSPECT_ENTRY && kinds_get(n->container)->details)
		kinds_get(n->container)->details(n, d);
	r->strings = p = malloc(n->name_len + n->triple_len + n->arch_len +
				d[0].len + d[1].len + 5);
	if (!p)
		return -1;
	if (n->decode_err && !(r->why = strdup(n->decode_err->msg))) {
		free(r->strings);
		return -1;
	}
	/* Each copied with a NUL after it. */
	if (n->name_len)
		memcpy(p, n->name, n->name_len);
	p[n->name_len] = 0;
	r->n.name = p;
	p += n->name_len + 1;
	if (n->triple) {
		memcpy(p, n->triple, n->triple_len);
		p[n->triple_len] = 0;
		r->n.triple = p;
		p += n->triple_len + 1;
	}
	if (n->arch) {
		memcpy(p, n->arch, n->arch_len);
		p[n->arch_len] = 0;
		r->n.arch = p;
		p += n->arch_len + 1;
	}
	/* What the kind keeps of an entry beyond the walk, for --json. */
	for (size_t k = 0; k < KIND_DETAILS; k++) {
		if (!d[k].s)
			continue;
		memcpy(p, d[k].s, d[k].len);
		p[d[k].len] = 0;
		r->detail[k] = (struct kind_text){ p, d[k].len };
		p += d[k].len + 1;
	}
	return 0;
}

void ls_row_free(struct row *r)
{
	free(r->strings);
	free(r->why);
	ls_code_kernels_free(&r->kernels);
	memset(r, 0, sizeof(*r));
}

char *ls_kernels_unread(const struct row *r)
{
	const struct inspect_node *n = &r->n;
	struct inspect_target t;
	char *arch, *why = NULL;
	int len;

	if (n->kind == INSPECT_INPUT)
		return strdup(r->kernels_why);
	inspect_entry_target(n, &t);
	arch = t.arch ? applet_escape(t.arch, t.arch_len, false) : NULL;
	len = snprintf(NULL, 0, "%s #%u entry %u%s%s%s: %s",
		       kinds_name(n->container), n->number, n->index,
		       arch ? " (" : "", arch ? arch : "", arch ? ")" : "",
		       r->kernels_why);
	if (len >= 0 && (why = malloc((size_t)len + 1)))
		snprintf(why, (size_t)len + 1, "%s #%u entry %u%s%s%s: %s",
			 kinds_name(n->container), n->number,
			 n->index, arch ? " (" : "", arch ? arch : "",
			 arch ? ")" : "", r->kernels_why);
	free(arch);
	return why;
}

/* Whether -t takes the entry (all do without -t; host entries never
 * with it).  Out of memory, it is left out. */
bool ls_wanted(const struct rows *rs, const struct inspect_node *n)
{
	struct applet_entry ae;
	bool take;

	if (!rs->targets || !rs->targets->n)
		return true;
	if (applet_entry_of(&ae, n) < 0)
		return false;
	take = !ae.en.host && select_match(rs->targets, &ae.en);
	applet_entry_free(&ae);
	return take;
}

int ls_file_kernels(struct row *r, const uint8_t *data, size_t len)
{
	int rc = ls_code_kernels(&r->kernels, data, len);

	r->kernels_why = ls_kernels_why(&r->kernels);
	return rc;
}

/* The kernels of an entry's code, when it is a code object the kernel
 * readers know. */
int ls_entry_kernels(struct row *r, const struct inspect_node *n)
{
	struct entry_bytes b;

	/* ls describes what is there, a damaged CCOB's code too. */
	if (kinds_entry_bytes(n, INSPECT_HASH_UNCHECKED, &b) != ENTRY_WHOLE)
		return 0;
	return ls_file_kernels(r, b.data, (size_t)b.size);
}

void ls_print_kernels(FILE *out, const struct rows *rs, const struct row *r,
		      int indent)
{
	ls_print_code_kernels(out, rs, &r->kernels, indent);
}
