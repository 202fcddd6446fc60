/* densemap: LLVM's DenseMap<StringRef> bucket placement; see densemap.h. */
#include <stdlib.h>
#include <string.h>

#include "densemap.h"
#include "llvmhash.h"

static uint32_t home(const char *key, size_t len, uint32_t nb, bool llvm23)
{
	return (uint32_t)(llvm23 ? llvmhash23_bytes(key, len)
				 : llvmhash_bytes(key, len)) & (nb - 1);
}

uint32_t densemap_find(const struct densemap *m, const char *key, size_t len)
{
	uint32_t i, probe = 1;

	if (!m->nb)
		return 0;
	for (i = home(key, len, m->nb, m->llvm23); m->b[i].used;
	     i = (i + (m->llvm23 ? 1 : probe++)) & (m->nb - 1))
		if (m->b[i].len == len && !memcmp(m->b[i].key, key, len))
			return i;
	return m->nb;
}

/* The first free bucket on key's probe path (the key is absent). */
static uint32_t free_slot(const struct densemap_bucket *b, uint32_t nb,
			  const char *key, size_t len, bool llvm23)
{
	uint32_t i, probe = 1;

	for (i = home(key, len, nb, llvm23); b[i].used;
	     i = (i + (llvm23 ? 1 : probe++)) & (nb - 1))
		;
	return i;
}

static int grow(struct densemap *m)
{
	uint32_t nb = m->nb ? 2 * m->nb : 64;
	struct densemap_bucket *b = calloc(nb, sizeof(*b));

	if (!b)
		return -1;
	for (uint32_t i = 0; i < m->nb; i++)
		if (m->b[i].used)
			b[free_slot(b, nb, m->b[i].key, m->b[i].len, m->llvm23)] = m->b[i];
	free(m->b);
	m->b = b;
	m->nb = nb;
	return 0;
}

int densemap_insert(struct densemap *m, const char *key, size_t len,
		    size_t value)
{
	uint32_t i;

	/* LLVM grows first when the new entry would fill 3/4 of the table. */
	if ((uint64_t)(m->n + 1) * 4 >= (uint64_t)m->nb * 3 && grow(m) < 0)
		return -1;
	i = free_slot(m->b, m->nb, key, len, m->llvm23);
	m->b[i] = (struct densemap_bucket){ key, len, value, true };
	m->n++;
	return 0;
}

void densemap_free(struct densemap *m)
{
	bool llvm23 = m->llvm23;

	free(m->b);
	*m = (struct densemap){ .llvm23 = llvm23 };
}
