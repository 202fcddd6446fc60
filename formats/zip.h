/* zip: the archives Python wheels (and .conda packages) are, read from
 * their central directory and checked against their local headers, and
 * the fields a rewrite changes (CRC, sizes, offsets) set in headers
 * copied from the input.  Refused, each with one error: an archive that
 * ends early, a central directory that disagrees with a local header
 * (name, method, CRC, sizes), members that overlap or leave bytes
 * between them (the overlapping entries of a zip bomb), a name that is
 * absolute or climbs out with "..", ZIP64 and encrypted members, a
 * spanned archive.  Bytes in, bytes out. */
#ifndef FORMATS_ZIP_H
#define FORMATS_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

enum {
	ZIP_LOCAL_LEN = 30,	/* a local header before its name */
	ZIP_CENTRAL_LEN = 46,	/* a central record before its name */
	ZIP_EOCD_LEN = 22,	/* the end record before its comment */
	ZIP_STORED = 0,
	ZIP_DEFLATED = 8,
	ZIP_FLAG_DESCRIPTOR = 1 << 3,	/* sizes follow the data */
};

struct zip_entry {
	const char *name;	/* in the central record, not NUL-ended */
	size_t name_len;
	uint16_t flags, method;
	uint32_t crc;
	uint32_t csize, usize;	/* compressed, uncompressed */
	uint64_t central;	/* offset of its central record */
	size_t central_len;	/* its bytes: record, name, extra, comment */
	uint64_t local;		/* offset of its local header */
	uint64_t data;		/* offset of its data */
	uint64_t end;		/* after its data and descriptor */
};

struct zip {
	const uint8_t *buf;
	size_t len;
	struct zip_entry *entry;	/* in central directory order */
	size_t n;
	size_t *by_offset;	/* entry indices in the order of their data */
	uint64_t central, central_size;	/* the central directory */
	uint64_t eocd;		/* the end record */
};

/* Whether buf starts with a local header ("PK\3\4"). */
bool zip_probe(const uint8_t *buf, size_t len);
/* Read and check the archive buf[0..len): 0, or -1 with e filled
 * (zip_close still to be called). */
int zip_open(struct zip *z, const uint8_t *buf, size_t len, struct err *e);
void zip_close(struct zip *z);

/* In a copy of an entry's local header (ZIP_LOCAL_LEN bytes at h): the
 * CRC and sizes set, the descriptor flag cleared (they are here now). */
void zip_local_set(uint8_t *h, uint32_t crc, uint32_t csize, uint32_t usize);
/* In a copy of its central record: the same; and, for any record, the
 * offset of its local header. */
void zip_central_set(uint8_t *c, uint32_t crc, uint32_t csize,
		     uint32_t usize);
void zip_central_set_local(uint8_t *c, uint32_t local);
/* In a copy of the end record: where the central directory is. */
void zip_eocd_set(uint8_t *eocd, uint32_t central, uint32_t size);

/* Open and check whatever buf holds: 0 for a sound archive.  A fuzz
 * target calls this with whatever bytes it likes. */
int zip_validate(const uint8_t *buf, size_t len, struct err *e);

#endif
