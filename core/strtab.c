/* strtab: LLVM's optimised ELF string table; see strtab.h.  Written here
 * because the byte layout must match LLVM's exactly and no C library builds
 * this one (elfutils' dwelf_strtab merges tails in a different order). */
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

/* The byte pos places from the end, or -1 past the start: what LLVM's
 * radix sort compares. */
static int tail_at(const struct strtab_str *s, size_t pos)
{
	return pos < s->len ? (unsigned char)s->s[s->len - pos - 1] : -1;
}

/* Three-way radix quicksort on trailing bytes, greatest first.  Strings are
 * distinct, so any correct sort gives the same order; this one is what LLVM
 * uses and is fast on shared suffixes. */
static void sort_tails(struct strtab_str **v, size_t n, size_t pos)
{
	while (n > 1) {
		int pivot = tail_at(v[0], pos);
		size_t i = 0, j = n, k = 1;

		while (k < j) {
			int c = tail_at(v[k], pos);
			struct strtab_str *t;

			if (c > pivot) {
				t = v[i]; v[i++] = v[k]; v[k++] = t;
			} else if (c < pivot) {
				t = v[--j]; v[j] = v[k]; v[k] = t;
			} else {
				k++;
			}
		}
		sort_tails(v, i, pos);
		sort_tails(v + j, n - j, pos);
		if (pivot == -1)
			return;
		v += i;
		n = j - i;
		pos++;
	}
}

int strtab_add(struct strtab *t, const char *s, size_t len)
{
	if (strmap_find(&t->index, s, len) != t->index.nb)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct strtab_str *p = realloc(t->str, cap * sizeof(*p));

		if (!p)
			return -1;
		t->str = p;
		t->cap = cap;
	}
	if (strmap_set(&t->index, s, len, t->n) < 0)
		return -1;
	t->str[t->n++] = (struct strtab_str){ .s = s, .len = len };
	return 0;
}

int strtab_add_first(struct strtab *t, const char *s, size_t len)
{
	uint32_t b;

	if (strtab_add(t, s, len) < 0)
		return -1;
	b = strmap_find(&t->index, s, len);
	t->str[t->index.b[b].value].first = true;
	return 0;
}

int strtab_finalize(struct strtab *t)
{
	struct strtab_str **order = malloc((t->n ? t->n : 1) * sizeof(*order));
	/* LLVM starts from an empty previous string, which every string ends
	 * with: so "" always merges into the leading NUL, even when alone. */
	static const struct strtab_str empty = { .s = "" };
	const struct strtab_str *prev = &empty;
	size_t nfirst = 0, k;

	if (!order)
		return -1;
	for (size_t i = 0; i < t->n; i++)
		nfirst += t->str[i].first;
	k = nfirst;
	for (size_t i = 0, f = 0; i < t->n; i++)
		order[t->str[i].first ? f++ : k++] = &t->str[i];
	sort_tails(order, nfirst, 0);
	sort_tails(order + nfirst, t->n - nfirst, 0);
	t->size = t->start ? t->start : 1;
	for (size_t i = 0; i < t->n; i++) {
		struct strtab_str *s = order[i];

		if (prev->len >= s->len &&
		    !memcmp(prev->s + prev->len - s->len, s->s, s->len)) {
			s->off = t->size - s->len - 1;
			continue;
		}
		s->off = t->size;
		t->size += s->len + 1;
		prev = s;
	}
	/* The leading NUL is the empty string's, whatever the merge said. */
	for (size_t i = 0; i < t->n; i++)
		if (!t->str[i].len)
			t->str[i].off = 0;
	free(order);
	return 0;
}

uint64_t strtab_offset(const struct strtab *t, const char *s, size_t len)
{
	uint32_t b = strmap_find(&t->index, s, len);

	return b == t->index.nb ? 0 : t->str[t->index.b[b].value].off;
}

void strtab_write(const struct strtab *t, uint8_t *out)
{
	memset(out, 0, t->size);
	for (size_t i = 0; i < t->n; i++)
		memcpy(out + t->str[i].off, t->str[i].s, t->str[i].len);
}

void strtab_free(struct strtab *t)
{
	free(t->str);
	strmap_free(&t->index);
	*t = (struct strtab){ 0 };
}
