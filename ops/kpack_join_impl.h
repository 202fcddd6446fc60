/* kpack_join_impl: what kpack_join.c shares with its part
 * kpack_join_code.c: one join's state and the ELF numbers both use. */
#ifndef OPS_KPACK_JOIN_IMPL_H
#define OPS_KPACK_JOIN_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "kpack_find.h"
#include "../core/elfscan.h"
#include "../core/err.h"

enum {
	WRAPPER = 24,		/* u32 magic, u32 version, ptr, reserved1 */
	ENTRY_ALIGN = 4096,	/* clang HIP: -bundle-align=4096 */
	HIP_FATBIN_ALIGN = 4096,	/* clang's .hip_fatbin sections */
	HIP_FATBIN_ALIGN_MAX = 1u << 20,
	SHT_PROGBITS_ = 1, SHT_SYMTAB_ = 2, SHT_RELA_ = 4, SHT_NOBITS_ = 8,
	SHT_REL_ = 9, SHT_DYNSYM_ = 11, SHT_GROUP_ = 17, SHT_SYMTAB_SHNDX_ = 18,
	SHF_ALLOC_ = 2, SHF_INFO_LINK_ = 0x40, SHN_LORESERVE_ = 0xff00,
	SHN_XINDEX_ = 0xffff,
	PT_NULL_ = 0, PT_LOAD_ = 1, PT_PHDR_ = 6, PF_R_ = 4,
	EHDR_PHOFF = 32, EHDR_SHOFF = 40, EHDR_PHENTSIZE = 54, EHDR_PHNUM = 56,
	EHDR_SHENTSIZE = 58, EHDR_SHNUM = 60, EHDR_SHSTRNDX = 62, SHDR = 64,
	PHDR = 56,
};


/* A code object of a bundle: bundle b's are c[b * nt, (b + 1) * nt). */
struct code {
	char *id;		/* its bundle entry ID */
	uint8_t *data;
	uint64_t size;
};

struct join {
	const char *path;
	const uint8_t *buf;
	size_t len;
	struct elfscan s;
	struct kpack_find f;	/* its reference and the archives found */
	struct cand *cand;	/* the code objects -t takes */
	size_t ncand;
	const char **targets;	/* their targets, by name (in cand's) */
	size_t *from;		/* the first archive holding each */
	size_t nt;
	struct code *c;
	size_t nc;
	size_t nw;		/* wrappers */
	uint64_t *index;	/* wrapper -> bundle */
	uint64_t *start;	/* bundle -> its offset in .hip_fatbin */
	struct err *e;
};

/* A code object of this binary that -t takes: its index, target, and
 * where (archive a, entry i). */
struct cand {
	uint64_t idx;
	const char *target;
	size_t a, i;
};

#endif
