/* grow: room for one more element in a malloc'd array. */
#ifndef CORE_GROW_H
#define CORE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Make *v (of *cap elements of size bytes, n of them used) hold at least
 * n + 1, doubling it (from 16): false when out of memory, *v and *cap as
 * they were. */
bool grow_array(void **v, size_t *cap, size_t n, size_t size);

#endif
