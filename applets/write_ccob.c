/* write_ccob: writing a bundle plan as one CCOB (bundler and ccob applets). */
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "write_ccob.h"

write_ccob_progress write_ccob_on_progress;

int write_ccob_gather(const struct bundle_plan *plan,
		      const struct io_in *inputs, struct io_out *scratch,
		      struct io_in *view, struct err *e)
{
	if (io_scratch_open(scratch, e) < 0)
		return -1;
	for (size_t i = 0; i < plan->n; i++) {
		const struct bundle_piece *p = &plan->piece[i];

		if (io_out_write(scratch, p->lit, p->lit_len, e) < 0 ||
		    io_out_zeros(scratch, p->pad, e) < 0 ||
		    (p->input >= 0 &&
		     io_out_copy(scratch, &inputs[p->input], 0,
				 inputs[p->input].len, e) < 0))
			return -1;
	}
	return io_scratch_map(scratch, view, e);
}

/* MD5 runs at about a third of zstd -3's speed on one core: hashing in a
 * second thread while the main one compresses takes it off the wall clock
 * (the machine has a core to spare; zstd's own workers would change the
 * frame, so it cannot be split the other way). */
struct hash_job {
	const struct io_in *data;
	uint64_t hash;
};

static void *hash_thread(void *arg)
{
	struct hash_job *job = arg;

	job->hash = ccob_hash(job->data->data, job->data->len);
	return NULL;
}

/* Where compressed bytes go: straight to a file whose header is patched at
 * the end, or into memory when the output cannot seek (stdout, a pipe). */
struct compressed_sink {
	struct io_out *out;
	uint8_t *mem;
	size_t len, cap;
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
			return err_set(e, "out of memory");
		k->mem = grown;
		k->cap = ncap;
	}
	memcpy(k->mem + k->len, p, n);
	k->len += n;
	return 0;
}

/* Progress while compressing: input is consumed about as fast as output
 * appears, which is close enough for a progress line. */
static uint64_t progress_done, progress_total;

static int sink_progress(void *ctx, const void *p, size_t n, struct err *e)
{
	progress_done += n;
	if (write_ccob_on_progress)
		write_ccob_on_progress(progress_done > progress_total
				       ? progress_total : progress_done,
				       progress_total);
	return sink_write(ctx, p, n, e);
}

int write_ccob(const struct io_in *data, struct io_out *out, unsigned version,
	       unsigned method, int level, struct ccob_stats *st,
	       struct err *e)
{
	struct ccob_header h = {
		.version = version, .method = method,
		.header_size = ccob_header_size(version),
		.raw_size = data->len,
	};
	struct compressed_sink sink = { out, NULL, 0, 0 };
	struct ccob_encoder *enc = NULL;
	struct timespec t0, t1;
	uint8_t head[32] = { 0 };
	struct hash_job job = { data, 0 };
	pthread_t hasher;
	bool threaded;
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (h.version < 3 && h.raw_size > UINT32_MAX)
		return err_set(e, "Uncompressed size exceeds version %u limit",
			       version);
	progress_total = data->len;
	progress_done = 0;
	threaded = pthread_create(&hasher, NULL, hash_thread, &job) == 0;
	if (!threaded)
		hash_thread(&job);
	enc = ccob_encoder_new(method, level, h.raw_size, e);
	if (!enc ||
	    (io_out_seekable(out) &&
	     io_out_write(out, head, h.header_size, e) < 0) ||
	    ccob_encoder_all(enc, data->data, data->len, sink_progress, &sink,
			     e) < 0)
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
	if ((io_out_seekable(out)
	     ? io_out_pwrite(out, head, h.header_size, 0, e)
	     : io_out_write(out, head, h.header_size, e) < 0 ||
	       io_out_write(out, sink.mem, sink.len, e)) < 0)
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
	if (threaded)
		pthread_join(hasher, NULL);
	ccob_encoder_free(enc);
	free(sink.mem);
	return rc;
}
