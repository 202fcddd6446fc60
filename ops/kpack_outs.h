/* kpack_outs: the paths a kpack command writes in its output directory,
 * each claimed once, so that two inputs that would go to one path are an
 * error, not one silently written over the other (kpack split's
 * prefixes, GPUs and database files; kpack join's artifacts). */
#ifndef OPS_KPACK_OUTS_H
#define OPS_KPACK_OUTS_H

#include <stddef.h>

#include "../core/strmap.h"

struct kpack_outs {
	struct strmap map;	/* keys are the rels of v */
	struct strmap dirs;	/* the directories above them: keys are
				 * beginnings of the rels of v, values
				 * the number of a path under each */
	struct kpack_out {
		char *rel;	/* the path in the output directory */
		char *from;	/* what goes there, for messages */
	} *v;
	size_t n;
};

/* rel (malloc'd, taken over) claimed for from: 0; 1 when it was claimed
 * before, or a directory above it was, or it is one above a path claimed
 * (a file under a link, written through it), *by then naming what for
 * (rel freed); -1 when out of memory (rel freed). */
int kpack_outs_claim(struct kpack_outs *o, char *rel, const char *from,
		     const char **by);
void kpack_outs_free(struct kpack_outs *o);

#endif
