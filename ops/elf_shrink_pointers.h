/* elf_shrink_pointers: elf_shrink's part: the pointers a cut must not break,
 * and ranges cleared (see elf_shrink_impl.h). */
#ifndef OPS_ELF_SHRINK_POINTERS_H
#define OPS_ELF_SHRINK_POINTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_shrink_impl.h"

struct elfscan;

int elf_shrink_clear_range(struct elf_shrink *s, const struct elfscan *sc,
			   const struct elf64_phdr *ph,
			   size_t phnum, size_t seg,
			   uint64_t lo, uint64_t hi);
uint64_t elf_shrink_word_at(const uint8_t *buf, const struct elf_shrink_word *w,
			    size_t nw, uint64_t off);
int elf_shrink_check_pointers(struct elf_shrink *s, const struct elfscan *sc,
			      const uint8_t *buf,
			      const struct elf_shrink_word *w, size_t nw,
			      const struct elf64_phdr *ph,
			      const struct cut *cut,
			      size_t ncut, struct span table);

#endif
