/* strjoin: two byte strings and a separator in one C string. */
#ifndef CORE_STRJOIN_H
#define CORE_STRJOIN_H

#include <stddef.h>

/* a (alen bytes), sep and b (blen bytes) in one malloc'd string,
 * NUL-terminated; NULL when out of memory. */
char *strjoin(const char *a, size_t alen, const char *sep, const char *b,
	      size_t blen);

#endif
