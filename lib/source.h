/* source: a file's bytes as the library reads them (source.c): mapped
 * with its hints, or read whole from a pipe; what offcode_source_* hand a
 * caller and what an artefact's open and the path walk use themselves. */
#ifndef LIB_SOURCE_H
#define LIB_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"

/* in = the file open as fd (duplicated: fd stays the caller's), named
 * path in messages (kept by the caller while in is open), with its
 * headers' hint (sparse), a pipe's reads cut short by a signal asking
 * stop (NULL: tried again): 0, or -1 with e filled. */
int source_map_fd(struct io_in *in, int fd, const char *path,
		  const struct io_stop *stop, struct err *e);
/* The walk is about to read [off, off + len) of in in order (start), or
 * is done with it: read ahead, or let its pages go (and sparse again, as
 * the rest). */
void source_reading(const struct io_in *in, uint64_t off, uint64_t len,
		    bool start);

#endif
