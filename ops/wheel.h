/* wheel: a Python wheel (.whl) read: a zip archive (formats/zip.c, every
 * local header checked against the central directory, no member
 * overlapping another) whose *.dist-info/RECORD lists each file's
 * sha256 (urlsafe base64, no padding) and size.  Members are walked as
 * layer_walk walks a tar: the caller sees the head of each, and the
 * whole of those it wants, inflated into a scratch file, its size and
 * CRC checked (a member that inflates past its declared size is
 * refused). */
#ifndef OPS_WHEEL_H
#define OPS_WHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../formats/zip.h"
#include "layer.h"

enum { WHEEL_RECORD_MAX = 64 << 20 };

struct wheel {
	const char *path;
	struct io_in in;
	struct zip zip;
	size_t record;		/* RECORD's entry, zip.n when none */
	char *record_text;	/* NUL-ended */
	size_t record_len;
};

/* Whether the file at path is a wheel: a zip archive named *.whl; and
 * the same of a file's name and bytes. */
bool wheel_is(const char *path);
bool wheel_probe(const char *name, const uint8_t *buf, size_t len);
/* Read the wheel at path and its RECORD: 0, or -1 with e filled
 * (wheel_close still to be called); the same of a file the caller
 * opened as in (taken), path its name in messages. */
int wheel_open(struct wheel *w, const char *path, struct err *e);
int wheel_open_in(struct wheel *w, struct io_in *in, const char *path,
		  struct err *e);
void wheel_close(struct wheel *w);
/* Each member in the order of its data: wants sees its head, member its
 * inflated bytes (the layer_member's h is NULL, index the entry's);
 * repl, when member gives one, is told to done.  0, or -1 with e
 * filled. */
typedef int wheel_replaced_fn(void *ctx, size_t entry,
			      const struct io_in *repl, struct err *e);
int wheel_walk(struct wheel *w, layer_wants_fn *wants, layer_member_fn *member,
	       wheel_replaced_fn *done, void *ctx, struct err *e);
/* RECORD's line for name: the offset of its hash field ("sha256=...")
 * and of the field after it (the size), or -1 when RECORD has none. */
int wheel_record_find(const struct wheel *w, const char *name, size_t len,
		      size_t *hash, size_t *size);
/* The urlsafe base64 of a SHA-256 given in hex, no padding:
 * b64[44] (43 digits and a NUL). */
void wheel_hash(const char *hex, char *b64);

#endif
