/* tar: the headers of a tar stream (POSIX ustar, GNU long names and
 * links, pax extended records), read from 512-byte blocks and written
 * back with a new size, for the layers of container images (OCI and
 * Docker) and the data.tar of packages.  Bytes in, bytes out: a stream is
 * walked by ops/layer.c, which reads and writes it. */
#ifndef FORMATS_TAR_H
#define FORMATS_TAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

enum {
	TAR_BLOCK = 512,
	/* The longest ustar name, "prefix/name". */
	TAR_USTAR_NAME_MAX = 155 + 1 + 100,
	/* The most bytes of pax records or of a GNU long name read: more
	 * is a hostile header, refused. */
	TAR_META_MAX = 1 << 20,
};

/* What a member's typeflag makes it, as far as a reader must tell. */
enum tar_kind {
	TAR_FILE,		/* '0', '\0', '7' (contiguous) */
	TAR_HARDLINK,		/* '1' */
	TAR_SYMLINK,		/* '2' */
	TAR_DEVICE,		/* '3', '4': never opened, copied */
	TAR_DIRECTORY,		/* '5' */
	TAR_FIFO,		/* '6' */
	TAR_PAX,		/* 'x': records for the next member */
	TAR_PAX_GLOBAL,		/* 'g': records for all that follow */
	TAR_GNU_LONGNAME,	/* 'L': the next member's name */
	TAR_GNU_LONGLINK,	/* 'K': the next member's link target */
	TAR_OTHER,		/* GNU sparse, volume labels, vendor types */
};

struct tar_header {
	enum tar_kind kind;
	char typeflag;
	/* "prefix/name" of ustar (name alone before ustar), NUL-ended. */
	char name[TAR_USTAR_NAME_MAX + 1];
	char linkname[101];
	uint64_t size;		/* of the data blocks that follow */
	uint64_t mode, uid, gid, mtime;
	bool size_base256;	/* the size field is GNU's base-256 */
};

/* Whether b[0..TAR_BLOCK) is all zeros (the end of the archive). */
bool tar_block_zero(const uint8_t *b);
/* Read the header in b[0..TAR_BLOCK): 0, or -1 (ERR_MALFORMED: a bad
 * checksum, a number that is not one). */
int tar_header_parse(const uint8_t *b, struct tar_header *h, struct err *e);
/* The bytes of data blocks a member of size bytes takes (size rounded up
 * to TAR_BLOCK). */
uint64_t tar_padded(uint64_t size);
/* Set the size field of the header in b to size and its checksum anew;
 * the field keeps its encoding (octal while it fits, else base-256). */
void tar_header_set_size(uint8_t *b, uint64_t size);

/* A ustar header in b[0..TAR_BLOCK) of a member named name (at most 100
 * bytes) of the typeflag, mode and size, owned by 0:0, of time 0 (an
 * archive that says nothing of when or by whom it was made): 0, or -1
 * for a name that does not fit. */
int tar_header_make(uint8_t *b, const char *name, char typeflag,
		    uint64_t mode, uint64_t size);

/* What pax records say of one member (or, 'g', of all that follow): the
 * fields that override the header's.  Pointers are into the records. */
struct tar_pax {
	const char *path, *linkpath;
	size_t path_len, linkpath_len;
	bool has_size;
	uint64_t size;
};

/* Read the records buf[0..len) ("LEN key=value\n" each): 0, or -1
 * (ERR_MALFORMED). */
int tar_pax_parse(const uint8_t *buf, size_t len, struct tar_pax *p,
		  struct err *e);
/* The records buf[0..len) with the size record's value set to size,
 * written to out[0..cap) (cap >= len + 20 always holds them): the bytes
 * written, every other record as it was. */
size_t tar_pax_set_size(const uint8_t *buf, size_t len, uint64_t size,
			uint8_t *out, size_t cap);

/* Whether a member's name (or a link's target) would leave the
 * directory it is unpacked in: absolute, or a ".." component. */
bool tar_name_escapes(const char *name, size_t len);

#endif
