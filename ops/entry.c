/* entry: see entry.h. */
#include <string.h>

#include "entry.h"

/* The bytes at hand: all of them, a streamed CCOB's first, or none. */
static enum entry_code at_hand(const struct inspect_node *n,
			       struct entry_bytes *b)
{
	if (n->data)
		return ENTRY_WHOLE;
	if (n->head) {
		b->data = n->head;
		return ENTRY_HEAD;
	}
	return ENTRY_ABSENT;
}

enum entry_code entry_bytes_stored(const struct inspect_node *n,
				   enum inspect_hash container_hash,
				   struct entry_bytes *b)
{
	(void)container_hash;
	memset(b, 0, sizeof(*b));
	b->data = n->data;
	b->size = n->size;
	return at_hand(n, b);
}

enum entry_code entry_bytes_ccob(const struct inspect_node *n,
				 enum inspect_hash container_hash,
				 struct entry_bytes *b)
{
	entry_bytes_stored(n, container_hash, b);
	if (container_hash == INSPECT_HASH_BAD)
		return ENTRY_DAMAGED;
	return at_hand(n, b);
}

enum entry_code entry_bytes_nv(const struct inspect_node *n,
			       enum inspect_hash container_hash,
			       struct entry_bytes *b)
{
	entry_bytes_stored(n, container_hash, b);
	if (n->decode_err) {
		b->why = n->decode_err;
		return ENTRY_UNDECODED;
	}
	/* Inflated, PTX without its padding. */
	b->size = n->code_size;
	return at_hand(n, b);
}
