/* entry: the code-object bytes of an entry the walk visited (inspect.h),
 * by the rules of its container's kind: a bundle's bytes as they lie; a
 * CCOB's once inflated, and none when its hash did not match; an NVIDIA
 * entry's decoded (inflated, PTX without its padding), or why it does not
 * decode; a streamed CCOB's first bytes only.  Each kind's row in kinds.c
 * names its rule here; every applet asks kinds_entry_bytes. */
#ifndef OPS_ENTRY_H
#define OPS_ENTRY_H

#include <stdint.h>

#include "inspect_node.h"

enum entry_code {
	ENTRY_WHOLE,		/* data, size: all its bytes */
	/* data: only its first min(size, INSPECT_HEAD) bytes; the rest
	 * comes when its CCOB is decompressed again (stream_ccob) */
	ENTRY_HEAD,
	ENTRY_ABSENT,		/* not at hand: the walk did not inflate */
	ENTRY_UNDECODED,	/* its own compression fails: why says how */
	ENTRY_DAMAGED,		/* its CCOB's hash does not match */
};

struct entry_bytes {
	const uint8_t *data;
	uint64_t size;		/* of the code (all of it, for ENTRY_HEAD too) */
	const struct err *why;	/* ENTRY_UNDECODED */
};

/* Entry n's code, its container's hash as the walk found it
 * (INSPECT_HASH_UNCHECKED: the bytes are taken whatever it is): as
 * stored (bundles, packages; kpack entries, inflated by the walk for
 * zstd-per-kernel), from a CCOB, or an NVIDIA entry's. */
enum entry_code entry_bytes_stored(const struct inspect_node *n,
				   enum inspect_hash container_hash,
				   struct entry_bytes *b);
enum entry_code entry_bytes_ccob(const struct inspect_node *n,
				 enum inspect_hash container_hash,
				 struct entry_bytes *b);
enum entry_code entry_bytes_nv(const struct inspect_node *n,
			       enum inspect_hash container_hash,
			       struct entry_bytes *b);

#endif
