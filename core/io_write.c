/* io_write: bytes into an output (see io_write.h): written in pieces on 64 KiB
 * boundaries, copied from an input in the kernel where it can be, holes
 * skipped, headers overwritten. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_in.h"
#include "io_write.h"

/* How the page cache is filled decides how fast: it gives a write large
 * folios only at offsets aligned to their size, and this kernel (Linux
 * 6.18 on ext4, in a VM; measured) is slow with both the smallest and the
 * largest.  1 GB copied in the kernel to 4 KiB past a multiple of 64 KiB
 * takes 1.4x as long as to a multiple, and 500 MB written by one write()
 * 7x as long as in pieces of 64-128 KiB.  So: copies run between CHUNK
 * boundaries, a file we own stages what falls short of the next boundary
 * (a header, a padding, a copy's head and tail) until it is reached, and
 * no write() is larger than WRITE_MAX.  stdout and devices get no stage:
 * their bytes go out at once. */
#define CHUNK (64u * 1024)
#define WRITE_MAX (128u * 1024)

static bool staged(const struct io_out *o)
{
	return o->tmp || o->scratch || o->copy_back;
}

/* From the end of what is written and staged to the next boundary. */
static size_t to_boundary(const struct io_out *o)
{
	return CHUNK - (size_t)((o->pos + o->staged) % CHUNK);
}

static int write_all(struct io_out *o, const void *buf, size_t len,
		     struct err *e)
{
	const uint8_t *p = buf;
	bool touched = false;

	while (len) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0) {
			const char *cut;

			if (errno == EINTR)
				continue;
			/* The kernel could not read a mapped input: it
			 * shrank (the input's fault, not the output's), or
			 * a page of it could not be mapped (a hole on a full
			 * tmpfs), which touching it here reads in. */
			if (errno == EFAULT && (cut = io_in_mapped(p, len))) {
				const volatile bool *noted = io_in_cut_note(p);

				if (!touched && !*noted) {
					io_in_touch(p, len);
					touched = true;
					if (!*noted)
						continue;
				}
				io_input_cut_set(p, cut);
				return err_file(e, io_input_cut() ?
						io_input_cut() : cut,
						"file changed size while being "
						"read");
			}
			return err_sys(e, o->path, errno);
		}
		p += n;
		len -= (size_t)n;
		o->pos += (uint64_t)n;
		touched = false;
	}
	return 0;
}

static int flush(struct io_out *o, struct err *e)
{
	size_t n = o->staged;

	o->staged = 0;
	return n ? write_all(o, o->stage, n, e) : 0;
}

/* Page-aligned: pread from a page-aligned input offset into a buffer 16
 * bytes past a page boundary (where malloc puts it) ran at half speed. */
static int stage_alloc(struct io_out *o, struct err *e)
{
	if (!o->stage && !(o->stage = aligned_alloc(4096, CHUNK)))
		return err_nomem(e);
	return 0;
}

int io_out_write(struct io_out *o, const void *buf, size_t len, struct err *e)
{
	const uint8_t *p = buf;

	while (len) {
		size_t room = to_boundary(o), n;

		if (o->staged || (len < room && staged(o))) {
			n = len < room ? len : room;
			if (stage_alloc(o, e) < 0)
				return -1;
			memcpy(o->stage + o->staged, p, n);
			o->staged += n;
			if (n == room && flush(o, e) < 0)
				return -1;
		} else {
			n = len < WRITE_MAX ? len : WRITE_MAX;
			if (write_all(o, p, n, e) < 0)
				return -1;
		}
		p += n;
		len -= n;
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

int io_out_hole(struct io_out *o, uint64_t n, struct err *e)
{
	if (!o->tmp)
		return io_out_zeros(o, n, e);
	if (!n)
		return 0;
	if (flush(o, e) < 0)
		return -1;
	if (n > (uint64_t)INT64_MAX - o->pos ||
	    lseek(o->fd, (off_t)(o->pos + n), SEEK_SET) < 0)
		return err_sys(e, o->path, n > (uint64_t)INT64_MAX - o->pos
				? EFBIG : errno);
	o->pos += n;
	o->holes = true;
	return 0;
}

static int changed_size(const struct io_in *in, struct err *e)
{
	return err_file(e, in->path ? in->path : "input",
			"file changed size while being read");
}

/* Read n bytes of in at *off into the stage, n no more than to the next
 * boundary; a stage that reaches it goes out. */
static int stage_from(struct io_out *o, const struct io_in *in, uint64_t *off,
		      size_t n, struct err *e)
{
	if (stage_alloc(o, e) < 0)
		return -1;
	while (n) {
		ssize_t got = pread(in->fd, o->stage + o->staged, n,
				    (off_t)*off);

		if (got < 0 && errno == EINTR)
			continue;
		/* The end of the input before the end of its map: it shrank
		 * since it was opened. */
		if (got == 0)
			return changed_size(in, e);
		if (got < 0)
			return err_sys(e, in->path ? in->path : "input",
				       errno);
		o->staged += (size_t)got;
		*off += (uint64_t)got;
		n -= (size_t)got;
	}
	return to_boundary(o) == CHUNK ? flush(o, e) : 0;
}

static bool input_shrank(const struct io_in *in, uint64_t end)
{
	struct stat st;

	return fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < end;
}

/* copy_file_range of len bytes from in at *off to the output's position;
 * returns what is left when the kernel stopped short (0: all copied). */
static int64_t kernel_copy(struct io_out *o, const struct io_in *in,
			   uint64_t *off, uint64_t len, struct err *e)
{
	loff_t from = (loff_t)*off;

	while (len) {
		size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
		ssize_t n = copy_file_range(in->fd, &from, o->fd, NULL, chunk,
					    0);

		if (n == 0 && input_shrank(in, (uint64_t)from + len))
			return changed_size(in, e);
		if (n <= 0)
			break;
		len -= (uint64_t)n;
		o->pos += (uint64_t)n;
	}
	*off = (uint64_t)from;
	return (int64_t)len;
}

int io_out_copy(struct io_out *o, const struct io_in *in, uint64_t off,
		uint64_t len, struct err *e)
{
	/* A file we own: the bytes up to the next boundary join the stage,
	 * then whole pieces go by copy_file_range, which keeps them out of
	 * our address space, and the tail is staged.  The kernel copies whole
	 * pages of the input in 64 KiB runs, so its writes stay on the
	 * boundaries only when the input offset is a multiple of the page
	 * size there; otherwise pread into the stage, which is faster. */
	if (in->fd >= 0 && staged(o)) {
		size_t head = to_boundary(o) % CHUNK;
		uint64_t body;

		if (head > len)
			head = (size_t)len;
		if (stage_from(o, in, &off, head, e) < 0)
			return -1;
		len -= head;
		body = len - len % CHUNK;
		if (body && off % 4096 == 0 && !o->staged) {
			int64_t left = kernel_copy(o, in, &off, body, e);

			if (left < 0)
				return -1;
			len -= body - (uint64_t)left;
		}
		/* After a copy the kernel stopped short (a full disk, a file
		 * size limit: the write below reports it) the position is off
		 * the boundaries: never stage past the next one. */
		while (len) {
			size_t room = to_boundary(o);
			size_t n = len < room ? (size_t)len : room;

			if (stage_from(o, in, &off, n, e) < 0)
				return -1;
			len -= n;
		}
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
			o->pos += (uint64_t)n;
		}
		off = (uint64_t)from;
		if (!len)
			return 0;
	}
	return io_out_write(o, in->data + off, (size_t)len, e);
}

int io_out_copy_fd(struct io_out *o, int fd, const uint8_t *data,
		   const char *path, uint64_t off, uint64_t len, struct err *e)
{
	/* (io_out_copy reads an input's descriptor, bytes and name alone) */
	const struct io_in in = { .data = data, .fd = fd, .path = path };

	return io_out_copy(o, &in, off, len, e);
}

int io_out_pwrite(struct io_out *o, const void *buf, size_t len, uint64_t off,
		  struct err *e)
{
	const uint8_t *p = buf;

	if (flush(o, e) < 0)
		return -1;
	while (len) {
		ssize_t n = pwrite(o->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_sys(e, o->path, errno);
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

bool io_out_seekable(const struct io_out *o)
{
	return o->tmp != NULL || o->scratch || o->copy_back;
}

int io_out_flush(struct io_out *o, struct err *e)
{
	return flush(o, e);
}

