/* elf64hdr: one ELF64 little-endian program or section header read into
 * a struct and written back, for the passes that edit header tables in
 * place (ops/elf_shrink, ops/kpack_host).  The bytes are checked to lie in
 * the buffer by the caller; these only move fields. */
#ifndef CORE_ELF64HDR_H
#define CORE_ELF64HDR_H

#include <stdint.h>

enum { ELF64_PHDR_LEN = 56, ELF64_SHDR_LEN = 64 };

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct elf64_shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size, align, entsize;
};

/* b holds ELF64_PHDR_LEN (or ELF64_SHDR_LEN) bytes. */
void elf64_phdr_get(struct elf64_phdr *h, const uint8_t *b);
void elf64_phdr_put(uint8_t *b, const struct elf64_phdr *h);
void elf64_shdr_get(struct elf64_shdr *h, const uint8_t *b);
void elf64_shdr_put(uint8_t *b, const struct elf64_shdr *h);

#endif
