/* du: what `offload du` counts of an artefact, for liboffcode
 * (include/offcode.h, "du's figures"): an entry's two sizes (kept by the
 * walk, keep.c), the names the target rules see, a file that is one
 * code object, a file of offload code alone, a split binary's kpack
 * archives. */
#include <stdlib.h>
#include <string.h>

#include "artifact_impl.h"
#include "keep.h"
#include "../ops/hosts.h"
#include "../ops/kpack_find.h"
#include "../ops/lone_code.h"

void offcode_entry_du_sizes(const offcode_entry *e, uint64_t *code,
			    uint64_t *stored)
{
	entry_need(e, ENTRY_DU);
	if (code)
		*code = e->du_code;
	if (stored)
		*stored = e->du_stored;
}

const char *offcode_entry_rule_id(const offcode_entry *e, size_t *len)
{
	entry_need(e, ENTRY_SELECT);
	if (len)
		*len = e->select_id_len;
	return e->select_id;
}

const char *offcode_entry_rule_target(const offcode_entry *e, size_t *len)
{
	entry_need(e, ENTRY_SELECT);
	if (len)
		*len = e->select_arch_len;
	return e->select_arch;
}

bool offcode_artifact_code_object(const offcode_artifact *a,
				  const char **target, const char **triple)
{
	struct lone_code *lc = a->lone;

	if (a->ncontainers || a->members || !a->lone_candidate)
		return false;
	if (!lc) {
		/* Asked once: its answer kept (the handle's, const to the
		 * caller). */
		offcode_artifact *w = (offcode_artifact *)a;

		if (artifact_file(w) || !(lc = artifact_alloc(w, sizeof(*lc))))
			return false;
		if (lone_code_of(a->data, a->len, lc) < 0)
			return false;
		w->lone = lc;
	}
	if (!lc->found)
		return false;
	if (target)
		*target = lc->name;
	if (triple)
		*triple = lc->triple;
	return true;
}

bool offcode_artifact_offload_only(const offcode_artifact *a)
{
	/* Asked once: its answer kept (the handle's, const to the caller),
	 * to be given after offcode_close_file. */
	offcode_artifact *w = (offcode_artifact *)a;

	if (!a->offload_only_known) {
		if (artifact_file(w))
			return false;
		w->offload_only = !a->members &&
				  hosts_offload_only(a->data, a->len);
		w->offload_only_known = true;
	}
	return a->offload_only;
}

int offcode_kpack_archives(offcode_artifact *a, const char *const **paths,
			   size_t *n)
{
	struct kpack_find h;
	struct err e;
	const char **v = NULL;
	bool oom = false;
	int split;

	*paths = NULL;
	*n = 0;
	if (a->members)
		return 0;
	if (a->file_closed)
		return artifact_file(a);
	if ((split = kpack_find_open(&h, a->path, a->data, a->len, &e)) < 0) {
		kpack_find_close(&h);
		return artifact_fail(a, &e);
	}
	if (split > 0 && h.na &&
	    !(v = artifact_alloc(a, h.na * sizeof(*v))))
		oom = true;
	for (size_t i = 0; split > 0 && !oom && i < h.na; i++)
		v[i] = artifact_keep(a, h.a[i].path, strlen(h.a[i].path), &oom);
	if (split > 0)
		*n = oom ? 0 : h.na;
	kpack_find_close(&h);
	if (oom)
		return artifact_fail_code(a, OFFCODE_NOMEM, "out of memory");
	*paths = v;
	return 0;
}
