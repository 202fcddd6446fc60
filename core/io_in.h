/* io_in: whole-file inputs, mapped, not copied (io_in.c). */
#ifndef CORE_IO_IN_H
#define CORE_IO_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

/* An input file's bytes: mapped when it is a regular file, read into memory
 * when it is a pipe, a terminal or stdin ("-").  fd stays open for mapped
 * files so outputs can copy from it in the kernel. */
struct io_in {
	const uint8_t *data;
	size_t len;
	int fd;
	void *map;
	uint8_t *heap;
	const char *path;	/* as opened, for messages (not owned) */
};

/* Open path ("-" = stdin).  On failure e says "'<path>': <why>".  An
 * input that is not a regular file (a pipe, a FIFO, a device) is read to
 * its end into memory, and refused when that end is past
 * io_stream_max bytes: /dev/zero is an error, not a hang. */
int io_in_open(struct io_in *in, const char *path, struct err *e);
/* The same for a file the caller opened (and checked) itself: fd is
 * taken (kept by in, or closed), path names it in messages. */
int io_in_open_fd(struct io_in *in, int fd, const char *path, struct err *e);
/* The same for a caller that needs only the first want bytes (want > 0):
 * a non-regular input is read no further than that, and is not refused
 * for having more (a regular file is mapped whole as ever). */
int io_in_open_part(struct io_in *in, const char *path, uint64_t want,
		    struct err *e);
/* What a read of a pipe, FIFO or terminal (or a FIFO's open, waiting for
 * its writer) asks when a signal cuts it short (EINTR): interrupted(ctx)
 * nonzero stops the open, e then saying
 * "'<path>': Interrupted system call" (errno EINTR); zero, or no hook,
 * reads on.  For a caller whose signal handlers only note the signal (a
 * Python interpreter's): the hook acts on the note. */
struct io_stop {
	int (*interrupted)(void *ctx);
	void *ctx;
};
/* io_in_open_part (want > 0) or io_in_open (want 0), and io_in_open_fd,
 * with stop (NULL: every cut-short read tried again). */
int io_in_open_stop(struct io_in *in, const char *path, uint64_t want,
		    const struct io_stop *stop, struct err *e);
int io_in_open_fd_stop(struct io_in *in, int fd, const char *path,
		       const struct io_stop *stop, struct err *e);
/* open(path) for reading, close-on-exec: a FIFO's wait for its writer
 * that a signal cuts short asks stop as a read does (NULL: it fails with
 * EINTR, as open does).  The descriptor, or -1 with errno. */
int io_in_open_wait(const char *path, const struct io_stop *stop);
/* The most bytes read from a non-regular input: $OFFLOAD_STREAM_MAX, else
 * IO_STREAM_MAX_DEFAULT; 0 with e filled when the variable is bad. */
enum { IO_STREAM_MAX_DEFAULT = 1 << 30 };
uint64_t io_stream_max(struct err *e);
void io_in_close(struct io_in *in);
/* An input that is the regular file standard output writes to (cat's
 * "input file is output file": what is written would overwrite what is
 * read): REFUSE, the default, fails io_in_open with that reason; READ
 * reads it whole into memory first, as LLVM's tools read every input
 * (the LLVM-named applets, which write what LLVM writes there). */
enum io_stdout_input { IO_STDOUT_INPUT_REFUSE, IO_STDOUT_INPUT_READ };
void io_stdout_input(enum io_stdout_input how);
/* The same refusal before the input is opened, for an applet that writes
 * to standard output first (a listing's header): 0, or -1 with e set. */
int io_in_check_stdout(const char *path, struct err *e);
/* Where in's data go on at or after off: off itself unless off is in a
 * hole of a sparse file (SEEK_DATA), in->len when only a hole is left
 * (or the file now ends before off: it is noted as cut, io_input_cut).
 * Off for inputs read into memory, or when the file system cannot say. */
uint64_t io_in_next_data(const struct io_in *in, uint64_t off);

/* The path of a mapped input that shrank under a read of its map (the read
 * saw zeros where the file ended), or NULL.  While it is set,
 * io_out_commit refuses (the output was made from those zeros); an applet
 * reports it as the failure and clears it.  Noted only in a process that
 * asked for it (io_input_cut_track: the tool, at start); a library reads
 * each map's note (io_in_cut_note) instead. */
const char *io_input_cut(void);
void io_input_cut_track(void);
void io_input_cut_clear(void);
/* The note of the one map that holds p, set when that map is found cut
 * short as io_input_cut is (a fault, io_in_next_data), but for it alone;
 * NULL for bytes in no registered map.  Valid while the map is open:
 * looked up once, read as often as wanted (a walk, at each node). */
const volatile bool *io_in_cut_note(const void *p);
/* Whether the map that holds p was cut short: noted so, or its file now
 * shorter than the map (cut inside its last page read, which reads zeros
 * past the end with no fault: noted then).  False for bytes in no map. */
bool io_in_cut_since(const void *p);
/* How the caller will read bytes [off, end) of a mapped input (a hint;
 * nothing for one read into memory):
 * SPARSE  only scattered pieces (headers): no read-ahead around each page
 *         touched (the kernel's is 8 MiB on some disks);
 * WHOLE   all of them, in order: read ahead there;
 * DONE    not again for now: their pages leave the process's map, not the
 *         page cache (a stream's peak resident memory then does not grow
 *         with the input); the advice given for them stays. */
enum io_in_use { IO_IN_SPARSE, IO_IN_WHOLE, IO_IN_DONE };
void io_in_hint(const struct io_in *in, uint64_t off, uint64_t end,
		enum io_in_use use);
/* Where needle[0, n) first occurs in in's bytes [from, end), or
 * UINT64_MAX: a mapped input is read a piece at a time into a buffer of
 * its own (its map's pages are never faulted in) and its holes skipped,
 * so that the search costs no memory that grows with the input.  The
 * needle must hold no zero byte (a hole is not searched). */
/* IO_IN_DONE for bytes [p, p + n) of any input, known by its address
 * alone: their pages leave the map when p lies in a mapped input's map
 * (never a neighbour's page the range only touches); nothing for bytes
 * in memory.  For code that holds a buffer, not the struct io_in. */
void io_in_release(const void *p, size_t n);
/* dst[0, n) = the bytes [p, p + n) of any input, known by its address
 * alone: read from the file with pread when p lies in a mapped input's
 * map (no page of the map is faulted in for them), else copied; what
 * pread cannot give is copied from the map (a file cut short is then
 * noted as its map's reads note it). */
void io_in_copy(void *dst, const void *p, size_t n);
uint64_t io_in_find(const struct io_in *in, uint64_t from, uint64_t end,
		    const void *needle, size_t n);

/* For the other parts of io (io_out.c, io_write.c, io_signal.c). */
/* The path of the mapped input that holds [p, p+n), or NULL (io_in.c). */
const char *io_in_mapped(const void *p, size_t n);
/* Read a byte of each page of [p, p+n), inside a mapped input: a page
 * the map cannot give faults here, where io_in_fault reads it in, or, in
 * a file that shrank, notes the file (io_input_cut).  For a system call
 * that failed with EFAULT on those bytes. */
void io_in_touch(const void *p, size_t n);
/* Note the mapped input that holds p, named path, as cut short (its map's
 * note, and io_input_cut where tracked). */
void io_input_cut_set(const void *p, const char *path);
/* A read of a mapped input past the end of the file it has become: zero
 * pages from the faulting page (of page_size bytes) to the end of the map
 * (mmap is a plain system call, safe in a signal handler in practice
 * though POSIX does not list it), the file noted, and true: the read goes
 * on.  A fault in a file that kept its size (a hole of a sparse file on a
 * full tmpfs, which has no page to map there) reads that page with pread
 * instead.  False for an address in no mapped input, or a page that
 * cannot be read. */
bool io_in_fault(void *addr, size_t page_size);

#endif
