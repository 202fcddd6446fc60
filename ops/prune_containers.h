/* prune_containers: the containers of prune (NVIDIA fatbins, packages, text
 * bundles; binary bundles and CCOBs are prune_bundle.c's), the entries
 * decided, the patches of the plan. */
#ifndef OPS_PRUNE_CONTAINERS_H
#define OPS_PRUNE_CONTAINERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "prune_impl.h"

/* An ID split as the bundler splits it: <kind>-<four triple parts>[-<id>]. */
void prune_entry_from_id(struct prune_entry *pe, const char *id, size_t len);
/* Ask keep(), tell seen(), count. */
bool prune_decide(struct pruner *p, struct prune_entry *pe);
/* The same in two steps, for a container whose own work may still fail
 * after its entries are decided (a CCOB to inflate): keep() asked alone,
 * then seen() told and the plan's counts. */
bool prune_ask(struct pruner *p, struct prune_entry *pe);
void prune_tell(struct pruner *p, const struct prune_entry *pe, bool keep);
struct package_image;
int prune_decide_image(struct pruner *p, const struct package_image *img,
		       uint64_t base);
/* A ccob_sink appending to a membuf. */
int prune_mem_put(void *ctx, const void *src, size_t n, struct err *e);
/* A patch's pieces, written into memory. */
int prune_materialize(const struct prune_patch *pt, struct membuf *m,
		      struct err *e);
/* Add pt to the plan's patches. */
int prune_add_patch(struct prune_plan *plan, const struct prune_patch *pt,
		    struct err *e);
void prune_patch_free(struct prune_patch *pt);
/* *pt, freed first, made one piece: the len bytes at bytes, which it then
 * owns.  0, or -1 (out of memory: e set, bytes still the caller's). */
int prune_patch_whole(struct prune_patch *pt, uint8_t *bytes, size_t len,
		      struct err *e);
/* An NVIDIA fatbin of a region, size bytes at buf (at file_off): 1 with
 * its rewrite in *pt, 0 when all stay (its row of ops/kinds.c). */
int prune_kind_nv(struct pruner *p, const uint8_t *buf, uint64_t size,
		  uint64_t file_off, struct prune_patch *pt);
/* --compress: the fatbin's uncompressed entries compressed (the
 * nv-fatbin kind's row; see kinds.h): how many. */
int prune_compress_nv(const struct prune_opts *o, unsigned version,
		      const uint8_t *buf, uint64_t size,
		      struct prune_patch *pt, struct prune_spool *sp,
		      struct err *e);
/* The bytes the binary at bin takes in a section, its padding to 8
 * included (rem: what is left of the section from it on). */
size_t prune_package_span(const uint8_t *bin, size_t rem);
/* The binary bin[0, span) written again with the kept of its n images
 * l (kept[i]; some, not all), as prune_packages writes such a binary, its
 * bytes appended to *out (in memory: the images are copied).  base: the
 * file offset the images' offsets count from. */
int prune_package_rewrite(struct pruner *p, const uint8_t *bin, size_t span,
			  const struct package_image *l, const bool *kept,
			  size_t n, uint64_t base, struct membuf *out);
/* The packages (versions 1 to 3) that fill buf[0, len), at file offset
 * base: 1 with the kept ones as pieces in *pt, 0 when all stay. */
int prune_packages(struct pruner *p, const uint8_t *buf, size_t len,
		   uint64_t base, struct prune_patch *pt);

/* Record that the object's section name goes (object bundles). */
int prune_drop_section(struct prune_plan *plan, const char *name, size_t len,
		       struct err *e);
/* A text bundle (i ii cui hipi d ll s) whose START lines use comment
 * (formats/bundle_text.h): its kept blocks as pieces in *pt: 1, or 0
 * when all stay. */
int prune_text(struct pruner *p, const uint8_t *buf, size_t len,
	       const char *comment, struct prune_patch *pt);

#endif
