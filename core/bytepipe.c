/* bytepipe: see bytepipe.h. */
#include <string.h>

#include "bytepipe.h"

static void *pipe_thread(void *arg)
{
	struct bytepipe *bp = arg;

	pthread_mutex_lock(&bp->lock);
	for (;;) {
		const uint8_t *p;
		size_t n;

		while (bp->head == bp->tail && !bp->closing)
			pthread_cond_wait(&bp->moved, &bp->lock);
		if (bp->head == bp->tail)
			break;
		p = bp->q[bp->head % BYTEPIPE_QUEUE].p;
		n = bp->q[bp->head % BYTEPIPE_QUEUE].n;
		pthread_mutex_unlock(&bp->lock);
		bp->fn(bp->ctx, p, n);
		pthread_mutex_lock(&bp->lock);
		bp->head++;
		bp->done += n;
		pthread_cond_broadcast(&bp->moved);
	}
	pthread_mutex_unlock(&bp->lock);
	return NULL;
}

void bytepipe_start(struct bytepipe *bp, bytepipe_fn *fn, void *ctx,
		    bool thread)
{
	memset(bp, 0, sizeof(*bp));
	bp->fn = fn;
	bp->ctx = ctx;
	if (!thread)
		return;
	pthread_mutex_init(&bp->lock, NULL);
	pthread_cond_init(&bp->moved, NULL);
	bp->threaded = pthread_create(&bp->thread, NULL, pipe_thread, bp) == 0;
	if (!bp->threaded) {
		pthread_cond_destroy(&bp->moved);
		pthread_mutex_destroy(&bp->lock);
	}
}

void bytepipe_push(struct bytepipe *bp, const uint8_t *p, size_t n)
{
	if (!n)
		return;
	if (!bp->threaded) {
		bp->fn(bp->ctx, p, n);
		bp->done += n;
		return;
	}
	pthread_mutex_lock(&bp->lock);
	while (bp->tail - bp->head == BYTEPIPE_QUEUE)
		pthread_cond_wait(&bp->moved, &bp->lock);
	bp->q[bp->tail % BYTEPIPE_QUEUE].p = p;
	bp->q[bp->tail % BYTEPIPE_QUEUE].n = n;
	bp->tail++;
	pthread_cond_broadcast(&bp->moved);
	pthread_mutex_unlock(&bp->lock);
}

void bytepipe_wait(struct bytepipe *bp, uint64_t upto)
{
	if (!bp->threaded)
		return;
	pthread_mutex_lock(&bp->lock);
	while (bp->done < upto)
		pthread_cond_wait(&bp->moved, &bp->lock);
	pthread_mutex_unlock(&bp->lock);
}

void bytepipe_end(struct bytepipe *bp)
{
	if (!bp->threaded)
		return;
	pthread_mutex_lock(&bp->lock);
	bp->closing = true;
	pthread_cond_broadcast(&bp->moved);
	pthread_mutex_unlock(&bp->lock);
	pthread_join(bp->thread, NULL);
	pthread_cond_destroy(&bp->moved);
	pthread_mutex_destroy(&bp->lock);
	bp->threaded = false;
}
