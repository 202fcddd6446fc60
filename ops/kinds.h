/* kinds: the one registry of container kinds, for the operations over
 * whole artefacts.  The kinds themselves (enum fatbin_kind) and what the
 * codecs know of them (name in messages, probe, span) are in
 * formats/fatbin.h; here, each kind's row says how the walk visits its
 * entries, how prune rewrites it, and what ls calls it.  A new kind is one
 * enum member, one codec row, one row here and its format file; every
 * switch on the kind has no default, so the compiler names the rest. */
#ifndef OPS_KINDS_H
#define OPS_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "../formats/fatbin.h"
#include "entry.h"

struct walk;
struct pruner;
struct prune_patch;
struct prune_spool;
struct prune_opts;
struct err;

struct kind {
	const char *name;	/* ls's word, in text and JSON: "bundle" */
	/* Visit container c (its kind, number, offset and size filled),
	 * size bytes at p, then its entries (inspect_walk.h).  NULL: not
	 * found in a region (object bundles: from their sections). */
	int (*walk)(struct walk *w, struct inspect_node *c, const uint8_t *p,
		    uint64_t size);
	/* An entry's code bytes (entry.h). */
	enum entry_code (*entry_bytes)(const struct inspect_node *n,
				       enum inspect_hash container_hash,
				       struct entry_bytes *b);
	/* Plan the container at file offset off, size bytes at buf, with
	 * only the kept entries: 1 with the rewrite in *pt, 0 when all stay
	 * (prune_impl.h).  NULL: not pruned inside a region. */
	int (*prune)(struct pruner *p, const uint8_t *buf, uint64_t size,
		     uint64_t off, struct prune_patch *pt);
	/* --compress: the container, as prune left it in *pt (npieces 0:
	 * as it is, buf[0, size)), made compressed: how many things were
	 * compressed (the bundle: 1; fatbin entries, when compress_entries)
	 * with *pt rewritten, 0 when it stays as it was (no smaller).  A
	 * kind may write its bytes to the spool *sp (prune_types.h) rather
	 * than memory.  It
	 * reads nothing of the walk, so prune_region runs a region's on
	 * several threads at once (o->threads).  NULL: a kind that stays as
	 * it is. */
	int (*compress)(const struct prune_opts *o, unsigned ccob_version,
			const uint8_t *buf, uint64_t size,
			struct prune_patch *pt, struct prune_spool *sp,
			struct err *e);
	/* Why a pruned one may come out larger than it was. */
	const char *grown;
	bool ids;		/* entries are named: bundle IDs, kpack TOC keys */
	bool versioned;		/* its header has a version */
	/* Each entry's code is compressed on its own and decoded by the
	 * walk, which may fail for one entry alone (decode_err). */
	bool entry_coded;
	/* compress counts entries, not containers. */
	bool compress_entries;
	/* Whether compress will want the CCOB hash (ccob_hash) of a
	 * container of size bytes: for those that stay as they are
	 * (npieces 0), prune_region makes them eight at a time beside the
	 * compressors (ccob_hash_many) and writes each into its header
	 * after (sp->hash_later).  NULL: it never does. */
	bool (*compress_hash)(const struct prune_opts *o, unsigned version,
			      uint64_t size);
};

const struct kind *kinds_get(enum fatbin_kind k);
/* Entry n's code, by its kind's rule (see entry.h): container_hash is
 * the hash the walk found its container to have (INSPECT_HASH_UNCHECKED:
 * take the bytes whatever it is). */
enum entry_code kinds_entry_bytes(const struct inspect_node *n,
				  enum inspect_hash container_hash,
				  struct entry_bytes *b);
/* "bundle", "object-bundle", "ccob", "package", "nv-fatbin", "kpack". */
const char *kinds_name(enum fatbin_kind k);

#endif
