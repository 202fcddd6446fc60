/* elfcopy_impl: what the parts of elfcopy (see elfcopy.h) share: the plan
 * of the copy.  elfcopy_plan.c numbers the sections and fills the new
 * headers, elfcopy_symbols.c renumbers the symbols and what names them,
 * elfcopy.c lays the file out and writes it; their functions are in
 * elfcopy_plan.h and elfcopy_symbols.h.  No other file includes it. */
#ifndef CORE_ELFCOPY_IMPL_H
#define CORE_ELFCOPY_IMPL_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfcopy_add.h"
#include "elfscan.h"
#include "elfsegments.h"
#include "err.h"
#include "strtab.h"

/* Zeros we write that the input does not hold: a NOBITS section made
 * PROGBITS, and alignment padding.  Real objects need kilobytes; past this
 * it is an attack on the disk, not an object. */
#define ZERO_FILL_LIMIT ((uint64_t)1 << 30)
/* A symbol that goes with the section it is defined in. */
#define SYM_REMOVED UINT32_MAX

struct out_section {
	const char *name;
	size_t name_len;
	uint32_t type, link, info;
	uint64_t flags, addr, size, align, entsize;
	uint64_t old_offset;	/* UINT64_MAX for an added section */
	uint64_t offset;
	const uint8_t *data;	/* size bytes; unused for SHT_NOBITS */
	const struct io_in *from;	/* or copied whole from here */
	size_t old_index;	/* 0 for an added section */
};

struct copy {
	const uint8_t *buf;
	struct elfscan s;
	uint32_t *new_index;	/* old index -> new; 0: dropped */
	struct strtab *tabs;	/* per old index, for rebuilt string tables */
	bool *rebuilt;
	uint8_t **owned;	/* per old index, rewritten contents */
	struct out_section *o;	/* in new index order; o[0] is the null one */
	size_t n;
	size_t symtab;		/* old index, or 0 */
	size_t xindex;		/* old index of SHT_SYMTAB_SHNDX, or 0 */
	struct elfsegments g;	/* executables and shared libraries */
	long *holder;		/* per old index: its segment, or -1 */
	/* Per old symbol index: the new one, or SYM_REMOVED for a symbol
	 * defined in a removed section (llvm-objcopy removes those).  When
	 * any goes, the indices change: relocations and group signatures
	 * are renumbered, and other sections linked to the symbol table
	 * (.llvm_addrsig, whose contents name symbols by index) get sh_link
	 * 0, as llvm-objcopy marks them stale. */
	uint32_t *sym_new;
	size_t nsyms;
	bool syms_removed;
};

static inline const char *sec_name(const struct copy *c, size_t i)
{
	return c->s.sec[i].name;
}

/* A field naming another section must name one that survives. */
static inline int check_ref(const struct copy *c, size_t i, uint64_t ref,
		     const char *field, struct err *e)
{
	if (ref >= c->s.n)
		return err_set(e, "section '%s': %s %llu is not a section index",
			       sec_name(c, i), field, (unsigned long long)ref);
	if (ref && !c->new_index[ref])
		return err_set(e, "cannot remove section '%s': section '%s' "
			       "refers to it", sec_name(c, ref), sec_name(c, i));
	return 0;
}

/* A relocation section llvm-objcopy reads entry by entry. */
static inline bool is_reloc(const struct elfscan_section *s)
{
	return (s->type == SHT_REL || s->type == SHT_RELA) &&
	       !(s->flags & SHF_ALLOC);
}

#endif
