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
	unsigned ccob_version;	/* bundles become CCOBs of it (0: stay) */
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

/* ---- the pointers of a linked 64-bit little-endian file
 * (prune_pointers.c) ---- */
struct prune_reloc {
	uint64_t at;		/* r_offset: the slot's address */
	uint64_t addend;
	uint64_t addend_off;	/* file offset of r_addend */
	uint32_t type;
	bool relative;
};

struct prune_table {
	const struct elfscan *s;
	const uint8_t *buf;
	struct prune_reloc *rel;	/* the allocated RELA ones, by address */
	size_t nrel;
	bool rel_only;		/* it has relocations without addends */
	uint64_t twice;		/* an address relocated twice, or 0 */
};

/* The file's dynamic relocations with addends, in t (t->s, t->buf set). */
int prune_read_relocs(struct pruner *p, struct prune_table *t);
const struct prune_reloc *prune_reloc_at(const struct prune_table *t,
					 uint64_t at);
/* The file offset of address at (8 bytes of it), in an allocated section
 * that has bytes in the file; UINT64_MAX when none holds it. */
uint64_t prune_file_offset(const struct prune_table *t, uint64_t at);
/* The value the pointer at address at has once relocated: a RELATIVE
 * relocation's addend, else what the slot holds; false when unknown (a
 * symbolic relocation, or no bytes there). */
bool prune_value_at(const struct prune_table *t, uint64_t at, uint64_t *v);
/* R_*_RELATIVE of an ELF machine, 0 for one not known. */
uint32_t prune_relative_type(uint16_t machine);
/* n bytes (at most 8) of v written at file offset off (a patch). */
int prune_add_word(struct pruner *p, uint64_t off, uint64_t v, size_t n);
/* Point the slot at address at to v: its RELATIVE relocation's addend,
 * and the slot's bytes where they hold the old value (or there is no
 * relocation). */
int prune_set_pointer(struct pruner *p, const struct prune_table *t,
		      uint64_t at, uint64_t v);

/* The containers of a linked file's .hip_fatbin or .nv_fatbin (section
 * i) pruned, then the kept ones packed at its start where every pointer
 * into it is known (prune_pack.c). */
int prune_fatbin_section(struct pruner *p, const struct elfscan *s,
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
