/* sha_pipe: a SHA-256 on a thread of its own (sha_pipe.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sha_pipe.h"

/* The ring: what the walk may run ahead of the hash.  A piece is hashed
 * at most PIECE at a time, so that room comes back as it goes. */
enum { RING = 1 << 20, PIECE = 128 << 10 };

struct sha_pipe {
	struct sha256 *s, *mark;
	uint8_t *ring;
	uint64_t head, tail;	/* bytes put, bytes hashed */
	uint64_t mark_at;	/* where the pending mark is, if pending */
	bool pending, stop;
	bool mark_failed;	/* a mark's copy could not be made */
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	pthread_t thread;
};

static void *hash_thread(void *arg)
{
	struct sha_pipe *sp = arg;

	pthread_mutex_lock(&sp->lock);
	for (;;) {
		uint64_t k;

		while (sp->tail == sp->head && !sp->stop &&
		       !(sp->pending && sp->mark_at == sp->tail))
			pthread_cond_wait(&sp->more, &sp->lock);
		if (sp->pending && sp->mark_at == sp->tail) {
			if (sha256_copy(sp->mark, sp->s) < 0)
				sp->mark_failed = true;
			sp->pending = false;
			pthread_cond_broadcast(&sp->room);
			continue;
		}
		if (sp->tail == sp->head)
			break;		/* stopped, and all hashed */
		k = sp->head - sp->tail;
		if (k > RING - sp->tail % RING)
			k = RING - sp->tail % RING;
		if (sp->pending && sp->mark_at > sp->tail &&
		    k > sp->mark_at - sp->tail)
			k = sp->mark_at - sp->tail;
		if (k > PIECE)
			k = PIECE;
		pthread_mutex_unlock(&sp->lock);
		sha256_update(sp->s, sp->ring + sp->tail % RING, (size_t)k);
		pthread_mutex_lock(&sp->lock);
		sp->tail += k;
		pthread_cond_broadcast(&sp->room);
	}
	pthread_mutex_unlock(&sp->lock);
	return NULL;
}

struct sha_pipe *sha_pipe_new(struct sha256 *s, struct sha256 *mark,
			      struct err *e)
{
	struct sha_pipe *sp = calloc(1, sizeof(*sp));

	if (!sp || !(sp->ring = malloc(RING))) {
		free(sp);
		err_nomem(e);
		return NULL;
	}
	sp->s = s;
	sp->mark = mark;
	pthread_mutex_init(&sp->lock, NULL);
	pthread_cond_init(&sp->more, NULL);
	pthread_cond_init(&sp->room, NULL);
	if (pthread_create(&sp->thread, NULL, hash_thread, sp) != 0) {
		pthread_mutex_destroy(&sp->lock);
		pthread_cond_destroy(&sp->more);
		pthread_cond_destroy(&sp->room);
		free(sp->ring);
		free(sp);
		err_nomem(e);
		return NULL;
	}
	return sp;
}

void sha_pipe_put(struct sha_pipe *sp, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		uint64_t k;

		pthread_mutex_lock(&sp->lock);
		while (sp->head - sp->tail == RING)
			pthread_cond_wait(&sp->room, &sp->lock);
		k = RING - (sp->head - sp->tail);
		pthread_mutex_unlock(&sp->lock);
		if (k > RING - sp->head % RING)
			k = RING - sp->head % RING;
		if (k > n)
			k = n;
		/* [head, tail + RING) is ours alone: the thread reads only
		 * [tail, head). */
		memcpy(sp->ring + sp->head % RING, b, (size_t)k);
		pthread_mutex_lock(&sp->lock);
		sp->head += k;
		pthread_cond_signal(&sp->more);
		pthread_mutex_unlock(&sp->lock);
		b += k;
		n -= (size_t)k;
	}
}

void sha_pipe_mark(struct sha_pipe *sp)
{
	pthread_mutex_lock(&sp->lock);
	sp->mark_at = sp->head;
	sp->pending = true;
	pthread_cond_signal(&sp->more);
	pthread_mutex_unlock(&sp->lock);
}

int sha_pipe_drain(struct sha_pipe *sp)
{
	int rc;

	pthread_mutex_lock(&sp->lock);
	while (sp->tail != sp->head || sp->pending)
		pthread_cond_wait(&sp->room, &sp->lock);
	rc = sp->mark_failed ? -1 : 0;
	pthread_mutex_unlock(&sp->lock);
	return rc;
}

void sha_pipe_free(struct sha_pipe *sp)
{
	if (!sp)
		return;
	pthread_mutex_lock(&sp->lock);
	sp->stop = true;
	pthread_cond_signal(&sp->more);
	pthread_mutex_unlock(&sp->lock);
	pthread_join(sp->thread, NULL);
	pthread_mutex_destroy(&sp->lock);
	pthread_cond_destroy(&sp->more);
	pthread_cond_destroy(&sp->room);
	free(sp->ring);
	free(sp);
}
