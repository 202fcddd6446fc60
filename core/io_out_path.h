/* io_out_path: the outputs named by a path (io_out_open,
 * io_out_open_replace of io_out.h): the temporary made beside where the
 * path leads, or, for an existing file we may write in a directory we
 * may not, the bytes staged and copied over it at commit (io_out_path.c). */
#ifndef CORE_IO_OUT_PATH_H
#define CORE_IO_OUT_PATH_H

#include <stdbool.h>

#include "err.h"
#include "io_types.h"

/* o opened for path as io_out_open (replace: io_out_open_replace) opens
 * it: 0, or -1 with e filled (o to discard). */
int io_out_path_open(struct io_out *o, const char *path, bool replace,
		     struct err *e);
/* The staged bytes over the file (o->copy_back), in the kernel where it
 * can: 0, or -1 with e filled. */
int io_out_path_copy_back(struct io_out *o, struct err *e);

#endif
