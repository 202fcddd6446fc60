/* inspect_containers: the walk's visits, and the entries of bundles, CCOBs and
 * packages. */
#ifndef OPS_INSPECT_CONTAINERS_H
#define OPS_INSPECT_CONTAINERS_H

#include <stddef.h>
#include <stdint.h>

#include "inspect_node.h"
#include "inspect_walk.h"

/* Visit n: 0 to go on, -1 when the visitor stopped the walk. */
int inspect_emit(struct walk *w, const struct inspect_node *n);
/* Prefix e's message with where it happened ("section .hip_fatbin: ..."). */
int inspect_where(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* What a bundle entry's code is, from its first bytes (NULL: not at
 * hand): enum package_image_kind. */
uint16_t inspect_sniff_image(const uint8_t *p, uint64_t len);

/* Container c (its kind, number, offset and size filled), size bytes at
 * p: visited, then its entries. */
int inspect_walk_bundle(struct walk *w, struct inspect_node *c,
			const uint8_t *p, uint64_t size);
int inspect_walk_ccob(struct walk *w, struct inspect_node *c,
		      const uint8_t *p, uint64_t size);
int inspect_walk_package(struct walk *w, struct inspect_node *c,
			 const uint8_t *p, uint64_t size);

#endif
