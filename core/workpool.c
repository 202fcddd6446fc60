/* workpool: see workpool.h. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "workpool.h"

struct pool {
	workpool_fn *fn;
	workpool_tick_fn *tick;
	void *ctx;
	size_t n;
	pthread_mutex_t lock;
	size_t next, done;	/* items handed out, items done well */
	bool failed;
	size_t failed_item;	/* the lowest that failed */
	struct err err;		/* its record */
};

static void *work(void *arg)
{
	struct pool *pl = arg;
	struct err e;

	pthread_mutex_lock(&pl->lock);
	while (!pl->failed && pl->next < pl->n) {
		size_t item = pl->next++;
		int rc;

		pthread_mutex_unlock(&pl->lock);
		rc = pl->fn(pl->ctx, item, &e);
		pthread_mutex_lock(&pl->lock);
		if (rc < 0 && (!pl->failed || item < pl->failed_item)) {
			pl->failed = true;
			pl->failed_item = item;
			pl->err = e;
		}
		if (rc == 0 && pl->tick)
			pl->tick(pl->ctx, ++pl->done, pl->n);
	}
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

int workpool_run(size_t n, unsigned threads, workpool_fn *fn,
		 workpool_tick_fn *tick, void *ctx, struct err *e)
{
	struct pool *pl;
	pthread_t tid[63];
	unsigned started = 0;
	int rc = 0;

	if (threads > n)
		threads = (unsigned)n;
	if (threads > 64)
		threads = 64;
	/* One thread: no lock, no copy of the record. */
	if (threads <= 1) {
		for (size_t i = 0; i < n; i++) {
			if (fn(ctx, i, e) < 0)
				return -1;
			if (tick)
				tick(ctx, i + 1, n);
		}
		return 0;
	}
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return err_nomem(e);
	*pl = (struct pool){ .fn = fn, .tick = tick, .ctx = ctx, .n = n };
	pthread_mutex_init(&pl->lock, NULL);
	while (started < threads - 1 &&
	       pthread_create(&tid[started], NULL, work, pl) == 0)
		started++;
	work(pl);
	while (started)
		pthread_join(tid[--started], NULL);
	if (pl->failed) {
		*e = pl->err;
		rc = -1;
	}
	pthread_mutex_destroy(&pl->lock);
	free(pl);
	return rc;
}
