/* select: the one target selection of the inspection applets (ls, extract,
 * unpack-archive, prune): which code objects a user's words mean.
 *
 * A rule is one of
 *   - a glob (has *, ? or [): fnmatch on the entry's bundle ID, its target
 *     ID or arch ("gfx90a:xnack+", "sm_80") and its triple;
 *   - a whole bundle ID (four dashes or more): loadable by the bundle
 *     rules of target_loadable;
 *   - a target ID ("gfx90a", "gfx90a:xnack+", "sm_80"): what a GPU of that
 *     ID loads: the same processor with no feature set the other way
 *     (targetid_loadable; "gfx90a" takes both xnack variants), or a
 *     generic processor that serves it (gfx11-generic for gfx1100, as
 *     LLVM's AMDGPUUsage "AMDGPU Generic Processors" table lists them);
 *     for NVIDIA ("sm_86"), what the CUDA driver runs on a GPU of that
 *     compute capability: SASS ("sm_80") of the same major version and a
 *     minor no higher, arch-specific code ("sm_90a", "compute_90a") on
 *     that version alone, family code ("sm_100f") on the family's later
 *     members, and PTX ("compute_80") of any version no higher; an
 *     arch with nvcc's variant letter ("sm_90a", "sm_103f") names code,
 *     not a GPU: the code built for it (SASS and PTX) and nothing else.
 * A target ID of an AMD processor also takes AMD SPIR-V (amdgcnspirv),
 * which every AMD GPU compiles at load time.  With exact set (below),
 * names are compared instead.
 *
 * The selection also notes the device targets it was shown, so that an
 * applet can name them when a rule took nothing (select_seen_text). */
#ifndef CORE_SELECT_H
#define CORE_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

struct select_rule {
	char *text;
	bool glob, bundle_id;
	bool hit;		/* some entry matched it */
};

struct select {
	struct select_rule *rule;
	size_t n;
	/* Rules that are not globs take the entries of that very name, not
	 * what a GPU of it loads: a target ID or NVIDIA arch equal to the
	 * rule ("sm_80" the sm_80 SASS alone, "compute_80" that PTX alone,
	 * "gfx90a" neither gfx90a:xnack+ nor gfx90a:xnack-), a bundle ID
	 * equal to it.  nvprune's rule (prune --exact). */
	bool exact;
	char **seen;		/* device targets shown to select_match */
	size_t nseen;
};

/* What selection sees of an entry; any string may be NULL (lengths then
 * 0).  Strings need not be NUL-terminated and are compared whole (an ID
 * with a NUL inside matches only rules with the same bytes). */
struct select_entry {
	const char *id, *arch, *triple;
	size_t id_len, arch_len, triple_len;
	bool host;		/* a host entry: never device code */
};

/* The entry of a bundle ID, split as the bundler splits it:
 * <kind>-<four triple parts>[-<target ID>]; an empty environment is left
 * out of the triple ("amdgcn-amd-amdhsa").  The strings point into id. */
void select_entry_from_id(struct select_entry *en, const char *id,
			  size_t len);

/* Add the comma-separated rules of list.  An empty rule is an error. */
int select_add(struct select *s, const char *list, struct err *e);
void select_free(struct select *s);
/* Every rule that is a target ID (not a glob, not a bundle ID) must be
 * one a GPU can have: an NVIDIA arch nv_parse reads ("sm_86",
 * "compute_90a") or a known processor with features it accepts
 * (targetid_check_request).  -1 names the first that is not. */
int select_check_ids(const struct select *s, struct err *e);
/* Forget which rules matched and the targets seen: a fresh start. */
void select_reset(struct select *s);

/* Whether any rule takes the entry; marks the rules that do. */
bool select_match(struct select *s, const struct select_entry *en);

/* The device targets select_match was shown, in order of first
 * appearance, comma-separated ("gfx90a:xnack+, gfx1100, sm_80"): malloc'd,
 * "" when there were none, NULL when out of memory.  Unprintable bytes
 * come out as '?'. */
char *select_seen_text(const struct select *s);

/* Entries any GPU may load whatever it is: SPIR-V (amdgcnspirv, spirv*
 * triples), compiled by the driver at load time. */
bool select_is_portable(const struct select_entry *en);

#endif
