/* prune_impl: what formats/prune.c (files: ELF, archives, the plan, the
 * writing), formats/prune_containers.c (containers: bundles, CCOBs,
 * NVIDIA fatbins, packages), prune_omp.c (linked OpenMP files) and
 * prune_shrink.c (linked files made smaller) share.  Not for other
 * modules. */
#ifndef FORMATS_PRUNE_IMPL_H
#define FORMATS_PRUNE_IMPL_H

#include "prune.h"

struct pruner {
	const struct prune_opts *o;
	struct prune_plan *plan;
	const char *section;	/* where the walk is, for keep() */
	uint64_t container;
	uint64_t base;		/* the archive member's offset in the file */
	struct err *e;
};

struct membuf {
	uint8_t *p;
	size_t len, cap;
};

/* An ID split as the bundler splits it: <kind>-<four triple parts>[-<id>]. */
void prune_entry_from_id(struct prune_entry *pe, const char *id, size_t len);
/* Ask keep(), tell seen(), count. */
bool prune_decide(struct pruner *p, struct prune_entry *pe);
struct package_image;
int prune_decide_image(struct pruner *p, const struct package_image *img,
		       uint64_t base);
/* A ccob_sink appending to a membuf. */
int prune_mem_put(void *ctx, const void *src, size_t n, struct err *e);
/* A patch's pieces, written into memory. */
int prune_materialize(const struct prune_patch *pt, struct membuf *m,
		      struct err *e);
int prune_add_patch(struct prune_plan *plan, const struct prune_patch *pt,
		    struct err *e);
/* Every container in buf[0, len), at file offset base: each one pruned
 * becomes a patch of the plan (in_place: the range keeps its size). */
int prune_region(struct pruner *p, const uint8_t *buf, size_t len,
		 uint64_t base, bool in_place);
/* The bytes the binary at bin takes in a section, its padding to 8
 * included (rem: what is left of the section from it on). */
size_t prune_package_span(const uint8_t *bin, size_t rem);
/* The packages (versions 1 to 3) that fill buf[0, len), at file offset
 * base: 1 with the kept ones as pieces in *pt, 0 when all stay. */
int prune_packages(struct pruner *p, const uint8_t *buf, size_t len,
		   uint64_t base, struct prune_patch *pt);

/* Record that the object's section name goes (object bundles). */
int prune_drop_section(struct prune_plan *plan, const char *name, size_t len,
		       struct err *e);
/* A COFF object or PE image (prune_coff.c). */
int prune_coff(struct pruner *p, const uint8_t *buf, size_t len);
/* The packages of a linked program's .llvm.offloading (section i): the
 * OpenMP runtime's image table made to list the kept images alone, the
 * dropped packages zeroed in place (prune_omp.c). */
struct elfscan;
int prune_linked_packages(struct pruner *p, const struct elfscan *s,
			  const uint8_t *buf, size_t i);

/* A linked file's freed pages cut out, where elf_shrink finds it safe;
 * else plan->shrink.why says why not (prune_shrink.c). */
int prune_plan_shrink(const uint8_t *buf, size_t len, struct prune_plan *plan,
		      const struct prune_opts *o, struct err *e);

/* A text bundle (i ii cui hipi d ll s), as LLVM's bundler writes it: the
 * comment its first START line uses, or NULL (cap: room for it). */
const char *prune_text_comment(const uint8_t *buf, size_t len, char *cap,
			       size_t cap_len);
/* Its kept blocks as pieces in *pt: 1, or 0 when all stay. */
int prune_text(struct pruner *p, const uint8_t *buf, size_t len,
	       const char *comment, struct prune_patch *pt);

#endif
