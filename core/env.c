/* env: numbers from environment variables, checked. */
#include <stdlib.h>
#include <unistd.h>

#include "env.h"

int env_positive_u64(const char *name, uint64_t *out, struct err *e)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v)
		return 0;
	n = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || !n)
		return err_set(e, "%s=%s: expected a positive decimal number",
			       name, v);
	*out = n;
	return 0;
}

uint64_t env_memory_cap(void)
{
	const uint64_t most = 32ULL << 30;
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t half;

	if (pages <= 0 || size <= 0)
		return most;
	half = (uint64_t)pages / 2 * (uint64_t)size;
	return half && half < most ? half : most;
}
