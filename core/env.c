/* env: numbers from environment variables, checked; the LLVM release. */
#include <stdlib.h>
#include <string.h>
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

enum llvm_release env_llvm_parse(const char *s, size_t len)
{
	if (len == 2 && !memcmp(s, "22", 2))
		return LLVM_22;
	if (len == 2 && !memcmp(s, "23", 2))
		return LLVM_23;
	if (len == 2 && !memcmp(s, "24", 2))
		return LLVM_24;
	return 0;
}

int env_llvm_from_environment(enum llvm_release *r, struct err *e)
{
	const char *v = getenv("OFFLOAD_LLVM");
	enum llvm_release named;

	if (!v)
		return 0;
	named = env_llvm_parse(v, strlen(v));
	if (!named)
		return err_set(e, "OFFLOAD_LLVM=%s: expected 22, 23 or 24", v);
	*r = named;
	return 0;
}

const char *env_release_version(enum llvm_release r)
{
	switch (r) {
	case LLVM_22:
		return "22.1.8";
	case LLVM_23:
		return "23.1.4";
	case LLVM_24:
		return "24.0.0";
	}
	return "";
}
