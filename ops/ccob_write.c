/* ccob_write: data or a bundle plan compressed into one CCOB; see
 * ccob_write.h. */
#include <errno.h>
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

/* What to compress: data[0, len), arriving through g (or all there);
 * view maps it, so that what the compressor and the hasher are done with
 * can leave our memory (io_in_hint). */
struct source {
	const uint8_t *data;
	uint64_t len;
	struct gathering *g;
	const struct io_in *view;
};

/* How far the compressor may run ahead of the hasher: the pages between
 * them stay in memory. */
#define LAG ((uint64_t)16 << 20)
/* What stays mapped behind what the compressor has taken (zstd holds
 * back less than a block, and reads back into its window as it matches,
 * the nearest bytes most): with 2 MiB kept, `ccob -c` of 400 MB of code
 * faulted its pages in 4.7 times (30,000 faults), with 32 MiB 1.7 times
 * (11,000), for a peak RSS of 70 MB instead of 62. */
#define NEAR ((uint64_t)32 << 20)

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
	pthread_mutex_t lock;
	pthread_cond_t moved;
	uint64_t hashed;	/* bytes hashed so far */
	bool over;		/* the hasher returned */
	/* Bytes given to the compressor: the hasher runs no more than LAG
	 * ahead (UINT64_MAX: it need not wait, having no compressor). */
	uint64_t compressed;
};

/* The compressor has been given have bytes (UINT64_MAX: it stopped). */
static void compressed(struct hash_job *job, uint64_t have)
{
	pthread_mutex_lock(&job->lock);
	job->compressed = have;
	pthread_cond_broadcast(&job->moved);
	pthread_mutex_unlock(&job->lock);
}

/* Wait until want is no more than LAG past the compressor. */
static void wait_compressor(struct hash_job *job, uint64_t want)
{
	pthread_mutex_lock(&job->lock);
	while (job->compressed != UINT64_MAX && want > job->compressed + LAG)
		pthread_cond_wait(&job->moved, &job->lock);
	pthread_mutex_unlock(&job->lock);
}

static void hashed(struct hash_job *job, uint64_t have, bool over)
{
	pthread_mutex_lock(&job->lock);
	job->hashed = have;
	job->over = over;
	pthread_cond_broadcast(&job->moved);
	pthread_mutex_unlock(&job->lock);
}

/* Wait until the hasher is no more than LAG behind have (or gone); how
 * far it is. */
static uint64_t wait_hasher(struct hash_job *job, uint64_t have)
{
	uint64_t done;

	pthread_mutex_lock(&job->lock);
	while (job->hashed + LAG < have && !job->over)
		pthread_cond_wait(&job->moved, &job->lock);
	done = job->hashed;
	pthread_mutex_unlock(&job->lock);
	return done;
}

static void *hash_thread(void *arg)
{
	struct hash_job *job = arg;
	const struct source *s = job->src;
	struct ccob_hasher h;
	uint64_t have = 0;

	ccob_hasher_init(&h);
	while (have < s->len && !atomic_load(&job->quit)) {
		uint64_t want = next_want(s, have);
		int64_t ready;

		wait_compressor(job, want);
		ready = wait_ready(s, want, NULL);
		if (ready < 0)
			break;
		if ((uint64_t)ready > want)
			ready = (int64_t)want;
		ccob_hasher_add(&h, s->data + have,
				(size_t)((uint64_t)ready - have));
		have = (uint64_t)ready;
		hashed(job, have, false);
	}
	if (have == s->len)
		job->hash = ccob_hasher_end(&h);
	hashed(job, have, true);
	return NULL;
}

/* Where compressed bytes go: straight to a file whose header is patched at
 * the end, or, when the output cannot seek (stdout, a pipe), into memory
 * up to SPOOL_MEM and past that into a temporary file, both copied there
 * after the header. */
#define SPOOL_MEM ((size_t)16 << 20)
struct compressed_sink {
	struct io_out *out;
	/* Progress: the input the compressor has taken, of the whole (not
	 * the compressed bytes out, which stop at the ratio). */
	ccob_progress_fn *progress;
	void *progress_ctx;
	const struct ccob_encoder *enc;
	uint64_t total;
	uint8_t *mem;
	size_t len;
	struct io_out spool;	/* path set once opened */
};

/* A temporary file's failure, as one of the output's (whose name the
 * applet gives). */
static int spool_failed(const struct io_out *out, struct err *e)
{
	return err_sys_for(e, out->path, e->errnum ? e->errnum : EIO,
			   "temporary file");
}

static int sink_write(void *ctx, const void *p, size_t n, struct err *e)
{
	struct compressed_sink *k = ctx;

	if (io_out_seekable(k->out))
		return io_out_write(k->out, p, n, e);
	if (!k->spool.path && k->len + n <= SPOOL_MEM) {
		if (!k->mem && !(k->mem = malloc(SPOOL_MEM)))
			return err_nomem(e);
		memcpy(k->mem + k->len, p, n);
		k->len += n;
		return 0;
	}
	if (!k->spool.path) {
		if (io_scratch_open(&k->spool, e) < 0 ||
		    io_out_write(&k->spool, k->mem, k->len, e) < 0)
			return spool_failed(k->out, e);
		free(k->mem);
		k->mem = NULL;
		k->len = 0;
	}
	if (io_out_write(&k->spool, p, n, e) < 0)
		return spool_failed(k->out, e);
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

/* Compress what arrives, a run at a time; the pages both the compressor
 * (beyond its reach back) and the hasher (job, or NULL when it is done)
 * have passed leave our memory: peak RSS is the compressor's window and
 * LAG, whatever the size. */
static int compress_arriving(struct ccob_encoder *enc, const struct source *s,
			     struct hash_job *job, struct compressed_sink *sink,
			     struct err *e)
{
	uint64_t have = 0, low = 0;

	do {
		uint64_t want = next_want(s, have);
		int64_t ready = wait_ready(s, want, e);
		uint64_t hashed, in, reach = ccob_encoder_reach(enc), drop;

		if (ready < 0)
			return -1;
		/* A run at a time, though more may be there: pages leave
		 * behind the compressor only between calls. */
		have = (uint64_t)ready < want ? (uint64_t)ready : want;
		hashed = job ? wait_hasher(job, have) : s->len;
		if (ccob_encoder_grow(enc, s->data, (size_t)have,
				      have == s->len, sink_progress, sink,
				      e) < 0)
			return -1;
		if (job)
			compressed(job, have);
		in = ccob_encoder_in(enc);
		/* Everything more than NEAR behind leaves, each time:
		 * pages of the window zstd matches against fault back in
		 * from the page cache when it reads them, and leave again at
		 * the next run; beyond its reach they stay out. */
		drop = in > NEAR ? in - NEAR : 0;
		if (drop > hashed)
			drop = hashed;
		if (s->view && drop > low) {
			io_in_hint(s->view, low, drop, IO_IN_DONE);
			if (in > reach && in - reach > low)
				low = in - reach < drop ? in - reach : drop;
		}
	} while (have < s->len);
	return 0;
}

/* The header, then the compressed bytes spooled (see sink_write), to
 * out, which cannot seek. */
static int copy_spool(struct compressed_sink *k, struct io_out *out,
		      const uint8_t *head, size_t head_len, struct err *e)
{
	struct io_out *spool = &k->spool;
	struct io_in view;

	if (io_out_write(out, head, head_len, e) < 0)
		return -1;
	if (!spool->path)
		return io_out_write(out, k->mem, k->len, e);
	if (io_scratch_map(spool, &view, e) < 0)
		return spool_failed(out, e);
	view.fd = spool->fd;
	view.map = NULL;
	for (uint64_t off = 0; off < view.len; off += RUN) {
		uint64_t n = view.len - off < RUN ? view.len - off : RUN;
		struct io_in drop = view;

		if (io_out_copy(out, &view, off, n, e) < 0)
			return -1;
		/* A copy that went through the map leaves it. */
		drop.map = (void *)view.data;
		io_in_hint(&drop, off, off + n, IO_IN_DONE);
	}
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
	struct compressed_sink sink = { out, o->progress, o->progress_ctx,
					NULL, s->len, NULL, 0, { .fd = -1 } };
	struct ccob_encoder *enc = NULL;
	struct timespec t0, t1;
	uint8_t head[32] = { 0 };
	struct hash_job job = { .src = s };
	pthread_t hasher;
	bool threaded;
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (h.version < 3 && h.raw_size > UINT32_MAX)
		return err_set(e, "Uncompressed size exceeds version %u limit",
			       version);
	pthread_mutex_init(&job.lock, NULL);
	pthread_cond_init(&job.moved, NULL);
	/* Without a second thread, hash first: what is to come is all
	 * there, or comes without a thread to wait on (ccob_write_plan). */
	threaded = pthread_create(&hasher, NULL, hash_thread, &job) == 0;
	if (!threaded) {
		job.compressed = UINT64_MAX;
		hash_thread(&job);
	}
	enc = ccob_encoder_new(o->method, level, h.raw_size, e);
	sink.enc = enc;
	if (!enc ||
	    (io_out_seekable(out) &&
	     io_out_write(out, head, h.header_size, e) < 0) ||
	    compress_arriving(enc, s, threaded ? &job : NULL, &sink, e) < 0)
		goto out;
	if (threaded)
		pthread_join(hasher, NULL);
	threaded = false;
	if (job.hashed != s->len) {
		/* The gathering failed under the hasher alone: its error. */
		if (wait_ready(s, s->len, e) >= 0)
			err_code_set(e, ERR_TRUNCATED, "the input ended before "
				     "it was all hashed");
		goto out;
	}
	h.hash = job.hash;
	h.total_size = h.header_size + ccob_encoder_out(enc);
	if (h.version == 2 && h.total_size > UINT32_MAX) {
		err_set(e, "Total file size exceeds version 2 limit");
		goto out;
	}
	ccob_write_header(head, &h);
	if (io_out_seekable(out)
	    ? io_out_pwrite(out, head, h.header_size, 0, e) < 0
	    : copy_spool(&sink, out, head, h.header_size, e) < 0)
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
		compressed(&job, UINT64_MAX);
		if (s->g)
			stop_gathering(s->g);
		pthread_join(hasher, NULL);
	}
	ccob_encoder_free(enc);
	if (sink.spool.path)
		io_out_discard(&sink.spool);
	free(sink.mem);
	pthread_cond_destroy(&job.moved);
	pthread_mutex_destroy(&job.lock);
	return rc;
}

int ccob_write(const struct io_in *data, struct io_out *out,
	       const struct ccob_write_opts *o, struct ccob_stats *st,
	       struct err *e)
{
	struct source s = { data->data, data->len, NULL, data };

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
	/* The view is the scratch file's map (io_in_hint needs to know it). */
	view.map = (void *)view.data;
	s = (struct source){ view.data, plan->total, &g, &view };
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
