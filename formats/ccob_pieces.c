/* ccob_pieces: a CCOB's hash (libmd's MD5), and the buffers a CCOB is
 * inflated into piece by piece, hashed by a thread of their own while the
 * caller uses them (see ccob.h).  MD5
 * runs at about the speed zstd inflates, so hashing beside the inflating
 * halves the time of reading a large CCOB on two cores. */
#include <md5.h>
#include <pthread.h>
#include <stdlib.h>

#include "ccob.h"
#include "../core/bytes.h"

void ccob_hasher_init(struct ccob_hasher *h)
{
	MD5Init(&h->md5);
}

void ccob_hasher_add(struct ccob_hasher *h, const uint8_t *buf, size_t len)
{
	MD5Update(&h->md5, buf, len);
}

uint64_t ccob_hasher_end(struct ccob_hasher *h)
{
	uint8_t digest[MD5_DIGEST_LENGTH];

	MD5Final(digest, &h->md5);
	return get_le(digest, 8);
}

uint64_t ccob_hash(const uint8_t *buf, size_t len)
{
	struct ccob_hasher h;

	ccob_hasher_init(&h);
	ccob_hasher_add(&h, buf, len);
	return ccob_hasher_end(&h);
}


enum { SLOTS = 4 };

struct ccob_pieces {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t moved;
	bool threaded, done;
	uint8_t *buf[SLOTS];
	size_t len[SLOTS];
	uint64_t handed, hashed;	/* pieces so far */
	struct ccob_hasher hash;
};

static void *hash_pieces(void *arg)
{
	struct ccob_pieces *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t slot;

		while (p->hashed == p->handed && !p->done)
			pthread_cond_wait(&p->moved, &p->lock);
		if (p->hashed == p->handed)
			break;
		slot = (size_t)(p->hashed % SLOTS);
		pthread_mutex_unlock(&p->lock);
		ccob_hasher_add(&p->hash, p->buf[slot], p->len[slot]);
		pthread_mutex_lock(&p->lock);
		p->hashed++;
		pthread_cond_broadcast(&p->moved);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct ccob_pieces *ccob_pieces_new(size_t size, bool threaded)
{
	struct ccob_pieces *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	ccob_hasher_init(&p->hash);
	for (size_t i = 0; i < (threaded ? SLOTS : 1); i++)
		if (!(p->buf[i] = malloc(size)))
			goto fail;
	if (threaded) {
		pthread_mutex_init(&p->lock, NULL);
		pthread_cond_init(&p->moved, NULL);
		if (pthread_create(&p->thread, NULL, hash_pieces, p)) {
			pthread_mutex_destroy(&p->lock);
			pthread_cond_destroy(&p->moved);
		} else {
			p->threaded = true;
		}
	}
	return p;
fail:
	for (size_t i = 0; i < SLOTS; i++)
		free(p->buf[i]);
	free(p);
	return NULL;
}

uint8_t *ccob_pieces_next(struct ccob_pieces *p)
{
	uint8_t *b;

	if (!p->threaded)
		return p->buf[0];
	pthread_mutex_lock(&p->lock);
	while (p->handed - p->hashed >= SLOTS)
		pthread_cond_wait(&p->moved, &p->lock);
	b = p->buf[p->handed % SLOTS];
	pthread_mutex_unlock(&p->lock);
	return b;
}

void ccob_pieces_filled(struct ccob_pieces *p, size_t n)
{
	if (!p->threaded) {
		ccob_hasher_add(&p->hash, p->buf[0], n);
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->len[p->handed % SLOTS] = n;
	p->handed++;
	pthread_cond_broadcast(&p->moved);
	pthread_mutex_unlock(&p->lock);
}

uint64_t ccob_pieces_end(struct ccob_pieces *p)
{
	uint64_t hash;

	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		p->done = true;
		pthread_cond_broadcast(&p->moved);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->moved);
	}
	hash = ccob_hasher_end(&p->hash);
	for (size_t i = 0; i < SLOTS; i++)
		free(p->buf[i]);
	free(p);
	return hash;
}
