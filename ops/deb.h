/* deb: a Debian binary package (.deb, .udeb, .ddeb) read: an ar archive
 * of "debian-binary" ("2.x"), control.tar[.gz|.xz|.zst] and
 * data.tar[.gz|.xz|.zst], in that order, members whose names start with
 * '_' (signatures) between or after them, as dpkg-deb reads it.  The
 * control tar is read into memory (it is small; CONTROL_MAX bounds it)
 * and its md5sums and control files kept; the data tar is walked as a
 * stream (ops/layer.c), decompressed as it is read. */
#ifndef OPS_DEB_H
#define OPS_DEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "layer.h"
#include "layer_codec.h"

enum {
	DEB_MEMBERS_MAX = 16,
	/* The most bytes of control.tar, decompressed. */
	DEB_CONTROL_MAX = 64 << 20,
};

struct deb_member {
	char name[17];		/* its ar name, trailing spaces and '/' cut */
	uint64_t header;	/* offset of its 60-byte ar header */
	uint64_t offset, size;	/* of its bytes */
	enum layer_codec codec;	/* control.tar.* and data.tar.*'s */
};

struct deb {
	const char *path;
	struct io_in in;
	struct deb_member member[DEB_MEMBERS_MAX];
	size_t nmember;
	size_t control, data;	/* indices of control.tar.* and data.tar.* */
	uint8_t *control_tar;	/* control.tar, decompressed */
	size_t control_len;
	char *md5sums, *control_text;	/* NUL-ended copies, or NULL */
	size_t md5sums_len, control_text_len;
	/* Decoder threads for the data tar (0: a thread per CPU); a prune
	 * sets 1, its xz encoder having the CPUs and the memory. */
	unsigned decode_threads;
};

/* Whether buf (a file's first bytes) is a Debian package: an ar archive
 * whose first member is debian-binary. */
bool deb_probe(const uint8_t *buf, size_t len);
/* Whether the file at path is one (false when it cannot be read or is
 * not a regular file: a FIFO is never opened to look). */
bool deb_is(const char *path);
/* Read the package at path: its members checked and its control tar
 * read.  0, or -1 with e filled (deb_close still to be called). */
int deb_open(struct deb *d, const char *path, struct err *e);
/* The same of a file the caller opened as in (taken), path its name in
 * messages. */
int deb_open_in(struct deb *d, struct io_in *in, const char *path,
		struct err *e);
void deb_close(struct deb *d);
/* Walk the data tar (w's read set here): 0, or -1 with e filled. */
int deb_data_walk(struct deb *d, struct layer_walk *w, struct err *e);
/* The md5sums line of name (no leading "./"): its 32 hex digits, or
 * NULL when md5sums has none. */
const char *deb_md5sum(const struct deb *d, const char *name, size_t len);
/* A member's name without its leading "./" or "/". */
const char *deb_name(const char *name, size_t *len);

#endif
