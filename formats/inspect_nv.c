/* inspect_nv: the entries of an NVIDIA fatbin, for the walk of inspect.c
 * (see inspect.h).  A walk that inflates decodes them one entry ahead of
 * the visitor, on a second thread: extracting a CUDA library is half
 * LZ4/zstd and half creating and writing files, and the two then overlap.
 * The entries are still visited one at a time, in order, each decoded
 * buffer reused once its visit is over. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inspect_walk.h"
#include "nvfatbin.h"

/* Entries decoded ahead of the one being visited, at most. */
enum { AHEAD = 4 };

/* One entry as the decoder left it. */
struct decoded {
	const uint8_t *code;
	uint64_t size;
	struct nvfatbin_scratch scratch;	/* reused from entry to entry */
	int rc;
	struct err err;
};

struct ahead {
	struct walk *w;
	struct inspect_node *c;
	const uint8_t *p;
	const struct nvfatbin_entry *ents;
	size_t n;
	struct decoded slot[AHEAD];
	/* Under lock: entries decoded, entries visited (their slots free
	 * again), and whether the visitor stopped the walk. */
	pthread_mutex_t lock;
	pthread_cond_t moved;
	size_t decoded, visited;
	bool stop, threaded;
	pthread_t thread;
};

static void reading(struct walk *w, bool in_file, uint64_t off, uint64_t len,
		    bool start)
{
	if (in_file && w->o->reading)
		w->o->reading(w->o->data_ctx, off, len, start);
}

static void decode(struct ahead *a, struct inspect_node *c, size_t i)
{
	struct decoded *d = &a->slot[i % AHEAD];

	if (nvfatbin_compressed(&a->ents[i]))
		reading(a->w, c->in_file, c->offset + a->ents[i].payload_offset,
			a->ents[i].payload_size, true);
	d->rc = nvfatbin_code_into(a->p, &a->ents[i], a->w->o->ccob.max_size,
				   &d->code, &d->size, &d->scratch,
				   &d->err);
}

static void *decode_thread(void *arg)
{
	struct ahead *a = arg;

	pthread_mutex_lock(&a->lock);
	for (size_t i = 0; i < a->n; i++) {
		while (i - a->visited >= AHEAD && !a->stop)
			pthread_cond_wait(&a->moved, &a->lock);
		if (a->stop)
			break;
		pthread_mutex_unlock(&a->lock);
		decode(a, a->c, i);
		pthread_mutex_lock(&a->lock);
		a->decoded = i + 1;
		pthread_cond_broadcast(&a->moved);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* A thread only where it can run beside us and has work worth one: two
 * compressed entries or more. */
static void ahead_start(struct ahead *a)
{
	size_t packed = 0;

	for (size_t i = 0; i < a->n && packed < 2; i++)
		packed += nvfatbin_compressed(&a->ents[i]);
	if (packed < 2 || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->moved, NULL);
	a->threaded = pthread_create(&a->thread, NULL, decode_thread, a) == 0;
	if (!a->threaded) {
		pthread_cond_destroy(&a->moved);
		pthread_mutex_destroy(&a->lock);
	}
}

/* Entry i, decoded: by the thread (waiting for it), or here. */
static struct decoded *ahead_get(struct ahead *a, size_t i)
{
	if (!a->threaded) {
		decode(a, a->c, i);
		return &a->slot[i % AHEAD];
	}
	pthread_mutex_lock(&a->lock);
	while (a->decoded <= i)
		pthread_cond_wait(&a->moved, &a->lock);
	pthread_mutex_unlock(&a->lock);
	return &a->slot[i % AHEAD];
}

static void ahead_done(struct ahead *a, size_t i)
{
	if (!a->threaded)
		return;
	pthread_mutex_lock(&a->lock);
	a->visited = i + 1;
	pthread_cond_broadcast(&a->moved);
	pthread_mutex_unlock(&a->lock);
}

static void ahead_end(struct ahead *a)
{
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
}

static int visit_entries(struct walk *w, struct inspect_node *c,
			 struct ahead *a)
{
	if (w->o->inflate)
		ahead_start(a);
	for (size_t i = 0; i < a->n; i++) {
		const struct nvfatbin_entry *ent = &a->ents[i];
		bool packed = nvfatbin_compressed(ent);
		struct inspect_node en = {
			.kind = INSPECT_ENTRY, .depth = c->depth + 1,
			.container = INSPECT_NV, .number = c->number,
			.index = (unsigned)i, .nv = *ent, .nv_base = a->p,
			.in_file = c->in_file && !packed,
			.size = ent->payload_size,
		};
		int rc;

		en.offset = en.in_file ? c->offset + ent->payload_offset : 0;
		if (w->o->inflate) {
			struct decoded *d = ahead_get(a, i);

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
			reading(w, c->in_file, c->offset + ent->payload_offset,
				ent->payload_size, false);
		if (w->o->inflate)
			ahead_done(a, i);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int inspect_walk_nv(struct walk *w, struct inspect_node *c, const uint8_t *p,
		    uint64_t size)
{
	struct nvfatbin_header h;
	struct nvfatbin_entry ent, *ents = NULL;
	struct ahead a = { .w = w, .c = c, .p = p };
	uint64_t pos;
	size_t n = 0;
	int rc;

	if (nvfatbin_open(p, (size_t)size, &h, w->e) < 0)
		return -1;
	for (pos = h.header_size; (rc = nvfatbin_next(p, &h, &pos, &ent, w->e)) > 0;)
		n++;
	if (rc < 0)
		return -1;
	c->version = h.version;
	c->entries = n;
	if (inspect_emit(w, c) < 0)
		return -1;
	/* Each entry header takes bytes of the fatbin: n is bounded by its
	 * size. */
	if (n && !(ents = malloc(n * sizeof(*ents)))) {
		err_code_set(w->e, ERR_NOMEM, "out of memory");
		return -1;
	}
	n = 0;
	for (pos = h.header_size; nvfatbin_next(p, &h, &pos, &ent, w->e) > 0;)
		ents[n++] = ent;
	a.ents = ents;
	a.n = n;
	rc = visit_entries(w, c, &a);
	ahead_end(&a);
	free(ents);
	return rc;
}
