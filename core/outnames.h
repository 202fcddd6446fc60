/* outnames: the names of the files one command writes, each once. */
#ifndef CORE_OUTNAMES_H
#define CORE_OUTNAMES_H

#include <stddef.h>

#include "strmap.h"

/* A name taken again gets name-2.ext, name-3.ext, ... (the first one not
 * taken).  A taken name remembers the next k to try from it, so n outputs
 * of one name cost O(n), not O(n^2).  Zero-initialise. */
struct outnames {
	struct strmap taken;	/* keys are the strings of v */
	char **v;
	size_t n, cap;
};

/* name (malloc'd, taken over) if not taken yet, else the first
 * name-k.ext that is not; the result belongs to names.  NULL when out of
 * memory. */
char *outnames_unique(struct outnames *names, char *name);
void outnames_free(struct outnames *names);

#endif
