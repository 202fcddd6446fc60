/* env: numbers from environment variables, checked. */
#ifndef CORE_ENV_H
#define CORE_ENV_H

#include <stdint.h>

#include "err.h"

/* If `name` is set, it must be a positive decimal number, stored in *out.
 * Returns 0 (set or not), or -1 with e saying what is wrong. */
int env_positive_u64(const char *name, uint64_t *out, struct err *e);

/* The default bound on what a header may make a command allocate: half
 * the machine's physical memory, at most 32 GiB (32 GiB when the machine
 * will not say). */
uint64_t env_memory_cap(void);

#endif
