/* match: which entries a GPU's loader takes, for liboffcode
 * (include/offcode.h): the one target selection of the tool (core/select.h),
 * on each entry as ls -t sees it. */
#include <string.h>

#include "artifact_impl.h"
#include "keep.h"
#include "../core/select.h"
#include "../core/targetid.h"

int offcode_entry_matches(offcode_artifact *a, const offcode_entry *e,
			  const char *rules, unsigned flags, bool *match)
{
	struct select s = { .exact = (flags & OFFCODE_MATCH_EXACT) != 0 };
	struct select_entry en;
	struct err er;

	if (!a)
		return OFFCODE_INVALID;
	if (!artifact_owns_entry(a, e) || !rules || !match)
		return artifact_fail_code(a, OFFCODE_INVALID, "no such entry "
					  "in this artefact, or no rules");
	if (select_add(&s, rules, &er) < 0 || select_check_ids(&s, &er) < 0) {
		select_free(&s);
		/* A rule the caller got wrong (about no file). */
		return er.code == ERR_NOMEM
		       ? artifact_fail_code(a, OFFCODE_NOMEM, "out of memory")
		       : artifact_fail_code(a, OFFCODE_INVALID, er.why);
	}
	entry_need(e, ENTRY_SELECT);
	en = (struct select_entry){
		.id = e->select_id, .id_len = e->select_id_len,
		.arch = e->select_arch, .arch_len = e->select_arch_len,
		.triple = e->triple, .triple_len = e->triple_len,
		.host = e->kind && e->kind_len == 4 &&
			!memcmp(e->kind, "host", 4),
	};
	/* ls -t: host entries are never device code. */
	*match = !en.host && select_match(&s, &en);
	select_free(&s);
	return 0;
}

bool offcode_target_id_compatible(const char *target, const char *request)
{
	if (!target || !request)
		return false;
	return targetid_loadable(target, strlen(target), request,
				 strlen(request));
}
