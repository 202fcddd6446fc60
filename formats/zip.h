/* zip: the archives Python wheels (and .conda packages) are, read from
 * their central directory and checked against their local headers, with
 * ZIP64's records (the extra field of sizes and offsets past 4 GiB in a
 * local header or central record, the ZIP64 end record and its locator
 * for more than 65535 members or a directory past 4 GiB) read where the
 * zip specification puts them; and the headers a rewrite needs made from
 * the input's, with new CRC, sizes and offsets (a ZIP64 field kept where
 * the input had one, added where a value needs it).  Refused, each with
 * one error: an archive that ends early, a central directory that
 * disagrees with a local header (name, method, CRC, sizes), members that
 * overlap or leave bytes between them (the overlapping entries of a zip
 * bomb), a name that is absolute or climbs out with "..", encrypted
 * members, a spanned archive.  Bytes in, bytes out. */
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
	/* The most bytes zip_local_make and zip_central_make write: a
	 * record, its name, extra field and comment of 65535 bytes each. */
	ZIP_HEADER_MAX = ZIP_CENTRAL_LEN + 3 * 0xffff,
	/* zip_end_make's: the ZIP64 end record and locator, the end
	 * record and its comment. */
	ZIP_END_MAX = 56 + 20 + ZIP_EOCD_LEN + 0xffff,
};

/* Which of a central record's fields its ZIP64 extra field holds. */
enum { ZIP64_USIZE = 1, ZIP64_CSIZE = 2, ZIP64_LOCAL = 4 };

struct zip_entry {
	const char *name;	/* in the central record, not NUL-ended */
	size_t name_len;
	uint16_t flags, method;
	uint32_t crc;
	uint64_t csize, usize;	/* compressed, uncompressed */
	bool local64;		/* its local header's sizes are ZIP64's */
	uint8_t central64;	/* ZIP64_* its central record's extra holds */
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
	uint64_t end;		/* the ZIP64 end record, else eocd */
	bool zip64_end;		/* there are ZIP64 end records */
};

/* Whether buf starts with a local header ("PK\3\4"). */
bool zip_probe(const uint8_t *buf, size_t len);
/* Read and check the archive buf[0..len): 0, or -1 with e filled
 * (zip_close still to be called). */
int zip_open(struct zip *z, const uint8_t *buf, size_t len, struct err *e);
void zip_close(struct zip *z);

/* An entry's local header made from its own (z's bytes) with crc and
 * sizes set and the descriptor flag cleared (they are here now); ZIP64's
 * extra field where it had one or a size needs it (its other extra
 * fields kept in their order).  Into out[0..ZIP_HEADER_MAX): its length,
 * or 0 when its extra fields would pass 65535 bytes. */
size_t zip_local_make(const struct zip *z, const struct zip_entry *en,
		      uint32_t crc, uint64_t csize, uint64_t usize,
		      uint8_t *out);
/* Its central record the same way, with the offset of its local header;
 * the descriptor flag cleared when clear_descriptor. */
size_t zip_central_make(const struct zip *z, const struct zip_entry *en,
			uint32_t crc, uint64_t csize, uint64_t usize,
			uint64_t local, bool clear_descriptor, uint8_t *out);
/* The end of an archive of n members whose central directory of size
 * bytes is at central: ZIP64's end record and locator where z had them
 * or the values need them, then the end record with z's comment.  Into
 * out[0..ZIP_END_MAX): its length. */
size_t zip_end_make(const struct zip *z, uint64_t n, uint64_t central,
		    uint64_t size, uint8_t *out);

/* Open and check whatever buf holds: 0 for a sound archive.  A fuzz
 * target calls this with whatever bytes it likes. */
int zip_validate(const uint8_t *buf, size_t len, struct err *e);

#endif
