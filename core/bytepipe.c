/* bytepipe: see bytepipe.h. */
#include <stdlib.h>
#include <string.h>

#include "bytepipe.h"

/* A copied piece is at most this, so that room in the ring comes back
 * as the consumer goes rather than a ring at a time. */
enum { COPIED_PIECE = 128 << 10 };

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
		/* Pieces after head may still grow (copied, push_copy);
		 * head's is read once, here. */
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

void bytepipe_start_copied(struct bytepipe *bp, bytepipe_fn *fn, void *ctx,
			   size_t ring)
{
	uint8_t *r = malloc(ring);

	bytepipe_start(bp, fn, ctx, r != NULL);
	if (!bp->threaded) {
		free(r);
		return;
	}
	bp->ring = r;
	bp->ring_size = ring;
}

/* The last piece queued, not yet taken by the consumer, ends where the
 * next bytes go in the ring: they may join it. */
static bool joins(const struct bytepipe *bp, const uint8_t *at, size_t k)
{
	unsigned last = (bp->tail - 1) % BYTEPIPE_QUEUE;

	return bp->tail - bp->head >= 2 && bp->q[last].p &&
	       bp->q[last].p + bp->q[last].n == at &&
	       bp->q[last].n + k <= COPIED_PIECE;
}

/* Copied: into the ring, [pushed, done + ring_size) being the producer's
 * alone (the consumer reads [done, pushed) only). */
static void push_copy(struct bytepipe *bp, const uint8_t *p, size_t n)
{
	while (n) {
		uint8_t *at;
		size_t k;

		pthread_mutex_lock(&bp->lock);
		for (;;) {
			size_t room = bp->ring_size - (size_t)(bp->pushed -
							       bp->done);
			size_t flat = bp->ring_size -
				      (size_t)(bp->pushed % bp->ring_size);

			k = n < room ? n : room;
			k = k < flat ? k : flat;
			k = k < COPIED_PIECE ? k : COPIED_PIECE;
			at = bp->ring + bp->pushed % bp->ring_size;
			if (k && (bp->tail - bp->head < BYTEPIPE_QUEUE ||
				  joins(bp, at, k)))
				break;
			pthread_cond_wait(&bp->moved, &bp->lock);
		}
		pthread_mutex_unlock(&bp->lock);
		memcpy(at, p, k);
		pthread_mutex_lock(&bp->lock);
		/* Taken meanwhile, the last piece no longer joins: the
		 * queue has room then. */
		if (joins(bp, at, k)) {
			bp->q[(bp->tail - 1) % BYTEPIPE_QUEUE].n += k;
		} else {
			bp->q[bp->tail % BYTEPIPE_QUEUE].p = at;
			bp->q[bp->tail % BYTEPIPE_QUEUE].n = k;
			bp->tail++;
		}
		bp->pushed += k;
		pthread_cond_broadcast(&bp->moved);
		pthread_mutex_unlock(&bp->lock);
		p += k;
		n -= k;
	}
}

static void queue(struct bytepipe *bp, const uint8_t *p, size_t n)
{
	pthread_mutex_lock(&bp->lock);
	while (bp->tail - bp->head == BYTEPIPE_QUEUE)
		pthread_cond_wait(&bp->moved, &bp->lock);
	bp->q[bp->tail % BYTEPIPE_QUEUE].p = p;
	bp->q[bp->tail % BYTEPIPE_QUEUE].n = n;
	bp->tail++;
	pthread_cond_broadcast(&bp->moved);
	pthread_mutex_unlock(&bp->lock);
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
	if (bp->ring)
		push_copy(bp, p, n);
	else
		queue(bp, p, n);
}

void bytepipe_mark(struct bytepipe *bp)
{
	if (!bp->threaded)
		bp->fn(bp->ctx, NULL, 0);
	else
		queue(bp, NULL, 0);
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

void bytepipe_drain(struct bytepipe *bp)
{
	if (!bp->threaded)
		return;
	pthread_mutex_lock(&bp->lock);
	while (bp->head != bp->tail)
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
	free(bp->ring);
	bp->ring = NULL;
}
