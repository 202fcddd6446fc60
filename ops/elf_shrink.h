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
#include "elf_shrink_types.h"

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
