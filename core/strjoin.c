/* strjoin: see strjoin.h. */
#include <stdlib.h>
#include <string.h>

#include "strjoin.h"

char *strjoin(const char *a, size_t alen, const char *sep, const char *b,
	      size_t blen)
{
	size_t slen = strlen(sep);
	char *s = malloc(alen + slen + blen + 1);

	if (s) {
		if (alen)
			memcpy(s, a, alen);
		memcpy(s + alen, sep, slen);
		if (blen)
			memcpy(s + alen + slen, b, blen);
		s[alen + slen + blen] = 0;
	}
	return s;
}
