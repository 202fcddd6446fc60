/* fuzz.h: what every fuzz target in test/fuzz/ shares.  See README. */
#ifndef TEST_FUZZ_FUZZ_H
#define TEST_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* libFuzzer calls this once per input; replay.c does too, under make check. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a crash, so libFuzzer keeps the input and the replay
 * fails even when built without sanitizers. */
#define FUZZ_CHECK(cond) do { if (!(cond)) abort(); } while (0)

/* Read the first and last byte of [p, p+n): under ASan, a range that is not
 * inside the input (or a heap block) fails here, at the caller. */
static inline void fuzz_touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;	/* volatile: the reads happen */

	if (n) {
		(void)b[0];
		(void)b[n - 1];
	}
}

#endif
