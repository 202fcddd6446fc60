/* io_impl: what the parts of io (see io.h) share; no other file includes
 * it.  io_in.c: inputs; io_out.c: outputs opened and committed; io_write.c:
 * what goes into them; io_scratch.c: scratch files; io_signal.c: the
 * signal handlers that remove temporaries. */
#ifndef CORE_IO_IMPL_H
#define CORE_IO_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "io.h"

/* The path of the mapped input that holds [p, p+n), or NULL (io_in.c). */
const char *io_in_mapped(const void *p, size_t n);
/* Read a byte of each page of [p, p+n), inside a mapped input: a page
 * the map cannot give faults here, where io_in_fault reads it in, or, in
 * a file that shrank, notes the file (io_input_cut).  For a system call
 * that failed with EFAULT on those bytes. */
void io_in_touch(const void *p, size_t n);
/* Name path as the input that was cut short (see io_input_cut). */
void io_input_cut_set(const char *path);
/* A read of a mapped input past the end of the file it has become: zero
 * pages from the faulting page (of page_size bytes) to the end of the map
 * (mmap is a plain system call, safe in a signal handler in practice
 * though POSIX does not list it), the file noted, and true: the read goes
 * on.  A fault in a file that kept its size (a hole of a sparse file on a
 * full tmpfs, which has no page to map there) reads that page with pread
 * instead.  False for an address in no mapped input, or a page that
 * cannot be read. */
bool io_in_fault(void *addr, size_t page_size);

/* Temporaries a deadly signal removes (io_signal.c); a fixed table, so
 * that a signal handler need not allocate. */
void io_pending_add(char *tmp);
void io_pending_remove(const char *tmp);

/* An unlinked file in $TMPDIR (or /tmp), *where (io_scratch.c). */
int io_scratch_fd(const char **where);

#endif
