/* kind: the row of a container kind for the operations over whole
 * artefacts (its walk, entry bytes, prune, presentation), which the kind's
 * ops file defines as `const struct kind kind_<name>` (formats/kinds.def);
 * ops/kinds.c makes the table.  A header alone, so that an ops file
 * defining its row does not include kinds.h, whose table names it.
 * Hooks that present an entry or container make text and fields, never
 * print: the applets do. */
#ifndef OPS_KIND_H
#define OPS_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "entry.h"
#include "inspect_node.h"

/* Text with its length (not NUL-terminated); s NULL: none. */
struct kind_text {
	const char *s;
	size_t len;
};

enum { KIND_CELLS = 4, KIND_DETAILS = 2, KIND_FIELDS = 32 };

/* ls's columns naming an entry (see cells). */
struct kind_cells {
	struct kind_text v[KIND_CELLS];
	unsigned n;
	char buf[24];		/* for a cell made, not pointed at */
};

/* ls --json's fields of a kind (see container_json, entry_json). */
enum kind_field_type {
	KIND_FIELD_U64,		/* u */
	KIND_FIELD_HEX,		/* u, as "0x%016x" */
	KIND_FIELD_BOOL,	/* u */
	KIND_FIELD_TEXT,	/* t (t.s NULL: null) */
	KIND_FIELD_OPEN,	/* an object opens under key */
	KIND_FIELD_CLOSE,	/* and closes */
};
struct kind_field {
	const char *key;
	enum kind_field_type type;
	uint64_t u;
	struct kind_text t;
};
struct kind_fields {
	struct kind_field v[KIND_FIELDS];
	size_t n;
	char buf[4][24];	/* for texts made, not pointed at */
	size_t nbuf;
};

/* Append a field (a row with no room left drops it: KIND_FIELDS is more
 * than a kind has). */
static inline void kind_field(struct kind_fields *f, const char *key,
			      enum kind_field_type type, uint64_t u,
			      const char *s, size_t len)
{
	if (f->n < KIND_FIELDS)
		f->v[f->n++] = (struct kind_field){ key, type, u, { s, len } };
}

static inline void kind_field_str(struct kind_fields *f, const char *key,
				  const char *s)
{
	kind_field(f, key, KIND_FIELD_TEXT, 0, s, s ? strlen(s) : 0);
}

/* A text made with fmt, kept in f (up to 23 bytes). */
__attribute__((format(printf, 3, 4)))
static inline void kind_field_fmt(struct kind_fields *f, const char *key,
				  const char *fmt, ...)
{
	char *b;
	va_list ap;

	if (f->nbuf == sizeof(f->buf) / sizeof(f->buf[0]))
		return;
	b = f->buf[f->nbuf++];
	va_start(ap, fmt);
	vsnprintf(b, sizeof(f->buf[0]), fmt, ap);
	va_end(ap);
	kind_field_str(f, key, b);
}

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
	 * than memory.  It reads nothing of the walk, so prune_region runs a region's on
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
	/* ---- how ls, ls --json, du, extract and selection present it:
	 * NULL hooks take the default said beside each ---- */
	/* Entry n's target: offload kind, triple, arch and image kind
	 * (t zeroed first).  NULL: from its bundle ID (kind-triple-arch). */
	void (*target)(const struct inspect_node *n, struct inspect_target *t);
	/* Entry n's ID, as extract names its file and -t matches it:
	 * malloc'd, *len bytes (a bundle ID's NULs kept), NULL when out of
	 * memory.  NULL: its name (the bundle ID) as it is. */
	char *(*entry_id)(const struct inspect_node *n,
			  const struct inspect_target *t, size_t *len);
	/* The architecture -t matches, when not t->arch, made in buf:
	 * NVIDIA's by nvcc's name (sm_80, compute_80).  NULL: t->arch. */
	const char *(*select_arch)(const struct inspect_node *n, char *buf,
				   size_t cap);
	/* ls's columns naming entry n, before its size and place.  NULL:
	 * its name (the bundle ID). */
	void (*cells)(const struct inspect_node *n,
		      const struct inspect_target *t, struct kind_cells *c);
	/* ls's line for container n after "NAME #N", its newline left out
	 * (made in buf).  NULL: " at OFFSET: SIZE bytes, N entries". */
	void (*summary)(const struct inspect_node *n, char *buf, size_t cap);
	/* What ls says of container c whose hash does not hold
	 * (c->hash INSPECT_HASH_BAD), made in buf.  NULL: "NAME #N at
	 * offset OFFSET: hash mismatch". */
	void (*bad_hash)(const struct inspect_node *c, char *buf, size_t cap);
	/* Where ls says an entry not in the file is, made in buf (false:
	 * "(compressed)"). */
	bool (*where)(const struct inspect_node *n, char *buf, size_t cap);
	/* Strings an entry carries that ls keeps beyond the walk (the
	 * node's bytes go when the visit returns), for entry_json: up to
	 * KIND_DETAILS of them. */
	void (*details)(const struct inspect_node *n,
			struct kind_text d[KIND_DETAILS]);
	/* ls --json's fields of its own, after the common ones: of a
	 * container; of a container once its entries are listed (a CCOB's
	 * hash); of an entry (c its container, d its details). */
	void (*container_json)(const struct inspect_node *n,
			       struct kind_fields *f);
	void (*container_json_end)(const struct inspect_node *n,
				   struct kind_fields *f);
	void (*entry_json)(const struct inspect_node *n,
			   const struct inspect_node *c,
			   const struct kind_text d[KIND_DETAILS],
			   struct kind_fields *f);
	/* du's two figures for entry n: its code's bytes (*code, inflated)
	 * and the bytes it takes as stored (*stored).  NULL: n->size both. */
	void (*sizes)(const struct inspect_node *n, uint64_t *code,
		      uint64_t *stored);
	/* Whether container c compresses its entries together, with the
	 * bytes it takes (*stored) and theirs inflated (*raw): du then
	 * counts each entry a share of *stored.  NULL: it does not. */
	bool (*packed)(const struct inspect_node *c, uint64_t *stored,
		       uint64_t *raw);
	/* A file that is one container of the kind, pruned: 1 with the
	 * rewrite of buf[0, *end) in *pt, 0 when all stay.  NULL: as a
	 * region of containers when prune is set, else nothing to prune. */
	int (*prune_file)(struct pruner *p, const uint8_t *buf, size_t len,
			  struct prune_patch *pt, size_t *end);
	/* roc-obj-ls's listing (ls --format=roc-obj): whether it lists
	 * the kind's entries, and whether it counts those it skips. */
	bool roc_obj_lists, roc_obj_counts;
};


#endif
