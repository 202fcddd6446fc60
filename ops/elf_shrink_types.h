/* elf_shrink_types: what elf_shrink (elf_shrink.h) takes and gives back,
 * the types alone, for its parts (elf_shrink_impl.h) to share without a
 * loop. */
#ifndef OPS_ELF_SHRINK_TYPES_H
#define OPS_ELF_SHRINK_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
