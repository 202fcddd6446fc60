/* elf_shrink: a linked ELF file (an executable or a shared library) made
 * smaller on disk by cutting out ranges nobody reads, every address kept.
 *
 * A cut [from, to) lies inside one PT_LOAD, page-aligned at both ends (the
 * largest p_align of the file's PT_LOADs), inside one section that holds
 * offload containers, or in no section at all (what a section the caller
 * makes shorter leaves after it).  That PT_LOAD is split in two around
 * it: the pages of the cut stay unmapped (nothing reads a container past
 * its size), and everything after it in the file moves down by
 * to - from, a multiple of every p_align, so p_offset stays congruent to
 * p_vaddr.  The grown program header table goes where place says (enum
 * elf_shrink_place); a section split by cuts keeps its header for the
 * first piece and gets one more header, of its name, at the end of the
 * table for each further piece (and a symbol in such a piece gets that
 * header's index as its st_shndx).
 *
 * Where any rule the cut relies on does not hold the file is not
 * shrunk, and why says why in a few words. */
#ifndef FORMATS_ELF_SHRINK_H
#define FORMATS_ELF_SHRINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* A range of the input no program reads once pruned (zeros). */
struct elf_shrink_hole {
	uint64_t offset, len;
};

/* 8 bytes the caller writes at a file offset (a relocation's addend made
 * to point elsewhere, a section's sh_size made smaller): the plan reads
 * them instead of the input's. */
struct elf_shrink_word {
	uint64_t offset, value;
};

enum elf_shrink_kind {
	ELF_SHRINK_CUT,		/* left out of the output */
	ELF_SHRINK_ZERO,	/* written as zeros */
	ELF_SHRINK_BYTES,	/* replaced by bytes (of any length) */
};

/* What happens to the input range [offset, offset + len). */
struct elf_shrink_edit {
	uint64_t offset, len;
	enum elf_shrink_kind kind;
	const uint8_t *bytes;
	size_t bytes_len;
};

struct elf_shrink {
	struct elf_shrink_edit *edit;	/* in offset order, disjoint */
	size_t n;
	uint8_t *ehdr, *phdrs, *shdrs;	/* own the edits' bytes */
	uint8_t *shndx;			/* symbols' new st_shndx, 2 bytes each */
	size_t *origin;			/* the section each extra header splits */
	uint64_t cut;			/* bytes cut out */
	uint64_t size_after;		/* of the file */
	size_t cuts, extra_phdrs, extra_shdrs;
	char why[160];			/* when not shrunk */
};

/* Where the grown program header table goes. */
enum elf_shrink_place {
	/* Right after the ELF header, in the room the linker left there:
	 * where GNU strip and objcopy put it back and eu-strip keeps it, so
	 * the file stays loadable when they rewrite it.  As many cuts as
	 * that room has headers for. */
	ELF_SHRINK_AFTER_EHDR,
	/* Also in the freed bytes before the first cut, when the room after
	 * the ELF header is short: every cut, but GNU strip and objcopy
	 * break the file (eu-strip keeps it: a nameless section header,
	 * last, covers the table; llvm-strip keeps it). */
	ELF_SHRINK_IN_CUT,
};

/* The new layout of the file in buf, the holes (in offset order, disjoint)
 * cut out where they may be, the words (in offset order, disjoint) as the
 * caller rewrites them: 1 with the edits in *s, 0 when the layout stays
 * (s->why), -1 out of memory. */
int elf_shrink_plan(const uint8_t *buf, size_t len,
		    const struct elf_shrink_hole *hole, size_t nholes,
		    const struct elf_shrink_word *word, size_t nwords,
		    enum elf_shrink_place place, struct elf_shrink *s,
		    struct err *e);
void elf_shrink_free(struct elf_shrink *s);

#endif
