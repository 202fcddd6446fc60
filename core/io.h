/* io: whole-file inputs (mapped, not copied) and atomic outputs; made in
 * io_in.c, io_out.c, io_write.c, io_scratch.c and io_signal.c. */
#ifndef CORE_IO_H
#define CORE_IO_H

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
/* The same for a caller that needs only the first want bytes (want > 0):
 * a non-regular input is read no further than that, and is not refused
 * for having more (a regular file is mapped whole as ever). */
int io_in_open_part(struct io_in *in, const char *path, uint64_t want,
		    struct err *e);
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
 * hole of a sparse file (SEEK_DATA), in->len when only a hole is left.
 * Off for inputs read into memory, or when the file system cannot say. */
uint64_t io_in_next_data(const struct io_in *in, uint64_t off);

/* The path of a mapped input that shrank under a read of its map (the read
 * saw zeros where the file ended), or NULL.  While it is set,
 * io_out_commit refuses (the output was made from those zeros); an applet
 * reports it as the failure and clears it. */
const char *io_input_cut(void);
void io_input_cut_clear(void);
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
 * UINT64_MAX: a mapped input is searched a piece at a time, each piece let
 * go once searched (IO_IN_DONE) and holes skipped, so that the search
 * costs no memory that grows with the input.  The needle must hold no zero
 * byte (a hole is not searched). */
uint64_t io_in_find(const struct io_in *in, uint64_t from, uint64_t end,
		    const void *needle, size_t n);

/* An output written to a temporary file beside its destination and renamed
 * over it by io_out_commit, so a failed command leaves nothing half-written.
 * "-" is stdout, and an existing non-regular file (a device, a FIFO) is
 * written in place: neither can be replaced by rename.  An existing file we
 * may write in a directory we may not (where LLVM writes in place) is
 * staged in a scratch file and copied over the file at commit: a failure
 * before then leaves it as it was, and the copy is the only window.  A
 * symbolic link is followed, also to a file that does not exist yet. */
struct io_out {
	char *path;		/* as the user named it, for messages */
	char *dest;		/* where the rename goes: path, symlinks resolved */
	char *tmp;		/* the temporary, NULL when written in place */
	int fd;
	mode_t mode;
	bool scratch;		/* an unlinked scratch file (io_scratch_open) */
	/* An existing file in a directory we cannot write: staged in an
	 * unlinked scratch file, then copied over dest at commit. */
	bool copy_back;
	void *map;
	size_t map_len;
	uint64_t pos;		/* file offset of what goes out next */
	uint8_t *stage;		/* bytes short of a boundary (io_write.c) */
	bool holes;		/* io_out_hole skipped bytes */
	size_t staged;
};

int io_out_open(struct io_out *o, const char *path, struct err *e);
/* The same for a file a command names inside an output directory, where
 * someone else may have put things: path's last part is never followed.
 * A symbolic link or anything but a regular file there is refused; a
 * regular file is replaced by the rename (never written through, a hard
 * link included), and its permissions are not taken over. */
int io_out_open_in_dir(struct io_out *o, const char *path, struct err *e);
/* mkdir -p: path and its missing parents, 0777 less the umask. */
int io_mkdirs(const char *path, struct err *e);
/* Bytes that fall short of the next 64 KiB boundary of a file we own may
 * be held back until a later write reaches it, or io_out_flush. */
int io_out_write(struct io_out *o, const void *buf, size_t len, struct err *e);
int io_out_zeros(struct io_out *o, uint64_t n, struct err *e);
/* n zero bytes that need no disk: in a file we own, skipped (a hole,
 * where whole pages fall inside; the file's length is set at commit);
 * written as zeros to stdout or a file written in place. */
int io_out_hole(struct io_out *o, uint64_t n, struct err *e);
/* Copy in->data[off, off+len) to o, in the kernel where it can.  An input
 * that shrank since it was opened is an error, not a fault. */
int io_out_copy(struct io_out *o, const struct io_in *in, uint64_t off,
		uint64_t len, struct err *e);
/* Overwrite bytes already written, for headers whose fields are known only
 * at the end.  Only for outputs with a temporary (see io_out_seekable). */
int io_out_pwrite(struct io_out *o, const void *buf, size_t len, uint64_t off,
		  struct err *e);
bool io_out_seekable(const struct io_out *o);
/* Write out what io_write.c holds back for o (see io_out_write). */
int io_out_flush(struct io_out *o, struct err *e);
/* Give the output the permissions of the file in (what llvm-objcopy does
 * to what it writes): its mode less the umask and the set-ID bits, and,
 * run as root, its owner.  Nothing for stdout or a file written in place,
 * or when in cannot be looked at. */
void io_out_mode_from(struct io_out *o, const struct io_in *in);
/* Give the output the input's exact mode and, where allowed, its owner
 * and group: for a file replaced by its rewritten self (--in-place). */
void io_out_keep_mode(struct io_out *o, const struct io_in *in);
/* Close and rename into place.  Does nothing more if o was never opened. */
int io_out_commit(struct io_out *o, struct err *e);
/* Close and remove the temporary; the destination keeps its old content. */
void io_out_discard(struct io_out *o);
/* Outputs of one command that commit together, all or none (extract,
 * unpack-archive: the files written into an output directory).  After
 * io_out_together, io_out_commit does all but the rename (the temporary
 * stays, closed, till the end; a signal still removes it), and io_mkdirs
 * notes each directory it makes.  io_out_together_end then renames every
 * one into place when ok (0; -1 with e set when a rename fails, and the
 * outputs not yet renamed are removed), or, when not ok, removes every
 * temporary and, deepest first, each directory made that is left empty.
 * Standard output and files written in place are written at once, as
 * ever. */
void io_out_together(void);
int io_out_together_end(bool ok, struct err *e);

/* A scratch output: an unlinked file in $TMPDIR (or /tmp) for bytes that
 * must end up contiguous in memory.  io_scratch_map maps what was written;
 * the pages belong to the page cache, not to our heap.  io_out_discard
 * closes it, and the file is gone. */
int io_scratch_open(struct io_out *o, struct err *e);
int io_scratch_map(struct io_out *o, struct io_in *view, struct err *e);
/* Make the scratch file size bytes long and map all of it now, for bytes
 * still to be written (each readable once written and flushed). */
int io_scratch_reserve(struct io_out *o, uint64_t size, struct io_in *view,
		       struct err *e);

/* Remove every temporary still open and die by sig: installed for every
 * signal whose default action ends the process (SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE, SIGQUIT, SIGUSR1, SIGALRM, SIGSEGV, the real-time signals...)
 * but SIGKILL, unless the signal was inherited ignored; SIGXFSZ is ignored
 * instead, so that a write past RLIMIT_FSIZE fails with EFBIG and takes
 * the normal error path.  What SIGKILL leaves is named .NAME.XXXXXX beside
 * the output NAME (see offload(1)).  SIGBUS at an address inside a mapped
 * input is not deadly: the file shrank, the read goes on over zero pages
 * and io_input_cut names the file. */
void io_install_signal_cleanup(void);

#endif
