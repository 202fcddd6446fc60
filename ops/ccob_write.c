/* ccob_write: data or a bundle plan compressed into one CCOB; see
 * ccob_write.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccob_write.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/io_scratch.h"

/* Readers wait for this much more (or the end) before they go on: zstd
 * and MD5 run best over runs of some megabytes. */
#define RUN ((uint64_t)4 << 20)

/* A bundle plan gathered into a scratch file by a thread of its own while
 * the compressor and the hasher read what is there through a map of the
 * whole file: the copy is off the compressor's path. */
struct gathering {
	const struct bundle_plan *plan;
	const struct io_in *inputs;
	struct io_out scratch;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t moved;
	uint64_t ready;		/* written: readable through the map */
	bool done, failed, stop;
	struct err err;
};

/* What to compress: data[0, len), arriving through g (or all there). */
struct source {
	const uint8_t *data;
	uint64_t len;
	struct gathering *g;
};

/* Make ready what the scratch file holds; false once asked to stop. */
static bool publish(struct gathering *g)
{
	bool go;

	pthread_mutex_lock(&g->lock);
	g->ready = g->scratch.pos;
	go = !g->stop;
	pthread_cond_broadcast(&g->moved);
	pthread_mutex_unlock(&g->lock);
	return go;
}

static int gather_piece(struct gathering *g, const struct bundle_piece *p,
			struct err *e)
{
	const struct io_in *in = p->input >= 0 ? &g->inputs[p->input] : NULL;

	if (io_out_write(&g->scratch, p->lit, p->lit_len, e) < 0 ||
	    io_out_zeros(&g->scratch, p->pad, e) < 0)
		return -1;
	for (uint64_t off = 0; in && off < in->len; off += RUN) {
		uint64_t n = in->len - off < RUN ? in->len - off : RUN;

		if (io_out_copy(&g->scratch, in, off, n, e) < 0)
			return -1;
		if (!publish(g))
			return err_set(e, "stopped");
	}
	return 0;
}

static void *gather_thread(void *arg)
{
	struct gathering *g = arg;
	struct err e;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < g->plan->n; i++)
		rc = gather_piece(g, &g->plan->piece[i], &e);
	if (rc == 0)
		rc = io_out_flush(&g->scratch, &e);
	pthread_mutex_lock(&g->lock);
	if (rc == 0) {
		g->ready = g->scratch.pos;
		g->done = true;
	} else {
		g->failed = true;
		g->err = e;
	}
	pthread_cond_broadcast(&g->moved);
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/* Wait until want bytes are ready (want no more than the length); how
 * many are, or -1 when the gathering failed. */
static int64_t wait_ready(const struct source *s, uint64_t want,
			  struct err *e)
{
	struct gathering *g = s->g;
	int64_t ready;

	if (!g)
		return (int64_t)s->len;
	pthread_mutex_lock(&g->lock);
	while (g->ready < want && !g->done && !g->failed && !g->stop)
		pthread_cond_wait(&g->moved, &g->lock);
	ready = g->failed || g->stop ? -1 : (int64_t)g->ready;
	if (g->failed && e)
		*e = g->err;
	pthread_mutex_unlock(&g->lock);
	return ready;
}

/* Ask the gatherer to stop at its next run, and wake whoever waits. */
static void stop_gathering(struct gathering *g)
{
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_cond_broadcast(&g->moved);
	pthread_mutex_unlock(&g->lock);
}

static uint64_t next_want(const struct source *s, uint64_t have)
{
	return s->len - have < RUN ? s->len : have + RUN;
}

/* MD5 runs at about a third of zstd -3's speed on one core: hashing in a
 * second thread while the main one compresses takes it off the wall clock
 * (the machine has a core to spare; zstd's own workers would change the
 * frame, so it cannot be split the other way). */
struct hash_job {
	const struct source *src;
	uint64_t hash;
	atomic_bool quit;	/* the compressor failed */
};

static void *hash_thread(void *arg)
{
	struct hash_job *job = arg;
	const struct source *s = job->src;
	struct ccob_hasher h;
	uint64_t have = 0;

	ccob_hasher_init(&h);
	while (have < s->len && !atomic_load(&job->quit)) {
		int64_t ready = wait_ready(s, next_want(s, have), NULL);

		if (ready < 0)
			return NULL;
		ccob_hasher_add(&h, s->data + have,
				(size_t)((uint64_t)ready - have));
		have = (uint64_t)ready;
	}
	job->hash = ccob_hasher_end(&h);
	return NULL;
}

/* Where compressed bytes go: straight to a file whose header is patched at
 * the end, or into memory when the output cannot seek (stdout, a pipe). */
struct compressed_sink {
	struct io_out *out;
	uint8_t *mem;
	size_t len, cap;
	/* Progress: the input the compressor has taken, of the whole (not
	 * the compressed bytes out, which stop at the ratio). */
	ccob_progress_fn *progress;
	void *progress_ctx;
	const struct ccob_encoder *enc;
	uint64_t total;
};

static int sink_write(void *ctx, const void *p, size_t n, struct err *e)
{
	struct compressed_sink *k = ctx;

	if (io_out_seekable(k->out))
		return io_out_write(k->out, p, n, e);
	if (k->len + n > k->cap) {
		size_t ncap = (k->len + n) * 2;
		uint8_t *grown = realloc(k->mem, ncap);

		if (!grown)
			return err_nomem(e);
		k->mem = grown;
		k->cap = ncap;
	}
	memcpy(k->mem + k->len, p, n);
	k->len += n;
	return 0;
}

static int sink_progress(void *ctx, const void *p, size_t n, struct err *e)
{
	struct compressed_sink *k = ctx;

	if (k->progress && k->enc) {
		uint64_t done = ccob_encoder_in(k->enc);

		k->progress(k->progress_ctx, done > k->total ? k->total : done,
			    k->total);
	}
	return sink_write(ctx, p, n, e);
}

static int compress_arriving(struct ccob_encoder *enc, const struct source *s,
			     struct compressed_sink *sink, struct err *e)
{
	uint64_t have = 0;

	do {
		int64_t ready = wait_ready(s, next_want(s, have), e);

		if (ready < 0)
			return -1;
		have = (uint64_t)ready;
		if (ccob_encoder_grow(enc, s->data, (size_t)have,
				      have == s->len, sink_progress, sink,
				      e) < 0)
			return -1;
	} while (have < s->len);
	return 0;
}

static int compress(const struct source *s, struct io_out *out,
		    const struct ccob_write_opts *o, struct ccob_stats *st,
		    struct err *e)
{
	unsigned version = o->version;
	int level = o->level;
	struct ccob_header h = {
		.version = version, .method = o->method,
		.header_size = ccob_header_size(version),
		.raw_size = s->len,
	};
	struct compressed_sink sink = { out, NULL, 0, 0, o->progress,
					o->progress_ctx, NULL, s->len };
	struct ccob_encoder *enc = NULL;
	struct timespec t0, t1;
	uint8_t head[32] = { 0 };
	struct hash_job job = { s, 0, false };
	pthread_t hasher;
	bool threaded;
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (h.version < 3 && h.raw_size > UINT32_MAX)
		return err_set(e, "Uncompressed size exceeds version %u limit",
			       version);
	/* Without a second thread, hash first: what is to come is all
	 * there, or comes without a thread to wait on (ccob_write_plan). */
	threaded = pthread_create(&hasher, NULL, hash_thread, &job) == 0;
	if (!threaded)
		hash_thread(&job);
	enc = ccob_encoder_new(o->method, level, h.raw_size, e);
	sink.enc = enc;
	if (!enc ||
	    (io_out_seekable(out) &&
	     io_out_write(out, head, h.header_size, e) < 0) ||
	    compress_arriving(enc, s, &sink, e) < 0)
		goto out;
	if (threaded)
		pthread_join(hasher, NULL);
	threaded = false;
	h.hash = job.hash;
	h.total_size = h.header_size + ccob_encoder_out(enc);
	if (h.version == 2 && h.total_size > UINT32_MAX) {
		err_set(e, "Total file size exceeds version 2 limit");
		goto out;
	}
	ccob_write_header(head, &h);
	if (io_out_seekable(out)
	    ? io_out_pwrite(out, head, h.header_size, 0, e) < 0
	    : io_out_write(out, head, h.header_size, e) < 0 ||
	      io_out_write(out, sink.mem, sink.len, e) < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*st = (struct ccob_stats){
		.version = h.version, .method = h.method, .level = level,
		.total_size = h.total_size, .raw_size = h.raw_size,
		.compressed_size = ccob_encoder_out(enc),
		.stored_hash = h.hash, .computed_hash = h.hash,
		.seconds = (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	};
	rc = 0;
out:
	if (threaded) {
		atomic_store(&job.quit, true);
		if (s->g)
			stop_gathering(s->g);
		pthread_join(hasher, NULL);
	}
	ccob_encoder_free(enc);
	free(sink.mem);
	return rc;
}

int ccob_write(const struct io_in *data, struct io_out *out,
	       const struct ccob_write_opts *o, struct ccob_stats *st,
	       struct err *e)
{
	struct source s = { data->data, data->len, NULL };

	return compress(&s, out, o, st, e);
}

int ccob_write_plan(const struct bundle_plan *plan, const struct io_in *inputs,
		    struct io_out *out, const struct ccob_write_opts *o,
		    struct ccob_stats *st, struct err *e)
{
	struct gathering g = { .plan = plan, .inputs = inputs };
	struct io_in view;
	struct source s;
	int rc = -1;

	g.scratch.fd = -1;
	if (io_scratch_open(&g.scratch, e) < 0 ||
	    io_scratch_reserve(&g.scratch, plan->total, &view, e) < 0) {
		io_out_discard(&g.scratch);
		return -1;
	}
	s = (struct source){ view.data, plan->total, &g };
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.moved, NULL);
	if (pthread_create(&g.thread, NULL, gather_thread, &g) != 0) {
		/* No second thread: gather first, then compress. */
		gather_thread(&g);
		rc = compress(&s, out, o, st, e);
	} else {
		rc = compress(&s, out, o, st, e);
		stop_gathering(&g);
		pthread_join(g.thread, NULL);
	}
	pthread_cond_destroy(&g.moved);
	pthread_mutex_destroy(&g.lock);
	io_out_discard(&g.scratch);
	return rc;
}
