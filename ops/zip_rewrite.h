/* zip_rewrite: a zip archive written again with some members' bytes
 * replaced: every other member's local header, data and descriptor copied
 * byte for byte in its place, a replaced one's local header copied with
 * its CRC and sizes set, the central directory copied in its order with
 * those fields and the offsets set, the end record with the directory's
 * new place; ZIP64's fields where the input had them or a value needs
 * them (formats/zip.c).  For wheels and .conda packages. */
#ifndef OPS_ZIP_REWRITE_H
#define OPS_ZIP_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"
#include "../formats/zip.h"

/* A member's new bytes, compressed as its method says; from, when not
 * NULL, the scratch view (io_scratch_view) data lies in: they are then
 * copied by the kernel, never read into our memory. */
struct zip_new {
	size_t entry;
	const uint8_t *data;
	uint64_t csize, usize;
	uint32_t crc;
	const struct io_in *from;
};

/* Write in (read as z) to out, opened by the caller (who commits it),
 * with the n members of repl replaced: 0 (*written its size), or -1 with
 * e filled. */
int zip_rewrite(const struct io_in *in, const struct zip *z,
		const struct zip_new *repl, size_t n, struct io_out *out,
		uint64_t *written, struct err *e);

#endif
