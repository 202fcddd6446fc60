/* grow: see grow.h. */
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

bool grow_array(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? 2 * *cap : 16;
	void *nv;

	if (n < *cap)
		return true;
	if (ncap < *cap || (size && ncap > SIZE_MAX / size))
		return false;
	if (!(nv = realloc(*v, ncap * size)))
		return false;
	*v = nv;
	*cap = ncap;
	return true;
}
