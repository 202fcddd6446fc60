/* fatbin: what a fat-binary section holds (.hip_fatbin, .llvm.offloading,
 * .nv_fatbin, __nv_relfatbin), or a file holding the same: offload bundles,
 * CCOBs, offload packages or NVIDIA fatbins one after another.  A linker
 * puts each translation unit's contribution at the section's alignment
 * (4096 for .hip_fatbin), so zero padding may come between them; `ld -r`
 * concatenates packages as they are.  Headers only: nothing here reads a
 * code object's bytes. */
#ifndef FORMATS_FATBIN_H
#define FORMATS_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/sections.h"
#include "ccob.h"
#include "fatbin_codec.h"

/* The container kinds, every one, made from the rows of kinds.def: the
 * codec rows (fatbin_codecs) and the operations' rows (ops/kinds.c) are
 * indexed by it.  Switches on it have no default, so the compiler names
 * each place a new kind needs. */
enum fatbin_kind {
#define KIND(e, name) FATBIN_##e,
#include "kinds.def"
#undef KIND
};
enum {
	FATBIN_KINDS = 0
#define KIND(e, name) + 1
#include "kinds.def"
#undef KIND
};

/* Each kind's codec row (fatbin_codec.h), in the order of the enum. */
extern const struct fatbin_codec *const fatbin_codecs[FATBIN_KINDS];

/* The kind whose bytes buf starts with (probed in the table's order;
 * whole-file kinds not), false when none. */
bool fatbin_probe(const uint8_t *buf, size_t len, enum fatbin_kind *kind);
/* The same for a whole file, whole-file kinds first; as a binary bundle
 * it must hold more than the magic (LLVM's reading). */
bool fatbin_probe_file(const uint8_t *buf, size_t len,
		       enum fatbin_kind *kind);

/* Whether sections of kind s hold containers of kind k. */
bool fatbin_in_section(enum fatbin_kind k, enum section_kind s);
/* Whether sections of kind s hold containers of any kind: the sections
 * that carry offload code (not those that point at it). */
bool fatbin_section_holds(enum section_kind s);

struct fatbin_item {
	enum fatbin_kind kind;
	bool unknown;		/* bytes of no kind (an error) */
	uint64_t offset, size;	/* in the walked bytes */
};

/* The next container at or after *pos, skipping zero bytes: 1 found (and
 * *pos moved past it), 0 when only zeros are left, -1 on bytes that are
 * neither padding nor a container, or on a container whose header says it
 * runs past the end (it->kind or it->unknown, and it->offset, then say
 * what and where; the message does not).  A CCOB's extent is its header's
 * total size (versions 2 and 3) or, for version 1, its compressed
 * stream's, found by decoding (within lim). */
int fatbin_next(const uint8_t *buf, size_t len, uint64_t *pos,
		const struct ccob_limits *lim, struct fatbin_item *it,
		struct err *e);

/* "offload bundle", "CCOB", "offload package", "NVIDIA fatbin",
 * "unrecognised bytes" (it->unknown). */
const char *fatbin_item_name(const struct fatbin_item *it);

/* A binary bundle's entries in header order, repeated IDs and all (the
 * bundler's own reader keeps LLVM's StringMap order and one entry per ID). */
struct fatbin_entry {
	uint64_t offset, size;		/* from the bundle's start */
	const char *id;			/* inside the header bytes */
	size_t id_len;
};

/* Read the header of the binary bundle at buf, of which `avail` bytes are
 * at hand out of `total` (avail < total when only a prefix of a compressed
 * bundle was inflated).  Returns 1 with the entries in *ents (malloc'd, *n
 * of them; ents NULL: only checked and counted, nothing allocated) and the end of the header and of the furthest entry in
 * *header_end and *extent; 0 when the header runs past avail but not past
 * total (inflate more and call again); -1 on a damaged header: a count the
 * bytes cannot hold, an ID or an entry past total. */
int fatbin_bundle_entries(const uint8_t *buf, size_t avail, uint64_t total,
			  struct fatbin_entry **ents, size_t *n,
			  uint64_t *header_end, uint64_t *extent, struct err *e);

#endif
