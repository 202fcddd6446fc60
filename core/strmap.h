/* strmap: the iteration order of LLVM's StringMap, which the bundler's output
 * follows (binary --list, which request wins an entry). */
#ifndef CORE_STRMAP_H
#define CORE_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open addressing with quadratic probing over a power-of-two table that
 * starts at 16 buckets and doubles past 3/4 full; keys hash to the low 32
 * bits of XXH3-64; an erase leaves a tombstone.  Keys are not copied. */
struct strmap_bucket {
	const char *key;
	size_t len;
	size_t value;
	uint32_t hash;
	uint8_t state;		/* STRMAP_EMPTY, STRMAP_LIVE, STRMAP_TOMB */
};

enum { STRMAP_EMPTY, STRMAP_LIVE, STRMAP_TOMB };

struct strmap {
	struct strmap_bucket *b;
	uint32_t nb, items, tombs;
};

/* Insert key with value, or overwrite the value of an existing key (LLVM's
 * map[key] = value).  Returns 0, or -1 if out of memory. */
int strmap_set(struct strmap *m, const char *key, size_t len, size_t value);
/* Bucket index of key, or m->nb if absent. */
uint32_t strmap_find(const struct strmap *m, const char *key, size_t len);
/* Remove the live bucket at index i, leaving a tombstone. */
void strmap_erase(struct strmap *m, uint32_t i);
/* Index of the first live bucket at or after i, or m->nb if none. */
uint32_t strmap_next(const struct strmap *m, uint32_t i);
void strmap_free(struct strmap *m);
/* LLVM 23's StringMap probes linearly (1, 1, 1... buckets on), LLVM 22's
 * quadratically (1, 2, 3...): for every map of the process from now on
 * (the bundler sets it for the release it follows). */
void strmap_linear_probing(bool on);

#endif
