/* io_scratch: scratch outputs, unlinked files (io_scratch.c). */
#ifndef CORE_IO_SCRATCH_H
#define CORE_IO_SCRATCH_H

#include <stdint.h>

#include "err.h"
#include "io_in.h"
#include "io_types.h"

/* A scratch output: an unlinked file in $TMPDIR (or /tmp) for bytes that
 * must end up contiguous in memory.  io_scratch_map maps what was written;
 * the pages belong to the page cache, not to our heap.  io_out_discard
 * closes it, and the file is gone. */
int io_scratch_open(struct io_out *o, struct err *e);
int io_scratch_map(struct io_out *o, struct io_in *view, struct err *e);
/* io_scratch_map for a view read once, in order, however large: its
 * descriptor (view->fd) lets io_out_copy copy by the kernel, and its map
 * (view->map) lets io_in_hint(IO_IN_DONE) drop the pages read, so that
 * reading it costs no resident memory that grows with it.  The view is
 * the scratch file's still: never io_in_close it. */
int io_scratch_view(struct io_out *o, struct io_in *view, struct err *e);
/* Make the scratch file size bytes long and map all of it now, for bytes
 * still to be written (each readable once written and flushed). */
int io_scratch_reserve(struct io_out *o, uint64_t size, struct io_in *view,
		       struct err *e);

/* Make the scratch file size bytes long and map all of it, readable and
 * writable, at *map: bytes written there reach the file.  A page written
 * must have its blocks first (io_scratch_allocate): a full disk then is
 * an error, not a SIGBUS. */
int io_scratch_writable(struct io_out *o, uint64_t size, uint8_t **map,
			struct err *e);
int io_scratch_allocate(struct io_out *o, uint64_t off, uint64_t len,
			struct err *e);

/* io_in_open for a caller that reads the input whole, once (ccob -c of a
 * pipe): one that is not a regular file is copied to its end into an
 * unlinked scratch file, which is mapped, so that what it holds goes to
 * the page cache, not our heap, and leaves our memory as it is read
 * (IO_IN_DONE).  The same limit, io_stream_max, holds. */
int io_scratch_open_input(struct io_in *in, const char *path,
			  struct err *e);

/* An unlinked file in $TMPDIR (or /tmp), *where (io_scratch.c). */
int io_scratch_fd(const char **where);

#endif
