/* ccob_read: CCOBs decompressed with flat memory; see ccob_read.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ccob_read.h"

/* Below this, zstd's own window (no larger than the bundle) and the ring
 * of pieces are small enough: no temporary file. */
#define SMALL ((uint64_t)32 << 20)
/* Blocks of the temporary file are allocated this far ahead of the
 * decoder (which writes at most a few MiB past what it has delivered). */
#define AHEAD ((uint64_t)64 << 20)
/* Before decoding: enough for the decoder's first call (a few MiB at
 * most), little for a header whose declared size is then refused. */
#define FIRST ((uint64_t)8 << 20)

struct reading {
	const struct io_in *in;		/* holding the compressed bytes */
	uint64_t from;			/* where they start in it */
	bool done;			/* the decoder has reported */
	const struct ccob_limits *lim;	/* the caller's progress */
	int memfd;			/* what dst maps */
	uint8_t *dst;
	struct io_in view;		/* dst, for io_in_hint */
	uint64_t produced, allocated, low;
	uint64_t keep, punched;		/* the window, and what is gone */
	bool ring;			/* dst's pieces reuse the memfd's */
	ccob_sink sink;
	void *ctx;
};

/* The compressed bytes behind the decoder are not read again; those ahead
 * of it were touched by the walk over its frames before decoding, and are
 * let go once, to come back as the decoder reaches them. */
static void read_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct reading *r = ctx;

	if (r->lim->progress)
		r->lim->progress(r->lim->progress_ctx, done, total);
	if (r->in)
		io_in_hint(r->in, r->from + (r->done ? 0 : done),
			   r->from + (r->done ? done : total), IO_IN_DONE);
	r->done = true;
}

/* The walk over the frames before decoding: what it passed leaves. */
static void read_walked(void *ctx, uint64_t upto)
{
	struct reading *r = ctx;

	if (r->in)
		io_in_hint(r->in, r->from, r->from + upto, IO_IN_DONE);
}

/* The memory behind dst[off, off + len) taken now (fallocate): memory
 * that is not there is then an error, not a SIGBUS in the decoder. */
static int allocate(struct reading *r, uint64_t off, uint64_t len,
		    struct err *e)
{
	uint64_t size = r->view.len;
	int rc;

	if (r->ring)
		size = (uint64_t)lseek(r->memfd, 0, SEEK_END);
	if (off >= size)
		return 0;
	if (len > size - off)
		len = size - off;
	rc = posix_fallocate(r->memfd, (off_t)off, (off_t)len);
	return rc ? err_sys_for(e, NULL, rc, "memory for the decompressed "
				"bundle") : 0;
}

static int into_sink(void *ctx, const void *p, size_t n, struct err *e)
{
	struct reading *r = ctx;

	r->produced += n;
	if (r->allocated != UINT64_MAX &&
	    r->produced + AHEAD / 2 > r->allocated) {
		if (allocate(r, r->allocated, AHEAD, e) < 0)
			return -1;
		r->allocated += AHEAD;
	}
	return r->sink ? r->sink(r->ctx, p, n, e) : 0;
}

/* Everything below upto leaves, each time: pages of the window zstd read
 * back since come in again from the page cache, and leave here; those
 * further back than any window stay out. */
static void release(void *ctx, uint64_t upto)
{
	struct reading *r = ctx;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), gone;

	io_in_hint(&r->view, r->low, upto, IO_IN_DONE);
	if (upto > ((uint64_t)1 << 30))
		r->low = upto - ((uint64_t)1 << 30);
	/* Further back than any frame's window: never read again, and its
	 * memory goes back (new pages ahead are as many as these); in a
	 * ring, the pages are those ahead. */
	if (r->ring || r->keep == UINT64_MAX || upto < r->keep + page)
		return;
	gone = (upto - r->keep) / page * page;
	if (gone > r->punched &&
	    fallocate(r->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)r->punched, (off_t)(gone - r->punched)) == 0)
		r->punched = gone;
}

/* Behind what is decoded, beyond any window, what the hasher (LAG) and
 * the decoder's run (ROOM) may still hold: a ring is this much larger
 * than the window; and its pieces. */
#define SLACK ((uint64_t)64 << 20)
#define PIECE ((uint64_t)4 << 20)

/* dst: a map of `size` bytes of memory of its own (memfd), whose pages
 * leave our map as release says and come back from it as zstd reads its
 * window: no file system under it (a temporary file's pages cost twice
 * the decoding: allocated, journalled, written back).  When the window
 * is known and the bundle larger than it, a ring: piece i of dst maps
 * piece i mod n of the memfd, so that what is decoded lands on pages
 * already there, free since the hasher, the sink and zstd's window all
 * passed them (none allocated, zeroed or freed past the first turn). */
static int map_memory(struct reading *r, uint64_t size, struct err *e)
{
	uint64_t ring = size;
	uint8_t *m;

	r->memfd = memfd_create("offload-ccob", MFD_CLOEXEC);
	if (r->memfd < 0)
		return err_sys_for(e, NULL, errno, "memory for the "
				   "decompressed bundle");
	if (r->keep != UINT64_MAX && r->keep + SLACK < size) {
		ring = (r->keep + SLACK + PIECE - 1) / PIECE * PIECE;
		if (ring >= size)
			ring = size;
	}
	if (size > SIZE_MAX || ftruncate(r->memfd, (off_t)ring) < 0)
		goto fail;
	if (ring == size) {
		m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, r->memfd, 0);
		if (m == MAP_FAILED)
			goto fail;
	} else {
		m = mmap(NULL, (size_t)size, PROT_NONE, MAP_PRIVATE |
			 MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			goto fail;
		for (uint64_t at = 0; at < size; at += PIECE) {
			uint64_t n = size - at < PIECE ? size - at : PIECE;

			if (mmap(m + at, (size_t)n, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED, r->memfd,
				 (off_t)(at % ring)) == MAP_FAILED) {
				munmap(m, (size_t)size);
				goto fail;
			}
		}
		r->ring = true;
	}
	r->dst = m;
	memset(&r->view, 0, sizeof(r->view));
	r->view.data = m;
	r->view.map = m;
	r->view.len = (size_t)size;
	r->view.fd = -1;
	return 0;
fail:
	err_sys_for(e, NULL, size > SIZE_MAX ? EFBIG : errno,
		    "memory for the decompressed bundle");
	close(r->memfd);
	r->memfd = -1;
	return -1;
}

static void unmap_memory(struct reading *r)
{
	if (r->dst)
		munmap(r->dst, r->view.len);
	if (r->memfd >= 0)
		close(r->memfd);
}

int ccob_read_stream(const struct io_in *in, const uint8_t *buf, size_t len,
		     const struct ccob_header *h,
		     const struct ccob_limits *lim, ccob_sink sink, void *ctx,
		     size_t *used, uint64_t *hash, struct err *e)
{
	struct reading r = { .lim = lim, .sink = sink, .ctx = ctx };
	struct ccob_limits mine = *lim;
	int rc;

	if (in && buf >= in->data && buf < in->data + in->len) {
		r.in = in;
		r.from = (uint64_t)(buf - in->data) + h->header_size;
	}
	mine.progress = read_progress;
	mine.progress_ctx = &r;
	mine.walked = read_walked;
	if (h->raw_size < SMALL || h->raw_size > lim->max_size)
		return ccob_decompress_stream(buf, len, h, &mine, sink, ctx,
					      used, hash, e);
	r.memfd = -1;
	/* What zstd may read back, and a run it may be writing. */
	r.keep = ccob_window_size(buf, len, h, &mine);
	if (r.keep != UINT64_MAX)
		r.keep += (uint64_t)8 << 20;
	if (map_memory(&r, h->raw_size, e) < 0 ||
	    allocate(&r, 0, r.ring ? UINT64_MAX : FIRST, e) < 0) {
		unmap_memory(&r);
		/* No memory for it: the decoder's own window, then. */
		return ccob_decompress_stream(buf, len, h, &mine, sink, ctx,
					      used, hash, e);
	}
	r.allocated = r.ring ? UINT64_MAX : FIRST;
	io_in_hint(&r.view, 0, h->raw_size, IO_IN_SPARSE);
	rc = ccob_decompress_into(buf, len, h, &mine, r.dst, into_sink,
				  release, &r, used, hash, e);
	unmap_memory(&r);
	return rc;
}
