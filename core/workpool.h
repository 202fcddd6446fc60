/* workpool: the items 0..n-1 of a job run on up to `threads` threads (the
 * caller's among them), each thread taking the next item when done with
 * its last: at most `threads` items are in flight, so what an item holds
 * while it runs is bounded.  The items must not depend on each other;
 * each writes its result where item names (a slot of its own), so the
 * results are those of one thread running them in order. */
#ifndef CORE_WORKPOOL_H
#define CORE_WORKPOOL_H

#include <stddef.h>

#include "err.h"

/* Run item: 0, or -1 with e filled. */
typedef int workpool_fn(void *ctx, size_t item, struct err *e);
/* Told, one call at a time, that `done` items of n have run well. */
typedef void workpool_tick_fn(void *ctx, size_t done, size_t n);

/* Run fn on every item (threads 0 or 1: all on the caller's thread; a
 * thread that cannot be made leaves its share to the others).  After a
 * failure no item is started; the error returned is that of the lowest
 * item that failed, which is the one a single thread running the items
 * in order stops at (every item before it was started first, and ran).
 * tick may be NULL. */
int workpool_run(size_t n, unsigned threads, workpool_fn *fn,
		 workpool_tick_fn *tick, void *ctx, struct err *e);

#endif
