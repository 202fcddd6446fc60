/* env: numbers from environment variables, checked. */
#include <stdlib.h>

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
