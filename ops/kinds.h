/* kinds: the one registry of container kinds, for the operations over
 * whole artefacts.  The kinds themselves are the rows of
 * formats/kinds.def (enum fatbin_kind, formats/fatbin.h); what the codecs
 * know of them (name in messages, probe, span) is each one's codec row
 * (formats/fatbin_codec.h), and here each one's row (kind.h) says how the
 * walk visits its entries, how prune rewrites it, and how ls, extract, du
 * and selection present it.  A new kind is its row in kinds.def, its
 * format file (with its codec row) and its ops file (with this row). */
#ifndef OPS_KINDS_H
#define OPS_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "../formats/fatbin.h"
#include "entry.h"
#include "kind.h"

const struct kind *kinds_get(enum fatbin_kind k);
/* Entry n's code, by its kind's rule (see entry.h): container_hash is
 * the hash the walk found its container to have (INSPECT_HASH_UNCHECKED:
 * take the bytes whatever it is). */
enum entry_code kinds_entry_bytes(const struct inspect_node *n,
				  enum inspect_hash container_hash,
				  struct entry_bytes *b);
/* "bundle", "object-bundle", "ccob", "package", "nv-fatbin", "kpack". */
const char *kinds_name(enum fatbin_kind k);

/* The presentation hooks, or their defaults (kind.h): entry n's target
 * (t zeroed first), its ID (malloc'd, *len bytes), the architecture -t
 * matches (*len bytes; buf may hold it), ls's columns naming it; and
 * ls's line of container n after "NAME #N". */
void kinds_entry_target(const struct inspect_node *n,
			struct inspect_target *t);
char *kinds_entry_id(const struct inspect_node *n,
		     const struct inspect_target *t, size_t *len);
const char *kinds_select_arch(const struct inspect_node *n,
			      const struct inspect_target *t, char *buf,
			      size_t cap, size_t *len);
void kinds_entry_cells(const struct inspect_node *n,
		       const struct inspect_target *t, struct kind_cells *c);
void kinds_summary(const struct inspect_node *n, char *buf, size_t cap);
/* What ls says of container c whose hash does not hold. */
void kinds_bad_hash(const struct inspect_node *c, char *buf, size_t cap);

#endif
