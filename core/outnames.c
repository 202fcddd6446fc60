/* outnames: the names of the files one command writes; see outnames.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outnames.h"

static int take(struct outnames *nm, char *name)
{
	if (nm->n == nm->cap) {
		size_t cap = nm->cap ? 2 * nm->cap : 64;
		char **v = realloc(nm->v, cap * sizeof(*v));

		if (!v)
			return -1;
		nm->v = v;
		nm->cap = cap;
	}
	if (strmap_set(&nm->taken, name, strlen(name), 2) < 0)
		return -1;
	nm->v[nm->n++] = name;
	return 0;
}

char *outnames_unique(struct outnames *nm, char *name)
{
	uint32_t i = strmap_find(&nm->taken, name, strlen(name));
	const char *dot = strrchr(name, '.');
	size_t stem = dot ? (size_t)(dot - name) : strlen(name);
	size_t k, cap = strlen(name) + 24;
	char *alt = NULL;

	if (i == nm->taken.nb) {
		if (take(nm, name) < 0) {
			free(name);
			return NULL;
		}
		return name;
	}
	for (k = nm->taken.b[i].value;; k++) {
		free(alt);
		if (!(alt = malloc(cap)))
			break;
		snprintf(alt, cap, "%.*s-%zu%s", (int)stem, name, k,
			 name + stem);
		if (strmap_find(&nm->taken, alt, strlen(alt)) == nm->taken.nb)
			break;
	}
	/* Before take(), which may move the buckets. */
	nm->taken.b[i].value = k + 1;
	free(name);
	if (alt && take(nm, alt) < 0) {
		free(alt);
		alt = NULL;
	}
	return alt;
}

void outnames_free(struct outnames *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	strmap_free(&nm->taken);
	memset(nm, 0, sizeof(*nm));
}
