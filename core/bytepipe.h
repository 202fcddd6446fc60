/* bytepipe: pieces of bytes handed, in order, to a consumer running on a
 * second thread (a hash made while a decoder goes on).  By reference
 * (bytepipe_start): a piece's bytes must stay put until bytepipe_wait has
 * seen them consumed.  Copied (bytepipe_start_copied): push copies them
 * into a ring first, so that the caller may use its buffer again at once
 * (a stream read piece by piece into one buffer).  A mark is a piece of
 * no bytes, fn(ctx, NULL, 0), in its place in the order: the consumer
 * sees it when everything pushed before is consumed. */
#ifndef CORE_BYTEPIPE_H
#define CORE_BYTEPIPE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { BYTEPIPE_QUEUE = 16 };	/* pieces waiting for the consumer */

typedef void bytepipe_fn(void *ctx, const uint8_t *p, size_t n);

struct bytepipe {
	bytepipe_fn *fn;
	void *ctx;
	bool threaded, closing;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t moved;
	struct { const uint8_t *p; size_t n; } q[BYTEPIPE_QUEUE];
	unsigned head, tail;
	uint64_t done;		/* bytes consumed */
	uint8_t *ring;		/* copied: the ring, or NULL */
	size_t ring_size;
	uint64_t pushed;	/* copied: bytes put in the ring */
};

/* Start: fn(ctx, ...) on a thread of its own when thread is true and one
 * can be made, else on the caller's, in bytepipe_push. */
void bytepipe_start(struct bytepipe *bp, bytepipe_fn *fn, void *ctx,
		    bool thread);
/* Start, copying into a ring of ring bytes: fn on a thread of its own,
 * or on the caller's when the ring or the thread cannot be made. */
void bytepipe_start_copied(struct bytepipe *bp, bytepipe_fn *fn, void *ctx,
			   size_t ring);
void bytepipe_push(struct bytepipe *bp, const uint8_t *p, size_t n);
/* A mark after what was pushed (fn(ctx, NULL, 0)). */
void bytepipe_mark(struct bytepipe *bp);
/* Wait until the first `upto` bytes pushed are consumed. */
void bytepipe_wait(struct bytepipe *bp, uint64_t upto);
/* Wait until every piece and mark pushed is consumed. */
void bytepipe_drain(struct bytepipe *bp);
/* Consume what is queued and stop the thread (the ring freed). */
void bytepipe_end(struct bytepipe *bp);

#endif
