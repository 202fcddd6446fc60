/* elf_shrink_cuts: elf_shrink's part: where the file is cut (see
 * elf_shrink_impl.h). */
#ifndef OPS_ELF_SHRINK_CUTS_H
#define OPS_ELF_SHRINK_CUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_shrink_impl.h"

struct elfscan;

int elf_shrink_by_from(const void *a, const void *b);
int elf_shrink_find_cuts(struct elf_shrink *s, const struct elfscan *sc,
			 const struct elf64_phdr *ph,
			 size_t phnum, uint64_t page,
			 const struct elf_shrink_hole *hole, size_t nholes,
			 struct cut *cut, size_t *ncut);
void elf_shrink_largest_cuts(struct cut *cut, size_t *ncut, size_t n);
size_t elf_shrink_ehdr_room(struct elf_shrink *s, const struct elfscan *sc,
			    const struct elf64_phdr *ph,
			    size_t phnum, size_t first,
			    uint64_t bias, const struct cut *cut, size_t ncut);
int elf_shrink_in_first_cut(struct elf_shrink *s, const struct elfscan *sc,
			    const struct elf64_phdr *ph,
			    size_t phnum, uint64_t page,
			    uint64_t bias, struct cut *cut, size_t *ncut,
			    uint64_t *at);

#endif
