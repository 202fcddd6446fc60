/* inspect_walk: what inspect.c, inspect_containers.c and inspect_nv.c
 * share of a walk (see inspect.h); no other file includes it. */
#ifndef FORMATS_INSPECT_WALK_H
#define FORMATS_INSPECT_WALK_H

#include "inspect.h"

struct walk {
	const struct inspect_opts *o;
	inspect_visit_fn visit;
	void *ctx;
	struct err *e;
	unsigned containers;	/* numbered so far in this file */
	int stop;		/* what the visitor returned, when not 0 */
	struct nv_ahead *nv;	/* NVIDIA entries decoded ahead (inspect_nv.c) */
};

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
int inspect_walk_nv(struct walk *w, struct inspect_node *c, const uint8_t *p,
		    uint64_t size);
/* A kpack archive, the whole file (inspect_kpack.c). */
int inspect_walk_kpack(struct walk *w, struct inspect_node *c,
		       const uint8_t *p, uint64_t size);
/* For a walk that inflates: decode the NVIDIA entries of buf[pos, len)
 * (at file offset base; an NVIDIA fatbin at pos) ahead of inspect_walk_nv,
 * which takes them from w->nv.  NULL when out of memory. */
struct nv_ahead *inspect_nv_ahead_start(struct walk *w, const uint8_t *buf,
					size_t len, uint64_t base,
					uint64_t pos);
void inspect_nv_ahead_end(struct nv_ahead *a);

#endif
