/* io_in: whole-file inputs, mapped, not copied (see io_in.h); a pipe, FIFO
 * or device read into memory no further than a bound; a mapped file that
 * shrinks under a read noted, not a crash. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "io_in.h"

uint64_t io_stream_max(struct err *e)
{
	uint64_t max = IO_STREAM_MAX_DEFAULT;

	if (env_positive_u64("OFFLOAD_STREAM_MAX", &max, e) < 0)
		return 0;
	return max;
}

/* Read fd to its end, or to max bytes.  fail_past: what to do when more
 * bytes follow max: fail, or stop there (a caller that needs no more).
 * A read a signal cuts short is tried again unless stop says to stop. */
static int read_all(int fd, struct io_in *in, const char *path, uint64_t max,
		    bool fail_past, const struct io_stop *stop, struct err *e)
{
	size_t cap = 0, len = 0;
	uint8_t *buf = NULL;

	if (max > SIZE_MAX - 1)
		max = SIZE_MAX - 1;
	for (;;) {
		ssize_t n;
		size_t want;

		if (len == cap) {
			/* One byte past max tells whether more follow. */
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nbuf;

			if (cap > SIZE_MAX / 2 || ncap > max + 1)
				ncap = (size_t)max + 1;
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				free(buf);
				return err_sys(e, path, ENOMEM);
			}
			buf = nbuf;
			cap = ncap;
		}
		want = cap - len;
		if (!fail_past && want > max - len)
			want = (size_t)(max - len);
		if (!want)
			break;
		n = read(fd, buf + len, want);
		if (n < 0) {
			int saved = errno;

			if (saved == EINTR &&
			    !(stop && stop->interrupted &&
			      stop->interrupted(stop->ctx)))
				continue;
			free(buf);
			return err_sys(e, path, saved);
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			free(buf);
			err_file(e, path, "not a regular file, and longer than "
				 "%llu bytes (the limit OFFLOAD_STREAM_MAX "
				 "sets)", (unsigned long long)max);
			return -1;
		}
	}
	in->heap = buf;
	in->data = buf;
	in->len = len;
	return 0;
}

/* Inputs mapped now.  A file that shrinks after it was mapped faults
 * (SIGBUS) where a read reaches past its new end; the handler looks the
 * address up here, puts zero pages over the rest of that map so the read
 * goes on, and notes the file (io_input_cut).  From then on nothing is
 * committed and the first failure reported is that input's.  The handler
 * scans the table without allocating or locking: chunks of slots, the
 * first static, each further one mapped when all are taken and linked in
 * by one atomic store, never freed; a slot is claimed by an atomic flag
 * and is seen by the handler once its start is stored.  No fixed bound:
 * every map is in it (a map past 256 was not, and died of its fault). */
enum { MAPS_CHUNK = 256 };
struct mapped {
	void *_Atomic start;	/* NULL: a free slot, or one being filled */
	uintptr_t volatile len;
	const char *volatile path;
	int volatile fd;
	/* Pages of the map read by pread into memory of our own (see
	 * io_in_fault): MADV_DONTNEED would drop them. */
	bool volatile patched;
	/* Noted cut short (as input_cut is, but for this map alone): what a
	 * library checks, where no applet reads the process's note. */
	bool volatile cut;
	atomic_bool taken;
};
static struct maps_chunk {
	struct mapped m[MAPS_CHUNK];
	struct maps_chunk *_Atomic next;
} maps;
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2,
	       "the SIGBUS handler reads the table's pointers lock-free");
static const char *volatile input_cut;
/* Whether a cut is noted for the process too (io_input_cut): the tool's
 * (io_input_cut_track), whose applets and io_out read that note; a
 * library's process reads each map's alone (io_in_cut_note), so that a
 * file cut short fails the call on it and no later one. */
static volatile bool track_process;

void io_input_cut_track(void)
{
	track_process = true;
}

/* m cut short: noted for it, and for the process when tracked. */
static void note_cut(struct mapped *m, const char *path)
{
	if (m)
		m->cut = true;
	if (track_process && !input_cut)
		input_cut = path;
}

/* 0, or -1 when no slot is free and no chunk can be mapped. */
static int map_add(const struct io_in *in)
{
	struct maps_chunk *c = &maps;

	for (;;) {
		struct maps_chunk *next, *none = NULL;

		for (int i = 0; i < MAPS_CHUNK; i++) {
			struct mapped *m = &c->m[i];
			bool no = false;

			if (atomic_load_explicit(&m->taken,
						 memory_order_relaxed) ||
			    !atomic_compare_exchange_strong(&m->taken, &no,
							    true))
				continue;
			m->len = in->len;
			m->path = in->path;
			m->fd = in->fd;
			m->patched = false;
			m->cut = false;
			atomic_store_explicit(&m->start, in->map,
					      memory_order_release);
			return 0;
		}
		next = atomic_load_explicit(&c->next, memory_order_acquire);
		if (!next) {
			/* (mapped, not malloc'd: zeroed, and apart from the
			 * heap the handler never touches) */
			next = mmap(NULL, sizeof(*next), PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (next == MAP_FAILED)
				return -1;
			/* Another thread linked one first: take that. */
			if (!atomic_compare_exchange_strong(&c->next, &none,
							    next)) {
				munmap(next, sizeof(*next));
				next = none;
			}
		}
		c = next;
	}
}

static void map_remove(const void *map)
{
	for (struct maps_chunk *c = &maps; c;
	     c = atomic_load_explicit(&c->next, memory_order_acquire))
		for (int i = 0; i < MAPS_CHUNK; i++) {
			struct mapped *m = &c->m[i];

			if (atomic_load_explicit(&m->start,
						 memory_order_relaxed) != map)
				continue;
			atomic_store_explicit(&m->start, NULL,
					      memory_order_release);
			atomic_store_explicit(&m->taken, false,
					      memory_order_release);
			return;
		}
}

/* The registered map that holds [p, p+n), or NULL. */
static struct mapped *map_of(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;

	for (struct maps_chunk *c = &maps; c;
	     c = atomic_load_explicit(&c->next, memory_order_acquire))
		for (int i = 0; i < MAPS_CHUNK; i++) {
			struct mapped *m = &c->m[i];
			uintptr_t start = (uintptr_t)atomic_load_explicit(
				&m->start, memory_order_acquire);

			if (start && a - start < m->len &&
			    n <= m->len - (a - start))
				return m;
		}
	return NULL;
}

/* A page of a file that kept its size which the map could not give (a
 * hole of a sparse file on a full tmpfs needs a page of its own to be
 * mapped): read into an anonymous page put in its place.  False when
 * that fails too (a read error: the fault stays deadly). */
static atomic_flag patching = ATOMIC_FLAG_INIT;

static bool patch_page(struct mapped *m, uintptr_t page, size_t page_size)
{
	uintptr_t start = (uintptr_t)atomic_load_explicit(&m->start,
							  memory_order_acquire);
	size_t want = page_size, got = 0;
	unsigned char resident = 0;
	uint8_t *p = MAP_FAILED;
	bool ok = false;

	/* Threads that fault on the same page (the hash thread and the
	 * compressor read one input) patch it one at a time, and a page
	 * another thread patched meanwhile is left as it is. */
	while (atomic_flag_test_and_set_explicit(&patching,
						 memory_order_acquire))
		;
	if (mincore((void *)page, page_size, &resident) == 0 &&
	    (resident & 1)) {
		ok = true;
		goto out;
	}
	if (start + m->len - page < want)
		want = start + m->len - page;
	/* Filled aside, then moved into place in one step: no thread sees
	 * the page half read. */
	p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		goto out;
	while (got < want) {
		ssize_t n = pread(m->fd, p + got, want - got,
				  (off_t)(page - start + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0) {	/* it shrank after all: zeros from here */
			note_cut(m, m->path);
			break;
		}
		got += (size_t)n;
	}
	mprotect(p, page_size, PROT_READ);
	if (mremap(p, page_size, page_size, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)page) == MAP_FAILED)
		goto out;
	p = MAP_FAILED;
	m->patched = true;
	ok = true;
out:
	if (p != MAP_FAILED)
		munmap(p, page_size);
	atomic_flag_clear_explicit(&patching, memory_order_release);
	return ok;
}

bool io_in_fault(void *addr, size_t page_size)
{
	uintptr_t a = (uintptr_t)addr;
	struct mapped *m = map_of(addr, 1);

	if (m) {
		uintptr_t start = (uintptr_t)atomic_load_explicit(
			&m->start, memory_order_acquire);
		uintptr_t page = a & ~(page_size - 1);
		uintptr_t end = (start + m->len + page_size - 1) &
				~(page_size - 1);
		struct stat st;
		int saved = errno;

		/* The file is as long as it was: the page is there, the map
		 * could not give it (no memory for a hole's page). */
		if (fstat(m->fd, &st) == 0 && (uint64_t)st.st_size >= m->len) {
			bool ok = patch_page(m, page, page_size);

			errno = saved;
			return ok;
		}
		errno = saved;
		if (mmap((void *)page, end - page, PROT_READ,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) !=
		    MAP_FAILED) {
			note_cut(m, m->path);
			return true;
		}
	}
	return false;
}

const char *io_in_mapped(const void *p, size_t n)
{
	const struct mapped *m = map_of(p, n);

	return m ? m->path : NULL;
}

void io_in_touch(const void *p, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	const volatile uint8_t *b = p;

	if (!n || page <= 0)
		return;
	for (size_t at = 0; at < n; at += (size_t)page -
		     ((uintptr_t)(b + at) % (size_t)page))
		(void)b[at];
	(void)b[n - 1];
}

const volatile bool *io_in_cut_note(const void *p)
{
	struct mapped *m = map_of(p, 1);

	return m ? &m->cut : NULL;
}

bool io_in_cut_since(const void *p)
{
	struct mapped *m = map_of(p, 1);
	struct stat st;

	if (!m)
		return false;
	if (!m->cut && fstat(m->fd, &st) == 0 && (uint64_t)st.st_size < m->len)
		note_cut(m, m->path);
	return m->cut;
}

const char *io_input_cut(void)
{
	return input_cut;
}

void io_input_cut_clear(void)
{
	input_cut = NULL;
}

void io_input_cut_set(const void *p, const char *path)
{
	note_cut(map_of(p, 1), path);
}

static enum io_stdout_input stdout_input = IO_STDOUT_INPUT_REFUSE;

void io_stdout_input(enum io_stdout_input how)
{
	stdout_input = how;
}

/* Whether st is the regular file standard output writes to. */
static bool is_stdout(const struct stat *st)
{
	struct stat out;

	return S_ISREG(st->st_mode) && fstat(1, &out) == 0 &&
	       S_ISREG(out.st_mode) && out.st_dev == st->st_dev &&
	       out.st_ino == st->st_ino;
}

int io_in_check_stdout(const char *path, struct err *e)
{
	struct stat st;

	if (stdout_input == IO_STDOUT_INPUT_REFUSE && strcmp(path, "-") &&
	    stat(path, &st) == 0 && is_stdout(&st))
		return err_file(e, path, "input file is output file");
	return 0;
}

/* The input open as fd (taken: closed on failure, or kept by in). */
static int in_fd(struct io_in *in, int fd, const char *path, uint64_t max,
		 bool fail_past, const struct io_stop *stop, struct err *e)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		int saved = S_ISDIR(st.st_mode) ? EISDIR : errno;

		close(fd);
		return err_sys(e, path, saved);
	}
	if (is_stdout(&st)) {
		int rc = -1;

		if (stdout_input == IO_STDOUT_INPUT_REFUSE)
			err_file(e, path, "input file is output file");
		else
			rc = read_all(fd, in, path, UINT64_MAX, true, stop,
				      e);
		close(fd);
		return rc;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ,
				 MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			in->map = map;
			in->data = map;
			in->len = (size_t)st.st_size;
			in->fd = fd;
			if (map_add(in) == 0)
				return 0;
			/* Unprotected, a fault would kill: not kept. */
			munmap(map, (size_t)st.st_size);
			close(fd);
			memset(in, 0, sizeof(*in));
			in->fd = -1;
			return err_sys(e, path, ENOMEM);
		}
	}
	if (read_all(fd, in, path, max, fail_past, stop, e) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int in_open(struct io_in *in, const char *path, uint64_t want,
		   const struct io_stop *stop, struct err *e)
{
	uint64_t max = io_stream_max(e);
	bool fail_past = true;
	int fd;

	if (!max)
		return -1;
	if (want && want <= max) {
		max = want;
		fail_past = false;
	}

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = path;
	if (!strcmp(path, "-"))
		return read_all(0, in, path, max, fail_past, stop, e);
	fd = io_in_open_wait(path, stop);
	if (fd < 0)
		return err_sys(e, path, errno);
	return in_fd(in, fd, path, max, fail_past, stop, e);
}

int io_in_open_wait(const char *path, const struct io_stop *stop)
{
	for (;;) {
		int fd = open(path, O_RDONLY | O_CLOEXEC), saved = errno;

		if (fd >= 0 || saved != EINTR || !stop || !stop->interrupted ||
		    stop->interrupted(stop->ctx)) {
			errno = saved;
			return fd;
		}
	}
}

int io_in_open_fd(struct io_in *in, int fd, const char *path, struct err *e)
{
	return io_in_open_fd_stop(in, fd, path, NULL, e);
}

int io_in_open_fd_stop(struct io_in *in, int fd, const char *path,
		       const struct io_stop *stop, struct err *e)
{
	uint64_t max = io_stream_max(e);

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = path;
	if (!max) {
		close(fd);
		return -1;
	}
	return in_fd(in, fd, path, max, true, stop, e);
}

int io_in_open(struct io_in *in, const char *path, struct err *e)
{
	return in_open(in, path, 0, NULL, e);
}

int io_in_open_part(struct io_in *in, const char *path, uint64_t want,
		    struct err *e)
{
	return in_open(in, path, want, NULL, e);
}

int io_in_open_stop(struct io_in *in, const char *path, uint64_t want,
		    const struct io_stop *stop, struct err *e)
{
	return in_open(in, path, want, stop, e);
}

uint64_t io_in_next_data(const struct io_in *in, uint64_t off)
{
	off_t d;

	if (!in->map || in->fd < 0 || off >= in->len || off > INT64_MAX)
		return off;
	d = lseek(in->fd, (off_t)off, SEEK_DATA);
	if (d < 0 && errno == ENXIO) {
		struct stat st;

		/* No data at or after off: a hole to the end, or a file that
		 * now ends before off.  That one is cut short as surely as a
		 * read of its map would have found (the reader skips to the
		 * end and reads no zeros to fault on). */
		if (fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < in->len)
			note_cut(map_of(in->map, 1), in->path);
		return in->len;
	}
	if (d < 0)
		return off;
	return (uint64_t)d < in->len ? (uint64_t)d : in->len;
}

/* The name of an input noted as cut short, kept past its close: the
 * path it was opened under may be freed with it (a library handle's
 * copy), before the note is reported. */
static char cut_kept[ERR_PATH_MAX];

void io_in_close(struct io_in *in)
{
	if (in->path && input_cut == in->path) {
		snprintf(cut_kept, sizeof(cut_kept), "%s", in->path);
		input_cut = cut_kept;
	}
	if (in->map) {
		map_remove(in->map);
		munmap(in->map, in->len);
	}
	free(in->heap);
	if (in->fd >= 0)
		close(in->fd);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}

void io_in_hint(const struct io_in *in, uint64_t off, uint64_t end,
		enum io_in_use use)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t from, to;
	uint8_t *base = in->map;

	if (!in->map || page <= 0)
		return;
	if (use == IO_IN_DONE) {
		const struct mapped *m = map_of(in->map, 1);

		if (m && m->patched)
			return;	/* what was read in would be lost */
	}
	if (end > in->len)
		end = in->len;
	if (off >= end)
		return;
	if (use == IO_IN_DONE) {
		/* Only the pages wholly inside: those the range starts and
		 * ends in may be a neighbour's (a read-only private map loses
		 * nothing either way; this saves faulting them back). */
		from = (off + (uint64_t)page - 1) / (uint64_t)page *
		       (uint64_t)page;
		to = end / (uint64_t)page * (uint64_t)page;
		if (from < to)
			madvise(base + from, (size_t)(to - from),
				MADV_DONTNEED);
		return;
	}
	/* Advice: every page the range touches (madvise rounds the length
	 * up). */
	from = off / (uint64_t)page * (uint64_t)page;
	to = end;
	if (use == IO_IN_SPARSE) {
		madvise(base + from, (size_t)(to - from), MADV_RANDOM);
		return;
	}
	madvise(base + from, (size_t)(to - from), MADV_SEQUENTIAL);
	madvise(base + from, (size_t)(to - from), MADV_WILLNEED);
}

void io_in_release(const void *p, size_t n)
{
	const struct mapped *m = n ? map_of(p, n) : NULL;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from, to;

	if (!m || m->patched || !page || (page & (page - 1)))
		return;
	from = ((uintptr_t)p + page - 1) & ~(page - 1);
	to = ((uintptr_t)p + n) & ~(page - 1);
	if (from < to)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

void io_in_copy(void *dst, const void *p, size_t n)
{
	const struct mapped *m = n ? map_of(p, n) : NULL;
	size_t done = 0;

	if (m && !m->patched) {
		off_t at = (off_t)((uintptr_t)p - (uintptr_t)atomic_load(
						     &m->start));

		while (done < n) {
			ssize_t r = pread(m->fd, (uint8_t *)dst + done,
					  n - done, at + (off_t)done);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			done += (size_t)r;
		}
	}
	memcpy((uint8_t *)dst + done, (const uint8_t *)p + done, n - done);
}

uint64_t io_in_find(const struct io_in *in, uint64_t from, uint64_t end,
		    const void *needle, size_t n)
{
	enum { PIECE = 1 << 20 };
	uint64_t pos = from, found = UINT64_MAX;
	uint8_t *buf = NULL;

	if (end > in->len)
		end = in->len;
	if (!n || n > PIECE || pos > end || n > end - pos)
		return UINT64_MAX;
	/* A mapped file is read a piece at a time into a buffer of our own
	 * (cheaper than faulting its pages in, and they never stay), else
	 * searched where it is. */
	if (in->map && in->fd >= 0)
		buf = malloc(PIECE + n - 1);
	if (!buf) {
		const uint8_t *at = memmem(in->data + pos, (size_t)(end - pos),
					   needle, n);

		return at ? (uint64_t)(at - in->data) : UINT64_MAX;
	}
	while (pos < end && n <= end - pos) {
		/* A hole holds only zeros, and the needle has none. */
		uint64_t data = io_in_next_data(in, pos);
		size_t want, got = 0;
		const uint8_t *at;

		if (data > pos) {
			pos = data;
			continue;
		}
		/* Each piece overlaps the next by n - 1 bytes. */
		want = end - pos > PIECE + n - 1 ? PIECE + n - 1
						 : (size_t)(end - pos);
		while (got < want) {
			ssize_t r = pread(in->fd, buf + got, want - got,
					  (off_t)(pos + got));

			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got < want) {
			/* The file shrank, or cannot be read: its map says
			 * what is there (io_in's patching of a cut input). */
			memcpy(buf + got, in->data + pos + got, want - got);
		}
		at = memmem(buf, want, needle, n);
		if (at) {
			found = pos + (uint64_t)(at - buf);
			break;
		}
		pos += want - (n - 1);
	}
	free(buf);
	return found;
}
