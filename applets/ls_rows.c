/* ls_rows: what the text and JSON printers ask of the rows ls.c gathers. */
#include "ls.h"

/* Whether row i has anything under it: rows, or entries kept as text. */
bool ls_has_children(const struct rows *rs, size_t i)
{
	return (rs->v[i].text && rs->v[i].text->n) ||
	       (i + 1 < rs->n && rs->v[i + 1].n.depth > rs->v[i].n.depth);
}

/* Members without offload code are left out (a static library has many);
 * a thin archive's members, which are not read, are shown. */
bool ls_shown(const struct rows *rs, size_t i)
{
	const struct inspect_node *n = &rs->v[i].n;

	return !(n->kind == INSPECT_INPUT && n->depth > 0 &&
		 n->format != INSPECT_ARCHIVE &&
		 n->format != INSPECT_THIN_MEMBER && !ls_has_children(rs, i));
}
