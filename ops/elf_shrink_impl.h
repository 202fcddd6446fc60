/* elf_shrink_impl: what ops/elf_shrink.c (the plan), elf_shrink_cuts.c
 * (where to cut), elf_shrink_pointers.c (what may not be cut) and
 * elf_shrink_headers.c (the new headers) share: types and small helpers;
 * each part declares its functions in its own header.  Not for other
 * modules. */
#ifndef FORMATS_ELF_SHRINK_IMPL_H
#define FORMATS_ELF_SHRINK_IMPL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elf_shrink_types.h"
#include "../core/elf64hdr.h"

enum {
	EHDR_LEN = 64, PHDR_LEN = ELF64_PHDR_LEN, SHDR_LEN = ELF64_SHDR_LEN,
	ET_EXEC_ = 2, ET_DYN_ = 3,
	PT_LOAD_ = 1, PT_DYNAMIC_ = 2, PT_INTERP_ = 3, PT_NOTE_ = 4,
	PT_PHDR_ = 6, PT_TLS_ = 7,
	SHT_PROGBITS_ = 1, SHT_NOBITS_ = 8,
	SHF_ALLOC_ = 2, SHF_EXECINSTR_ = 4, PF_X_ = 1,
	SHN_LORESERVE_ = 0xff00, PN_XNUM_ = 0xffff,
	/* Kernels read no larger program header table (ELF_MIN_ALIGN) when
	 * they load a program; glibc's loader reads a library's on its
	 * stack (alloca and an array per header): a bound for that too. */
	MAX_PHDRS_PROGRAM = 4096 / PHDR_LEN,
	MAX_PHDRS_LIBRARY = 512,
	MIN_PAGE = 4096, MAX_PAGE = 1 << 30,
	SHT_RELA_ = 4, SHT_REL_ = 9, SHT_RELR_ = 19, SHT_DYNSYM_ = 11,
	SHT_SYMTAB_ = 2, STT_SECTION_ = 3, STT_FILE_ = 4, STT_TLS_ = 6,
};

struct cut {
	uint64_t from, to;	/* input offsets, page-aligned */
	uint64_t hole;		/* where the hole it is in starts */
	size_t seg;		/* the PT_LOAD it splits */
};

struct span {
	uint64_t lo, hi;	/* addresses */
};

static inline int refuse(struct elf_shrink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline int refuse(struct elf_shrink *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return 0;
}

static inline const char *segment_name(uint32_t type)
{
	switch (type) {
	case PT_LOAD_: return "PT_LOAD";
	case PT_DYNAMIC_: return "PT_DYNAMIC";
	case PT_INTERP_: return "PT_INTERP";
	case PT_NOTE_: return "PT_NOTE";
	case PT_PHDR_: return "PT_PHDR";
	case PT_TLS_: return "PT_TLS";
	case 0x6474e550: return "PT_GNU_EH_FRAME";
	case 0x6474e551: return "PT_GNU_STACK";
	case 0x6474e552: return "PT_GNU_RELRO";
	case 0x6474e553: return "PT_GNU_PROPERTY";
	default: return "a";
	}
}

/* [a, a + alen) and [b, b + blen) share a byte (modulo 2^64: a crafted
 * range that wraps around still overlaps what it covers). */
static inline bool overlaps(uint64_t a, uint64_t alen, uint64_t b,
			    uint64_t blen)
{
	return alen && blen && (a - b < blen || b - a < alen);
}

/* Where input offset x lands: down by every cut before it. */
static inline uint64_t out_offset(const struct cut *c, size_t n, uint64_t x)
{
	uint64_t shift = 0;

	for (size_t i = 0; i < n && c[i].to <= x; i++)
		shift += c[i].to - c[i].from;
	return x - shift;
}

/* Whether a cut interior holds x (an offset that cannot be kept). */
static inline bool in_cut(const struct cut *c, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (x > c[i].from && x < c[i].to)
			return true;
	return false;
}

struct elfscan;

#endif
