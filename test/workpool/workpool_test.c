/* Drives core/workpool.c (test/workpool.test).
 *   workpool_test THREADS N [SLOW [FAIL...]]
 * Runs items 0..N-1 on THREADS threads: item SLOW (-1: none) sleeps 50 ms
 * first, so that on several threads the items after it finish before it;
 * the FAIL items fail ("item K failed").  Prints what the pool returned
 * and whether what it says holds: the ticks counted 1, 2, ... one at a
 * time, and every item before the one whose error came back ran. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../core/workpool.h"

struct job {
	size_t n;
	long slow;
	char *fail;		/* per item: fails */
	atomic_char *ran;	/* per item: ran */
	size_t ticks;
	int tick_order_ok;
};

static int item(void *ctx, size_t i, struct err *e)
{
	struct job *j = ctx;

	if ((long)i == j->slow) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	atomic_store(&j->ran[i], 1);
	if (j->fail[i])
		return err_set(e, "item %zu failed", i);
	return 0;
}

static void tick(void *ctx, size_t done, size_t n)
{
	struct job *j = ctx;

	if (done != j->ticks + 1 || n != j->n)
		j->tick_order_ok = 0;
	j->ticks = done;
}

int main(int argc, char **argv)
{
	struct job j = { .tick_order_ok = 1, .slow = -1 };
	size_t ran = 0, first_fail = SIZE_MAX, before = 0;
	unsigned threads;
	struct err e;
	int rc;

	if (argc < 3) {
		fputs("usage: workpool_test THREADS N [SLOW [FAIL...]]\n",
		      stderr);
		return 2;
	}
	threads = (unsigned)strtoul(argv[1], NULL, 10);
	j.n = strtoul(argv[2], NULL, 10);
	if (argc > 3)
		j.slow = strtol(argv[3], NULL, 10);
	j.fail = calloc(j.n + 1, 1);
	j.ran = calloc(j.n + 1, sizeof(*j.ran));
	if (!j.fail || !j.ran)
		return 2;
	for (int a = 4; a < argc; a++) {
		size_t k = strtoul(argv[a], NULL, 10);

		if (k < j.n)
			j.fail[k] = 1;
	}
	rc = workpool_run(j.n, threads, item, tick, &j, &e);
	for (size_t i = 0; i < j.n; i++) {
		ran += atomic_load(&j.ran[i]) != 0;
		if (j.fail[i] && first_fail == SIZE_MAX)
			first_fail = i;
	}
	if (rc < 0) {
		for (size_t i = 0; i < first_fail && i < j.n; i++)
			before += atomic_load(&j.ran[i]) != 0;
		printf("failed: %s; the %zu items before item %zu ran: %s\n",
		       e.msg, first_fail, first_fail,
		       before == first_fail ? "all" : "NOT ALL");
	} else {
		printf("ok: %zu of %zu items ran\n", ran, j.n);
	}
	/* How far a failure lets the others get depends on the threads'
	 * timing, but for one thread. */
	if (rc == 0 || threads <= 1)
		printf("ticks: %zu, %s\n", j.ticks, j.tick_order_ok ?
		       "one at a time, in order" : "OUT OF ORDER");
	else if (!j.tick_order_ok)
		puts("ticks: OUT OF ORDER");
	if (threads <= 1)
		printf("ran: %zu\n", ran);
	free(j.fail);
	free(j.ran);
	return rc < 0;
}
