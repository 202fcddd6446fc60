/* kpack_outs: paths claimed once; see kpack_outs.h. */
#include <stdlib.h>
#include <string.h>

#include "kpack_outs.h"

int kpack_outs_claim(struct kpack_outs *o, char *rel, const char *from,
		     const char **by)
{
	uint32_t at = strmap_find(&o->map, rel, strlen(rel));
	struct kpack_out *v;
	char *f;

	if (at != o->map.nb) {
		*by = o->v[o->map.b[at].value].from;
		free(rel);
		return 1;
	}
	if (!(f = strdup(from)) ||
	    !(v = realloc(o->v, (o->n + 1) * sizeof(*v)))) {
		free(f);
		free(rel);
		return -1;
	}
	o->v = v;
	v[o->n] = (struct kpack_out){ rel, f };
	if (strmap_set(&o->map, rel, strlen(rel), o->n) < 0) {
		free(f);
		free(rel);
		return -1;
	}
	o->n++;
	return 0;
}

void kpack_outs_free(struct kpack_outs *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].rel);
		free(o->v[i].from);
	}
	free(o->v);
	strmap_free(&o->map);
	memset(o, 0, sizeof(*o));
}
