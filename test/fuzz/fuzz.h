/* fuzz.h: what every fuzz target in test/fuzz/ shares.  See README. */
#ifndef TEST_FUZZ_FUZZ_H
#define TEST_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>

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

/* Outputs capped at 64 MiB (a small input may declare gigabytes, written as
 * LLVM writes them), set once at the first input: libFuzzer installs its own
 * SIGXFSZ handler (which exits) after any constructor of ours. */
static inline void fuzz_cap_outputs(void)
{
	static bool done;
	struct rlimit r = { 64u << 20, 64u << 20 };

	if (done)
		return;
	done = true;
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &r);
}

#endif
