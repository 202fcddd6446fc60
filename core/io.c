/* io: whole-file inputs (mapped, not copied) and atomic outputs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

static int read_all(int fd, struct io_in *in, const char *path, struct err *e)
{
	size_t cap = 0, len = 0;
	uint8_t *buf = NULL;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nbuf = realloc(buf, ncap);

			if (!nbuf) {
				free(buf);
				return err_set(e, "'%s': %s", path,
					       strerror(ENOMEM));
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			int saved = errno;

			if (saved == EINTR)
				continue;
			free(buf);
			return err_set(e, "'%s': %s", path, strerror(saved));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	in->heap = buf;
	in->data = buf;
	in->len = len;
	return 0;
}

int io_in_open(struct io_in *in, const char *path, struct err *e)
{
	struct stat st;
	int fd;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = path;
	if (!strcmp(path, "-"))
		return read_all(0, in, path, e);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, "'%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		int saved = S_ISDIR(st.st_mode) ? EISDIR : errno;

		close(fd);
		return err_set(e, "'%s': %s", path, strerror(saved));
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ,
				 MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			in->map = map;
			in->data = map;
			in->len = (size_t)st.st_size;
			in->fd = fd;
			return 0;
		}
	}
	if (read_all(fd, in, path, e) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

void io_in_close(struct io_in *in)
{
	if (in->map)
		munmap(in->map, in->len);
	free(in->heap);
	if (in->fd >= 0)
		close(in->fd);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}

/* Temporaries that a signal must remove.  A fixed table: a command opens a
 * handful of outputs, and a signal handler may not allocate. */
enum { MAX_PENDING = 256 };
static char *volatile pending[MAX_PENDING];

static void pending_add(char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = tmp;
			return;
		}
}

static void pending_remove(const char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i] == tmp)
			pending[i] = NULL;
}

static void cleanup_and_die(int sig)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void io_install_signal_cleanup(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGBUS };

	/* Past `ulimit -f`, SIGXFSZ would kill us with the temporary left
	 * behind; ignored, the write fails with EFBIG and is reported. */
	signal(SIGXFSZ, SIG_IGN);

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = cleanup_and_die;
		sigemptyset(&sa.sa_mask);
		/* Keep an inherited "ignore" (nohup, a shell's background job). */
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* Where the rename must land: through a symlink to its target, as an
 * in-place write would. */
static char *resolve_dest(const char *path)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (real)
			return real;
	}
	return strdup(path);
}

static int out_open(struct io_out *o, const char *path, struct err *e)
{
	struct stat st;
	char *dir_copy = NULL;
	mode_t mask;
	int exists;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = strdup(path);
	if (!o->path)
		return err_set(e, "'%s': %s", path, strerror(ENOMEM));
	if (!strcmp(path, "-")) {
		o->fd = 1;
		return 0;
	}
	o->dest = resolve_dest(path);
	if (!o->dest)
		return err_set(e, "'%s': %s", path, strerror(ENOMEM));
	exists = stat(o->dest, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return err_set(e, "'%s': %s", path, strerror(EISDIR));
	if (exists && !S_ISREG(st.st_mode)) {
		o->fd = open(o->dest, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (o->fd < 0)
			return err_set(e, "'%s': %s", path, strerror(errno));
		return 0;
	}
	mask = umask(0);
	umask(mask);
	o->mode = exists ? (st.st_mode & 07777) : (0666 & ~mask);

	dir_copy = strdup(o->dest);
	o->tmp = dir_copy ? malloc(strlen(o->dest) + 32) : NULL;
	if (!o->tmp) {
		free(dir_copy);
		return err_set(e, "'%s': %s", path, strerror(ENOMEM));
	}
	{
		char *base_copy = strdup(o->dest);
		const char *dir = dirname(dir_copy);
		const char *base = base_copy ? basename(base_copy) : "out";

		snprintf(o->tmp, strlen(o->dest) + 32, "%s/.%.*s.XXXXXX", dir,
			 200, base);
		free(base_copy);
	}
	free(dir_copy);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		int saved = errno;

		free(o->tmp);
		o->tmp = NULL;
		return err_set(e, "'%s': %s", path, strerror(saved));
	}
	pending_add(o->tmp);
	if (fchmod(o->fd, o->mode) < 0) {
		int saved = errno;

		io_out_discard(o);
		return err_set(e, "'%s': %s", path, strerror(saved));
	}
	return 0;
}

void io_out_mode_from(struct io_out *o, const struct io_in *in)
{
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	if (!o->tmp || (in->fd >= 0 ? fstat(in->fd, &st)
			: !in->path || !strcmp(in->path, "-") ? -1
			: stat(in->path, &st)) < 0 || !S_ISREG(st.st_mode))
		return;
	o->mode = st.st_mode & 07777 & ~mask & ~(mode_t)06000;
	if (geteuid() == 0 && fchown(o->fd, st.st_uid, st.st_gid) < 0)
		return;
	(void)fchmod(o->fd, o->mode);
}

/* A failed open holds nothing: the caller need not discard it. */
int io_out_open(struct io_out *o, const char *path, struct err *e)
{
	if (out_open(o, path, e) == 0)
		return 0;
	io_out_discard(o);
	return -1;
}

int io_out_write(struct io_out *o, const void *buf, size_t len, struct err *e)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_set(e, "'%s': %s", o->path, strerror(errno));
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int io_out_zeros(struct io_out *o, uint64_t n, struct err *e)
{
	static const uint8_t zeros[4096];

	while (n) {
		size_t chunk = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

		if (io_out_write(o, zeros, chunk, e) < 0)
			return -1;
		n -= chunk;
	}
	return 0;
}

/* Copies through the page cache go fastest in pieces of this size at
 * output offsets that are multiples of it (see io_out_copy). */
#define COPY_ALIGN (64u * 1024)

static bool input_shrank(const struct io_in *in, uint64_t end)
{
	struct stat st;

	return fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < end;
}

/* copy_file_range from in at *from to o's position, len bytes; returns
 * what is left when the kernel stopped (0 = done), or -1 with e set. */
static int64_t kernel_copy(struct io_out *o, const struct io_in *in,
			   loff_t *from, uint64_t len, struct err *e)
{
	while (len) {
		size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
		ssize_t n = copy_file_range(in->fd, from, o->fd, NULL, chunk, 0);

		/* The end of the input before the end of its map: the file
		 * shrank, and the map past its end would fault. */
		if (n == 0 && input_shrank(in, (uint64_t)*from + len))
			return err_set(e, "'%s': file changed size while being "
				       "read", in->path ? in->path : "input");
		if (n <= 0)
			break;
		len -= (uint64_t)n;
	}
	return (int64_t)len;
}

/* pread/write through a buffer, each write landing on a COPY_ALIGN
 * boundary of the output; returns what is left, as kernel_copy. */
static int64_t buffered_copy(struct io_out *o, const struct io_in *in,
			     uint64_t *from, uint64_t len, uint64_t at,
			     struct err *e)
{
	uint8_t *buf = malloc(COPY_ALIGN);
	size_t want = COPY_ALIGN - at % COPY_ALIGN;

	if (!buf)
		return (int64_t)len;
	while (len) {
		ssize_t n = pread(in->fd, buf, want < len ? want : (size_t)len,
				  (off_t)*from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 && input_shrank(in, *from + len)) {
			free(buf);
			return err_set(e, "'%s': file changed size while being "
				       "read", in->path ? in->path : "input");
		}
		if (n <= 0 || io_out_write(o, buf, (size_t)n, e) < 0) {
			free(buf);
			return n > 0 ? -1 : (int64_t)len;
		}
		*from += (uint64_t)n;
		len -= (uint64_t)n;
		want = COPY_ALIGN - (at += (uint64_t)n) % COPY_ALIGN;
	}
	free(buf);
	return 0;
}

int io_out_copy(struct io_out *o, const struct io_in *in, uint64_t off,
		uint64_t len, struct err *e)
{
	/* Into a file: in the kernel where it can, so the bytes stay out of
	 * our address space and memory does not grow with the input.  Where
	 * the copy lands decides its speed: the page cache gives a write
	 * large folios only at offsets aligned to their size, and a copy that
	 * starts (say) 4 KiB into the output, after a bundle's header, fills
	 * it page by page, 1.5x slower than cat (measured, Linux 6.18 on
	 * ext4).  So copy up to the next COPY_ALIGN boundary first.  The
	 * kernel moves whole pages of the input, so that keeps the output
	 * aligned only when input and output offsets agree modulo the page
	 * size; otherwise pread/write, each write aligned, is as fast as cat
	 * (and the kernel's copy is not). */
	if (in->fd >= 0 && (o->tmp || o->scratch)) {
		off_t at = lseek(o->fd, 0, SEEK_CUR);
		int64_t left = (int64_t)len;

		if (at >= 0 && (uint64_t)at % 4096 != off % 4096) {
			left = buffered_copy(o, in, &off, len, (uint64_t)at, e);
		} else if (at >= 0) {
			loff_t from = (loff_t)off;
			uint64_t head = (COPY_ALIGN - (uint64_t)at % COPY_ALIGN) %
					COPY_ALIGN;

			if (head > len)
				head = len;
			left = kernel_copy(o, in, &from, head, e);
			if (left == 0)
				left = kernel_copy(o, in, &from, len - head, e);
			else if (left > 0)
				left += (int64_t)(len - head);
			off = (uint64_t)from;
		}
		if (left < 0)
			return -1;
		len = (uint64_t)left;
		if (!len)
			return 0;
	}
	/* Any other output (stdout, a pipe, a device): sendfile, which keeps
	 * them out of our address space too. */
	if (in->fd >= 0) {
		off_t from = (off_t)off;

		while (len) {
			size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
			ssize_t n = sendfile(o->fd, in->fd, &from, chunk);

			if (n <= 0)
				break;
			len -= (uint64_t)n;
		}
		off = (uint64_t)from;
		if (!len)
			return 0;
	}
	return io_out_write(o, in->data + off, (size_t)len, e);
}

int io_out_pwrite(struct io_out *o, const void *buf, size_t len, uint64_t off,
		  struct err *e)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(o->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_set(e, "'%s': %s", o->path, strerror(errno));
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

bool io_out_seekable(const struct io_out *o)
{
	return o->tmp != NULL || o->scratch;
}

int io_scratch_open(struct io_out *o, struct err *e)
{
	const char *dir = getenv("TMPDIR");

	memset(o, 0, sizeof(*o));
	if (!dir || !*dir)
		dir = "/tmp";
	o->path = strdup("temporary file");
	if (!o->path)
		return err_set(e, "out of memory");
	o->scratch = true;
	o->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (o->fd < 0) {
		/* No O_TMPFILE here: a named file, unlinked at once. */
		char *name = malloc(strlen(dir) + 32);

		if (name) {
			sprintf(name, "%s/offload-scratch.XXXXXX", dir);
			o->fd = mkostemp(name, O_CLOEXEC);
			if (o->fd >= 0)
				unlink(name);
			free(name);
		}
	}
	if (o->fd < 0)
		return err_set(e, "temporary file in '%s': %s", dir,
			       strerror(errno));
	return 0;
}

int io_scratch_map(struct io_out *o, struct io_in *view, struct err *e)
{
	struct stat st;

	memset(view, 0, sizeof(*view));
	view->fd = -1;
	if (fstat(o->fd, &st) < 0)
		return err_set(e, "temporary file: %s", strerror(errno));
	if (st.st_size) {
		o->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED,
			      o->fd, 0);
		if (o->map == MAP_FAILED) {
			o->map = NULL;
			return err_set(e, "temporary file: %s", strerror(errno));
		}
		o->map_len = (size_t)st.st_size;
	}
	view->data = o->map;
	view->len = (size_t)st.st_size;
	return 0;
}

/* Forget an output whose descriptor is closed; drop its temporary too. */
static void release(struct io_out *o, bool remove_tmp)
{
	if (o->map)
		munmap(o->map, o->map_len);
	if (o->tmp && remove_tmp)
		unlink(o->tmp);
	if (o->tmp)
		pending_remove(o->tmp);
	free(o->tmp);
	free(o->dest);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

int io_out_commit(struct io_out *o, struct err *e)
{
	int rc = 0;

	if (!o->path)
		return 0;
	if (o->fd > 1 && close(o->fd) < 0)
		rc = err_set(e, "'%s': %s", o->path, strerror(errno));
	o->fd = -1;
	if (rc == 0 && o->tmp && rename(o->tmp, o->dest) < 0)
		rc = err_set(e, "'%s': %s", o->path, strerror(errno));
	release(o, rc < 0);
	return rc;
}

void io_out_discard(struct io_out *o)
{
	if (o->fd > 1)
		close(o->fd);
	release(o, true);
}

void io_in_sparse(const struct io_in *in)
{
	/* The kernel reads ahead around each page fault of a mapping (8 MiB
	 * on some disks): for a few headers in a large file that is most of
	 * the file read for nothing. */
	if (in->map && in->len)
		madvise(in->map, in->len, MADV_RANDOM);
}
