/* io_write: bytes into an output (io_write.c). */
#ifndef CORE_IO_WRITE_H
#define CORE_IO_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "io_in.h"
#include "io_types.h"

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
/* The same of an input known by its descriptor fd (-1: none), its bytes
 * data (those fd holds, mapped or read: written from when the kernel
 * cannot copy) and its name path for messages (NULL: "input"), for a
 * caller that has them from elsewhere than a struct io_in (extract, from
 * liboffcode's offcode_source). */
int io_out_copy_fd(struct io_out *o, int fd, const uint8_t *data,
		   const char *path, uint64_t off, uint64_t len, struct err *e);
/* Overwrite bytes already written, for headers whose fields are known only
 * at the end.  Only for outputs with a temporary (see io_out_seekable). */
int io_out_pwrite(struct io_out *o, const void *buf, size_t len, uint64_t off,
		  struct err *e);
bool io_out_seekable(const struct io_out *o);
/* Write out what io_write.c holds back for o (see io_out_write). */
int io_out_flush(struct io_out *o, struct err *e);

#endif
