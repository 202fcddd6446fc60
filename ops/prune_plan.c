/* prune_plan: what a prune of a file changes, planned through the table
 * of host formats (hosts.h); see prune_plan.h.  The formats' plans are
 * prune.c's, prune_coff.c's and prune_bitcode.c's. */
#include <stdlib.h>
#include <string.h>

#include "../formats/package.h"
#include "hosts.h"
#include "inspect.h"
#include "prune.h"
#include "prune_impl.h"
#include "prune_plan.h"
#include "prune_shrink.h"

/* The file, or an archive's member (p->member): one without offload code
 * (a host object) stays in its archive. */
static int plan_buffer(struct pruner *p, const uint8_t *buf, size_t len)
{
	enum host_format f;
	int rc;

	p->section = NULL;
	if (!hosts_probe(buf, len, &f))
		return p->member ? 0 : hosts_none(p->e);
	rc = hosts_get(f)->prune(p, buf, len);
	if (rc < 0 && p->member && p->e->code == ERR_NOTHING)
		return 0;
	return rc;
}

/* What the walk of ls, extract and du finds wrong with the file, when it
 * finds something, is prune's diagnosis too (inspect_diagnose): prune's
 * own reason stays when the headers are whole (damage only inflating
 * finds, or a file prune does not rewrite). */
static void diagnose(const uint8_t *buf, size_t len,
		     const struct prune_opts *o, struct err *e)
{
	struct inspect_opts w = {
		.ccob = o->limits,
		.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
			     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
	};

	if (e->code != ERR_NOTHING && e->code != ERR_NOMEM)
		(void)inspect_diagnose(buf, len, &w, e);
}

static int by_offset(const void *a, const void *b)
{
	const struct prune_patch *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Sections may come in any order in the section table, and two may name
 * the same bytes: the patches are written in file order, never twice. */
static int order_patches(struct prune_plan *plan, struct err *e)
{
	if (plan->n > 1)
		qsort(plan->patch, plan->n, sizeof(*plan->patch), by_offset);
	for (size_t i = 1; i < plan->n; i++)
		if (plan->patch[i].offset <
		    plan->patch[i - 1].offset + plan->patch[i - 1].old_size)
			return err_code_set(e, ERR_MALFORMED, "offload code at "
					    "offset %llu overlaps what comes "
					    "before it (two sections over the "
					    "same bytes?)",
					    (unsigned long long)
					    plan->patch[i].offset);
	return 0;
}

int prune_plan(const uint8_t *buf, size_t len, const struct prune_opts *o,
	       struct prune_plan *plan, struct err *e)
{
	struct pruner p = { .o = o, .plan = plan, .e = e,
			    .plan_member = plan_buffer, .file_len = len };
	int rc;

	memset(plan, 0, sizeof(*plan));
	plan->size_before = plan->size_after = len;
	rc = plan_buffer(&p, buf, len);
	plan->spool = p.spool;	/* the plan's pieces point into it */
	if (rc < 0 || order_patches(plan, e) < 0) {
		diagnose(buf, len, o, e);
		prune_plan_free(plan);
		return -1;
	}
	for (size_t i = 0; i < plan->n; i++) {
		uint64_t freed = plan->patch[i].old_size -
				 plan->patch[i].new_size;

		if (plan->patch[i].in_place)
			plan->zeroed += freed;
		else
			plan->size_after -= freed;
	}
	if (!plan->nmember && !plan->ndrop && !plan->nadd && !o->keep_layout &&
	    prune_plan_shrink(buf, len, plan, o, e) < 0) {
		prune_plan_free(plan);
		return -1;
	}
	return 0;
}

