/* elf_shrink_headers: elf_shrink's part: the new program and section headers,
 * symbols and edits (see elf_shrink_impl.h). */
#ifndef OPS_ELF_SHRINK_HEADERS_H
#define OPS_ELF_SHRINK_HEADERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_shrink_impl.h"

struct elfscan;

int elf_shrink_new_phdrs(struct elf_shrink *s, const struct elfscan *sc,
			 const struct elf64_phdr *ph, size_t phnum,
			 const struct cut *cut, size_t ncut, uint64_t phoff,
			 uint64_t bias, struct elf64_phdr *out, size_t *nout);
int elf_shrink_check_phdrs(struct elf_shrink *s, const struct elf64_phdr *ph,
			   size_t n, uint64_t file_len);
int elf_shrink_new_shdrs(struct elf_shrink *s, const struct elfscan *sc,
			 const uint8_t *buf, uint64_t shoff, size_t shnum,
			 const struct cut *cut, size_t ncut, uint64_t phoff,
			 struct span table);
bool elf_shrink_covers_table(const uint8_t *buf, uint64_t shoff, size_t shnum,
			     uint64_t phoff, size_t phnum);
int elf_shrink_fix_symbols(struct elf_shrink *s, const struct elfscan *sc,
			   const uint8_t *buf, size_t shnum);
int elf_shrink_add_edit(struct elf_shrink *s, uint64_t off, uint64_t len,
			enum elf_shrink_kind kind, const uint8_t *bytes,
			size_t bytes_len);

#endif
