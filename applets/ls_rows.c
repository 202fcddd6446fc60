/* ls_rows: what the text and JSON printers ask of the rows ls.c gathers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_rows.h"
#include "../ops/kinds.h"
#include "messages.h"

int ls_row_fill(struct row *r, const struct inspect_node *n)
{
	struct kind_text d[KIND_DETAILS];
	char *p;

	r->n = *n;
	r->n.data = NULL;
	r->n.nv_base = NULL;
	r->n.decode_err = NULL;
	r->why = NULL;
	r->text = NULL;
	r->kernels = NULL;
	r->kernels_why = NULL;
	r->kernels_code = ERR_OTHER;
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
	free(r->kernels_why);
	if (r->text)
		free(r->text->buf);
	free(r->text);
	if (r->kernels)
		kernels_free(r->kernels);
	free(r->kernels);
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
