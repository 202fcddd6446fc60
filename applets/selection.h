/* selection: what the inspecting applets (ls, extract, unpack-archive,
 * prune) share about -t/--target, the one target selection of
 * core/select.h: an entry as selection sees it, and the line said for a
 * pattern that took nothing. */
#ifndef APPLETS_SELECTION_H
#define APPLETS_SELECTION_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/select.h"
#include "../ops/inspect.h"

/* An entry of the inspection walk as selection sees it: its bundle ID
 * (for a package entry one made the bundler's way,
 * <kind>-<triple>-<target ID>; for an NVIDIA entry its arch as ls shows
 * it, "sm_80"), its target ID or arch (an NVIDIA PTX entry as nvcc's
 * code= and nvprune name it, "compute_80"; cuobjdump says sm_80), its
 * triple. */
struct applet_entry {
	struct select_entry en;
	char *id;			/* malloc'd: en.id */
	char nv_arch[24];
};

/* Fill ae from n: -1 when out of memory. */
/* a[0, alen) + sep + b[0, blen), NUL-terminated, malloc'd (NULL when out
 * of memory). */
char *applet_cat(const char *a, size_t alen, const char *sep, const char *b,
		 size_t blen);
int applet_entry_of(struct applet_entry *ae, const struct inspect_node *n);
void applet_entry_free(struct applet_entry *ae);

/* For each rule of s no entry matched, one line:
 *   offload <applet>: error: ['<file>': ]no code object matches <option>
 *   '<rule>' (there: gfx90a:xnack+, gfx1100)
 * naming the device targets s was shown ("there is no device code" when
 * none).  Returns 1 if there was such a rule, else 0. */
int applet_select_unmatched(const char *applet, const char *option,
			    const char *file, const struct select *s);

#endif
