/* selection: what the inspecting applets (ls, extract, unpack-archive,
 * prune) share about -t/--target, the one target selection of
 * core/select.h: an entry as selection sees it, and the line said for a
 * pattern that took nothing. */
#ifndef APPLETS_SELECTION_H
#define APPLETS_SELECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/select.h"

struct inspect_node;	/* ops/inspect_node.h: the walk's (applet_entry_of) */

/* An entry of the inspection walk as selection sees it: its bundle ID
 * (for a package entry one made the bundler's way,
 * <kind>-<triple>-<target ID>; for an NVIDIA entry its arch as ls shows
 * it, "sm_80"), its target ID or arch (an NVIDIA PTX entry as nvcc's
 * code= and nvprune name it, "compute_80"; cuobjdump says sm_80), its
 * triple. */
struct applet_entry {
	struct select_entry en;
	char *id;			/* malloc'd: en.id */
	char arch[24];		/* en.arch, when made (kinds_select_arch) */
};

/* Fill ae from n: -1 when out of memory. */
int applet_entry_of(struct applet_entry *ae, const struct inspect_node *n);
void applet_entry_free(struct applet_entry *ae);

/* select_add, with "native" (a whole item of the list) standing for the
 * GPUs of this machine (core/native.h): -1 with e saying no GPU was found
 * (ERR_NOTHING), or why list is bad. */
int applet_select_add(struct select *s, const char *list, struct err *e);
/* The same for an option's value: 0; 2 after a usage error's lines; 1
 * after "offload <applet>: error: <option> native: no GPU found (...)". */
int applet_select_option(const char *applet, const char *option,
			 struct select *s, const char *list);

/* Whether prune --keep/--drop keeps en (and du --keep/--drop counts it
 * kept): host entries and portable code (SPIR-V) always; else what keep
 * matches when it has rules, what drop does not match otherwise. */
bool applet_keeps(struct select *keep, struct select *drop,
		  const struct select_entry *en);

/* A file that is itself one code object (an AMDGPU code object, a cubin,
 * PTX text): 1 with en filled as selection sees it, its target ID or arch
 * ("gfx90a:xnack+" from the metadata, "sm_80", PTX as "compute_80") in
 * name; 0 when buf is none, or one that cannot be read; -1 when out of
 * memory. */
enum { APPLET_CODE_NAME = 128 };
int applet_lone_code(const uint8_t *buf, size_t len,
		     char name[APPLET_CODE_NAME], struct select_entry *en);

/* For each rule of s no entry matched, one line:
 *   offload <applet>: error: ['<file>': ]no code object matches <option>
 *   '<rule>' (there: gfx90a:xnack+, gfx1100)
 * naming the device targets s was shown ("there is no device code" when
 * none).  Returns 1 if there was such a rule, else 0. */
int applet_select_unmatched(const char *applet, const char *option,
			    const char *file, const struct select *s);

#endif
