/* sha_pipe: a SHA-256 taken on a thread of its own, fed bytes as they
 * pass (a layer's tar read and written, sha256 of hundreds of megabytes:
 * a third of the CPU of the thread that walks it), so that the walk does
 * not wait for it.  The bytes are copied into a ring the thread hashes
 * out of; marks ride in the ring too, so that a mark costs the walk no
 * wait.  Only its own thread touches the digest until the pipe is
 * drained. */
#ifndef OPS_SHA_PIPE_H
#define OPS_SHA_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/sha256.h"

struct sha_pipe;

/* A pipe into s (and, at each mark, into mark: a copy of s then); NULL
 * with e filled when the thread or its ring cannot be made. */
struct sha_pipe *sha_pipe_new(struct sha256 *s, struct sha256 *mark,
			      struct err *e);
/* p[0..n) hashed after what came before: copied, so p may go. */
void sha_pipe_put(struct sha_pipe *sp, const void *p, size_t n);
/* mark made a copy of s once everything put before is hashed. */
void sha_pipe_mark(struct sha_pipe *sp);
/* Everything put hashed (and every mark made): s and mark are the
 * caller's to read until the next put.  -1 when a mark could not be
 * made (out of memory), else 0. */
int sha_pipe_drain(struct sha_pipe *sp);
/* Drained, its thread ended and its memory freed; NULL is nothing. */
void sha_pipe_free(struct sha_pipe *sp);

#endif
