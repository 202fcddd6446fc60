/* bytepipe: pieces of bytes handed, in order, to a consumer running on a
 * second thread (a hash made while a decoder goes on).  A piece's bytes
 * must stay put until bytepipe_wait has seen them consumed. */
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
};

/* Start: fn(ctx, ...) on a thread of its own when thread is true and one
 * can be made, else on the caller's, in bytepipe_push. */
void bytepipe_start(struct bytepipe *bp, bytepipe_fn *fn, void *ctx,
		    bool thread);
void bytepipe_push(struct bytepipe *bp, const uint8_t *p, size_t n);
/* Wait until the first `upto` bytes pushed are consumed. */
void bytepipe_wait(struct bytepipe *bp, uint64_t upto);
/* Consume what is queued and stop the thread. */
void bytepipe_end(struct bytepipe *bp);

#endif
