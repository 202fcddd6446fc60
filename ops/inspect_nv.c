/* inspect_nv: the entries of an NVIDIA fatbin, for the walk of inspect.c
 * (see inspect.h).
 *
 * A walk that inflates decodes them ahead of the visitor, on a second
 * thread: extracting a CUDA library is half LZ4/zstd and half creating and
 * writing files, and the two then overlap.  A library's .nv_fatbin holds
 * thousands of small fatbins one after another (CUDA 13's libcublasLt: 2,782
 * of 2 entries each), so the thread reads on across them, from the first
 * one the walk meets to the first container that is not one (the walk's own
 * order: it finds them as inspect_walk_containers does).  The walk
 * still visits the entries one at a time, in order, and takes each decoded
 * entry only where it is the one it is at; anything else (no second core,
 * the thread stopped short) is decoded in place. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/fatbin.h"
#include "inspect_containers.h"
#include "inspect_nv.h"
#include "../formats/nvfatbin.h"

/* Entries decoded ahead of the one being visited, at most, and the bytes
 * they may hold (one entry more than that is always allowed).  Few: an
 * entry written soon after it is decoded is still in the cache.  The
 * thread, when it is ahead, sleeps until half of them are taken, not one:
 * a wake-up for each of thousands of entries costs more than it wins.  The
 * walk, when it waits, waits for its one entry only: on a busy machine the
 * thread may get little time, and what is decoded is written meanwhile.  A
 * buffer grown past KEEP_MAX is let go once its entry is visited (entries
 * that large are few). */
enum { AHEAD = 4, HOLD_MAX = 32 << 20, KEEP_MAX = 4 << 20 };
/* The thread does not read through more zero padding than this between
 * two fatbins (the walk skips holes of sparse files unread). */
enum { PAD_MAX = 1 << 20 };

/* One entry as the decoder left it. */
struct decoded {
	const uint8_t *fatbin;	/* the entry's fatbin, to match it */
	uint64_t payload_offset;
	const uint8_t *code;
	uint64_t size;
	struct nvfatbin_scratch scratch;	/* reused from entry to entry */
	uint64_t held;		/* what it counts in nv_ahead's held */
	int rc;
	struct err err;
};

struct nv_ahead {
	struct walk *w;
	/* The buffer of containers, at file offset base; the thread's place
	 * in it: the next container, and the fatbin it is in (NULL: none). */
	const uint8_t *buf;
	size_t len;
	uint64_t base, pos;
	const uint8_t *fatbin;
	uint64_t fatbin_offset, at;
	struct nvfatbin_header h;
	struct decoded slot[AHEAD];
	struct nvfatbin_scratch here;	/* for entries decoded in place */
	/* Under lock: entries decoded, entries taken (their slots free
	 * again), the counts a sleeping side waits for (0: not asleep),
	 * whether the thread has no more, is to stop, is asleep. */
	pthread_mutex_t lock;
	pthread_cond_t moved;
	size_t decoded, taken, want_decoded, want_taken;
	uint64_t held;		/* inflated bytes of the entries not taken */
	bool finished, stop, blocked, threaded;
	pthread_t thread;
};

static void reading(struct walk *w, bool in_file, uint64_t off, uint64_t len,
		    bool start)
{
	if (in_file && w->o->reading)
		w->o->reading(w->o->data_ctx, off, len, start);
}

/* The thread's next entry, from its fatbin or the next one: 1, or 0 when
 * there is none it can read on to. */
static int next_entry(struct nv_ahead *a, struct nvfatbin_entry *ent)
{
	struct fatbin_item it;
	struct err e;

	for (;;) {
		uint64_t pad = a->pos;

		if (a->fatbin && nvfatbin_next(a->fatbin, &a->h, &a->at, ent,
					       &e) > 0)
			return 1;
		a->fatbin = NULL;
		while (a->pos < a->len && !a->buf[a->pos] &&
		       a->pos - pad < PAD_MAX)
			a->pos++;
		if (a->len - a->pos < 4 ||
		    memcmp(a->buf + a->pos, "\x50\xed\x55\xba", 4) ||
		    fatbin_next(a->buf, a->len, &a->pos, &a->w->o->ccob, &it,
				&e) <= 0 || it.kind != FATBIN_NV ||
		    nvfatbin_open(a->buf + it.offset, (size_t)it.size, &a->h,
				  &e) < 0)
			return 0;
		a->fatbin = a->buf + it.offset;
		a->fatbin_offset = a->base + it.offset;
		a->at = a->h.header_size;
	}
}

/* The fatbins are the walk's containers, all in the file (in_file). */
static void decode(struct nv_ahead *a, struct decoded *d,
		   const uint8_t *fatbin, uint64_t fatbin_offset,
		   const struct nvfatbin_entry *ent,
		   struct nvfatbin_scratch *scratch)
{
	d->fatbin = fatbin;
	d->payload_offset = ent->payload_offset;
	if (nvfatbin_compressed(ent))
		reading(a->w, true, fatbin_offset + ent->payload_offset,
			ent->payload_size, true);
	d->rc = nvfatbin_code_into(fatbin, ent, a->w->o->ccob.max_size,
				   &d->code, &d->size, scratch, &d->err);
}

/* The thread, under the lock: sleep until the walk has taken want entries.
 * A walk asleep waiting for more is woken first: it may take what there
 * is (with the bytes held at their limit, nothing more comes). */
static void wait_taken(struct nv_ahead *a, size_t want)
{
	a->want_taken = want;
	a->blocked = true;
	if (a->want_decoded)
		pthread_cond_broadcast(&a->moved);
	while (a->taken < want && !a->stop)
		pthread_cond_wait(&a->moved, &a->lock);
	a->want_taken = 0;
	a->blocked = false;
}

static void *decode_thread(void *arg)
{
	struct nv_ahead *a = arg;
	struct nvfatbin_entry ent;

	pthread_mutex_lock(&a->lock);
	for (size_t i = 0; !a->stop; i++) {
		uint64_t bytes;

		if (i - a->taken >= AHEAD)
			wait_taken(a, i - AHEAD / 2 + 1);
		if (a->stop)
			break;
		pthread_mutex_unlock(&a->lock);
		if (!next_entry(a, &ent)) {
			pthread_mutex_lock(&a->lock);
			break;
		}
		bytes = nvfatbin_compressed(&ent) ? ent.uncompressed_size : 0;
		pthread_mutex_lock(&a->lock);
		while (a->held && a->held + bytes > HOLD_MAX && !a->stop)
			wait_taken(a, a->taken + 1);
		if (a->stop)
			break;
		a->held += bytes;
		pthread_mutex_unlock(&a->lock);
		decode(a, &a->slot[i % AHEAD], a->fatbin, a->fatbin_offset,
		       &ent, &a->slot[i % AHEAD].scratch);
		a->slot[i % AHEAD].held = bytes;
		pthread_mutex_lock(&a->lock);
		a->decoded = i + 1;
		if (a->want_decoded && a->decoded >= a->want_decoded)
			pthread_cond_broadcast(&a->moved);
	}
	a->finished = true;
	pthread_cond_broadcast(&a->moved);
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct nv_ahead *inspect_nv_ahead_start(struct walk *w, const uint8_t *buf,
					size_t len, uint64_t base,
					uint64_t pos)
{
	struct nv_ahead *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;	/* everything decoded in place */
	*a = (struct nv_ahead){ .w = w, .buf = buf, .len = len, .base = base,
				.pos = pos };
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return a;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->moved, NULL);
	a->threaded = pthread_create(&a->thread, NULL, decode_thread, a) == 0;
	if (!a->threaded) {
		pthread_cond_destroy(&a->moved);
		pthread_mutex_destroy(&a->lock);
	}
	return a;
}

void inspect_nv_ahead_end(struct nv_ahead *a)
{
	if (!a)
		return;
	if (a->threaded) {
		pthread_mutex_lock(&a->lock);
		a->stop = true;
		pthread_cond_broadcast(&a->moved);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
		pthread_cond_destroy(&a->moved);
		pthread_mutex_destroy(&a->lock);
	}
	for (size_t i = 0; i < AHEAD; i++)
		nvfatbin_scratch_free(&a->slot[i].scratch);
	nvfatbin_scratch_free(&a->here);
	free(a);
}

/* The thread's next entry if it is this one (the thread's slot, to give
 * back with give_back), else this one decoded here into *d. */
static struct decoded *take(struct nv_ahead *a, const uint8_t *fatbin,
			    uint64_t fatbin_offset,
			    const struct nvfatbin_entry *ent, struct decoded *d,
			    bool *theirs)
{
	*theirs = false;
	if (a->threaded) {
		size_t i;

		pthread_mutex_lock(&a->lock);
		i = a->taken;
		if (a->decoded <= i && !a->finished) {
			a->want_decoded = i + 1;
			while (a->decoded < a->want_decoded && !a->finished &&
			       !(a->blocked && a->decoded > i))
				pthread_cond_wait(&a->moved, &a->lock);
			a->want_decoded = 0;
		}
		*theirs = a->decoded > i &&
			  a->slot[i % AHEAD].fatbin == fatbin &&
			  a->slot[i % AHEAD].payload_offset ==
			  ent->payload_offset;
		pthread_mutex_unlock(&a->lock);
		if (*theirs)
			return &a->slot[i % AHEAD];
	}
	decode(a, d, fatbin, fatbin_offset, ent, &a->here);
	return d;
}

static void give_back(struct nv_ahead *a)
{
	struct decoded *d = &a->slot[a->taken % AHEAD];

	/* The slot is ours until taken moves on. */
	if (d->scratch.cap > KEEP_MAX) {
		free(d->scratch.buf);
		d->scratch.buf = NULL;
		d->scratch.cap = 0;
	}
	pthread_mutex_lock(&a->lock);
	a->held -= d->held;
	a->taken++;
	if (a->want_taken && a->taken >= a->want_taken)
		pthread_cond_broadcast(&a->moved);
	pthread_mutex_unlock(&a->lock);
}

int inspect_walk_nv(struct walk *w, struct inspect_node *c, const uint8_t *p,
		    uint64_t size)
{
	struct nvfatbin_header h;
	struct nvfatbin_entry ent;
	uint64_t pos;
	size_t n = 0;
	int rc;

	if (nvfatbin_open(p, (size_t)size, &h, w->e) < 0)
		return -1;
	if (w->o->inflate && !w->nv)
		return err_nomem(w->e);
	for (pos = h.header_size; (rc = nvfatbin_next(p, &h, &pos, &ent, w->e)) > 0;)
		n++;
	if (rc < 0)
		return -1;
	c->version = h.version;
	c->entries = n;
	if (inspect_emit(w, c) < 0)
		return -1;
	n = 0;
	for (pos = h.header_size; nvfatbin_next(p, &h, &pos, &ent, w->e) > 0;) {
		bool packed = nvfatbin_compressed(&ent), theirs = false;
		struct inspect_node en = {
			.kind = INSPECT_ENTRY, .depth = c->depth + 1,
			.container = FATBIN_NV, .number = c->number,
			.index = (unsigned)n++, .nv = ent, .nv_base = p,
			.in_file = c->in_file && !packed,
			.size = ent.payload_size,
		};
		struct decoded here, *d;

		en.offset = en.in_file ? c->offset + ent.payload_offset : 0;
		if (w->o->inflate) {
			d = take(w->nv, p, c->offset, &ent, &here, &theirs);
			if (d->rc < 0) {
				en.decode_err = &d->err;
				en.hash = INSPECT_HASH_BAD;
			} else {
				en.data = d->code;
				en.code_size = d->size;
				en.hash = INSPECT_HASH_OK;
			}
		}
		rc = inspect_emit(w, &en);
		if (w->o->inflate && packed)
			reading(w, c->in_file, c->offset + ent.payload_offset,
				ent.payload_size, false);
		if (theirs)
			give_back(w->nv);
		if (rc < 0)
			return -1;
	}
	return 0;
}
