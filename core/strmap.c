/* strmap: the iteration order of LLVM's StringMap. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "strmap.h"

/* LLVM 23 probes 1, 1, 1... buckets on (strmap_linear_probing). */
static bool linear;

void strmap_linear_probing(bool on)
{
	linear = on;
}

static int grow(struct strmap *m, uint32_t nb)
{
	struct strmap_bucket *nbk = calloc(nb, sizeof(*nbk));

	if (!nbk)
		return -1;
	/* Rehash in old bucket order; tombstones are dropped. */
	for (uint32_t i = 0; i < m->nb; i++) {
		uint32_t j, probe = 1;

		if (m->b[i].state != STRMAP_LIVE)
			continue;
		j = m->b[i].hash & (nb - 1);
		while (nbk[j].state != STRMAP_EMPTY)
			j = (j + (linear ? 1 : probe++)) & (nb - 1);
		nbk[j] = m->b[i];
	}
	free(m->b);
	m->b = nbk;
	m->nb = nb;
	m->tombs = 0;
	return 0;
}

int strmap_set(struct strmap *m, const char *key, size_t len, size_t value)
{
	uint32_t hash = (uint32_t)XXH3_64bits(key, len);
	uint32_t i, probe = 1;
	int64_t tomb = -1;

	if (!m->nb && grow(m, 16) < 0)
		return -1;
	i = hash & (m->nb - 1);
	for (;;) {
		struct strmap_bucket *b = &m->b[i];

		if (b->state == STRMAP_EMPTY)
			break;
		if (b->state == STRMAP_TOMB) {
			if (tomb < 0)
				tomb = i;
		} else if (b->hash == hash && b->len == len &&
			   !memcmp(b->key, key, len)) {
			b->value = value;
			return 0;
		}
		i = (i + (linear ? 1 : probe++)) & (m->nb - 1);
	}
	if (tomb >= 0) {
		i = (uint32_t)tomb;
		m->tombs--;
	}
	m->b[i] = (struct strmap_bucket){ key, len, value, hash, STRMAP_LIVE };
	m->items++;
	if (m->items * 4 > m->nb * 3)
		return grow(m, m->nb * 2);
	if (m->nb - (m->items + m->tombs) <= m->nb / 8)
		return grow(m, m->nb);
	return 0;
}

uint32_t strmap_find(const struct strmap *m, const char *key, size_t len)
{
	uint32_t hash = (uint32_t)XXH3_64bits(key, len);
	uint32_t i, probe = 1;

	if (!m->nb)
		return 0;
	i = hash & (m->nb - 1);
	while (m->b[i].state != STRMAP_EMPTY) {
		if (m->b[i].state == STRMAP_LIVE && m->b[i].hash == hash &&
		    m->b[i].len == len && !memcmp(m->b[i].key, key, len))
			return i;
		i = (i + (linear ? 1 : probe++)) & (m->nb - 1);
	}
	return m->nb;
}

void strmap_erase(struct strmap *m, uint32_t i)
{
	m->b[i].state = STRMAP_TOMB;
	m->items--;
	m->tombs++;
}

uint32_t strmap_next(const struct strmap *m, uint32_t i)
{
	while (i < m->nb && m->b[i].state != STRMAP_LIVE)
		i++;
	return i;
}

void strmap_free(struct strmap *m)
{
	free(m->b);
	memset(m, 0, sizeof(*m));
}
