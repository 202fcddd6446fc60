/* densemap: where LLVM's DenseMap<StringRef, ...> puts its keys, so a walk
 * over the buckets visits them in LLVM's iteration order (llvm-offload-binary
 * writes its string records in that order). */
#ifndef CORE_DENSEMAP_H
#define CORE_DENSEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open addressing over a power-of-two table of at least 64 buckets that
 * doubles when an insertion would make it 3/4 full, re-inserting the old
 * keys in bucket order; a key goes to the low 32 bits of its llvmhash,
 * probing 1, 2, 3... buckets further on.  Keys are not copied.  Nothing is
 * ever erased (the packager has no use for it), so there are no tombstones. */
struct densemap_bucket {
	const char *key;
	size_t len;
	size_t value;
	bool used;
};

struct densemap {
	struct densemap_bucket *b;
	uint32_t nb, n;
	/* LLVM 23's map: its hash (llvmhash23_bytes) and linear probing
	 * (1, 1, 1... buckets further on); set while empty. */
	bool llvm23;
};

/* Bucket index of key, or m->nb if absent. */
uint32_t densemap_find(const struct densemap *m, const char *key, size_t len);
/* Insert a key that is not there yet.  0, or -1 when out of memory. */
int densemap_insert(struct densemap *m, const char *key, size_t len,
		    size_t value);
void densemap_free(struct densemap *m);

#endif
