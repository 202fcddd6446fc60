/* layer: a tar stream (an image's layer, decompressed; a package's
 * data.tar) walked member by member and written again: every member's
 * header and data bytes copied as they are, but for the regular files a
 * caller replaces (prune), written with only their size (the header's
 * size field, the pax size record, the checksums) and contents changed.
 * Names, modes, owners, times, links, whiteouts and pax records (xattrs)
 * are kept; device nodes are copied, never opened.  A member larger than
 * the spill bound is held in a temporary file, not in memory.  Refused,
 * each with one error naming the member: a name that is absolute or
 * climbs out with "..", a hard link whose target does, a pax record or
 * GNU long name over TAR_META_MAX, a stream that is not tar. */
#ifndef OPS_LAYER_H
#define OPS_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../formats/tar.h"

/* One regular file of the stream (or, to the entry hook, any member). */
struct layer_member {
	const char *name;	/* as the pax record, GNU name or header says */
	size_t name_len;
	const char *link;	/* a link's target, as they say it */
	size_t link_len;
	const struct tar_header *h;
	uint64_t size;		/* of its data, the pax record's if any */
	uint64_t index;		/* of the member in the stream */
	/* Where in the stream its first header (a pax or GNU one, if any)
	 * begins, and where its data begins: a caller that starts writing
	 * mid-walk (image_prune) writes the stream before at itself. */
	uint64_t at, data_at;
};

/* A file's bytes (data) seen by the caller, which may give new bytes for
 * it: 0 keep it, 1 replace it with *repl (valid until the next call, the
 * caller's to free), -1 a failure (e filled). */
typedef int layer_member_fn(void *ctx, const struct layer_member *m,
			    const struct io_in *data, struct io_in *repl,
			    struct err *e);
/* Whether the caller wants to see the file whose first bytes (at most
 * LAYER_PEEK of them, fewer when it is shorter) are head. */
typedef bool layer_wants_fn(void *ctx, const uint8_t *head, size_t len);

enum { LAYER_PEEK = 64 * 1024, LAYER_SPILL_DEFAULT = 64 << 20 };

struct layer_walk {
	/* The stream in: fill buf[0..n), *got < n only at its end. */
	int (*read)(void *ctx, uint8_t *buf, size_t n, size_t *got,
		    struct err *e);
	void *read_ctx;
	/* The stream out, or NULL (a walk that only looks); a member hook
	 * may set it, to write from its member on (its headers and data
	 * are put after the hook returns). */
	int (*write)(void *ctx, const uint8_t *buf, size_t n, struct err *e);
	void *write_ctx;
	/* Told, with write_ctx, before each member's headers are written
	 * and before the end's zero blocks (NULL: not told): from at, an
	 * offset in the stream read, the bytes written are the stream's
	 * own, as read (same), or not (a replaced member), until the next
	 * call.  A writer that can reuse what it read (ops/xz_splice.c)
	 * learns where it may.  0, or -1 with e filled. */
	int (*span)(void *write_ctx, uint64_t at, bool same, struct err *e);
	layer_wants_fn *wants;
	layer_member_fn *member;
	void *ctx;
	/* Told of every member, before its data (NULL: not told): 0, or -1
	 * with e filled. */
	int (*entry)(void *ctx, const struct layer_member *m, struct err *e);
	void *entry_ctx;
	/* Told where each member's first header begins (and the end's
	 * blocks), before it is read, with ctx (NULL: not told): 0, or -1
	 * with e filled. */
	int (*starts)(void *ctx, uint64_t at, struct err *e);
	uint64_t spill;		/* 0: LAYER_SPILL_DEFAULT */
	/* Told: members walked, regular files and their bytes, files
	 * replaced and the bytes of the files offered before and after. */
	uint64_t members, files, file_bytes, replaced, before, after;
	uint64_t pos;		/* bytes of the stream read */
};

/* Walk the stream: 0, or -1 with e filled. */
int layer_walk(struct layer_walk *w, struct err *e);

/* A stream held in memory (a package's control or info tar), for .read
 * with .read_ctx a struct layer_memory; and a .wants taking every file. */
struct layer_memory {
	const uint8_t *p;
	size_t len, pos;
};
int layer_memory_read(void *ctx, uint8_t *buf, size_t n, size_t *got,
		      struct err *e);
bool layer_every_file(void *ctx, const uint8_t *head, size_t len);

/* A stream in a file (a scratch tar read once), for .read with .read_ctx
 * a struct layer_file: read with pread, no page of it mapped and held. */
struct layer_file {
	int fd;
	uint64_t len, pos;
};
int layer_file_read(void *ctx, uint8_t *buf, size_t n, size_t *got,
		    struct err *e);

#endif
