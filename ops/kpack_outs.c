/* kpack_outs: paths claimed once; see kpack_outs.h. */
#include <stdlib.h>
#include <string.h>

#include "kpack_outs.h"

int kpack_outs_claim(struct kpack_outs *o, char *rel, const char *from,
		     const char **by)
{
	size_t len = strlen(rel);
	uint32_t at = strmap_find(&o->map, rel, len);
	uint32_t dir = strmap_find(&o->dirs, rel, len);
	struct kpack_out *v;
	char *f;

	/* rel itself, or the directory of a path claimed (its value
	 * that path's number). */
	if (at == o->map.nb && dir != o->dirs.nb) {
		*by = o->v[o->dirs.b[dir].value].from;
		free(rel);
		return 1;
	}
	/* A directory above it claimed as a path. */
	for (size_t i = 0; at == o->map.nb && i < len; i++)
		if (rel[i] == '/' && (at = strmap_find(&o->map, rel, i)) !=
		    o->map.nb)
			break;
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
	if (strmap_set(&o->map, rel, len, o->n) < 0) {
		free(f);
		free(rel);
		return -1;
	}
	o->n++;
	/* (v[n - 1] owns rel now: freed with o whatever follows) */
	for (size_t i = 0; i < len; i++)
		if (rel[i] == '/' && strmap_find(&o->dirs, rel, i) == o->dirs.nb &&
		    strmap_set(&o->dirs, rel, i, o->n - 1) < 0)
			return -1;
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
	strmap_free(&o->dirs);
	memset(o, 0, sizeof(*o));
}
