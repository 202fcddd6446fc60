/* gather: a stream's first bytes, until a parser finds them enough; see
 * gather.h. */
#include <stdlib.h>
#include <string.h>

#include "gather.h"

enum { FIRST_TRY = 1 << 16 };

void gather_init(struct gather *g, uint64_t total)
{
	*g = (struct gather){ .next_try = FIRST_TRY, .total = total };
}

int gather_add(struct gather *g, const void *p, size_t n)
{
	if (n > g->cap - g->have) {
		size_t cap = g->cap ? g->cap : FIRST_TRY;
		uint8_t *grown;

		while (cap - g->have < n) {
			if (cap > SIZE_MAX / 2)
				return -1;
			cap *= 2;
		}
		if (!(grown = realloc(g->buf, cap)))
			return -1;
		g->buf = grown;
		g->cap = cap;
	}
	/* (An empty piece may come with p NULL.) */
	if (n)
		memcpy(g->buf + g->have, p, n);
	g->have += n;
	return g->have >= g->next_try || gather_whole(g);
}

bool gather_whole(const struct gather *g)
{
	return g->have == g->total;
}

void gather_later(struct gather *g, size_t need)
{
	g->next_try = need > 2 * g->have ? need : 2 * g->have;
}

void gather_free(struct gather *g)
{
	free(g->buf);
	*g = (struct gather){ 0 };
}
