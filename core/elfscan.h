/* elfscan: read an ELF file's section table (any class, byte order and
 * type) through libelf, checking every offset against the file, and find
 * what carries offload code.  Only headers are read: the buffer is usually
 * a mapped file, and scanning touches just the pages that hold headers. */
#ifndef CORE_ELFSCAN_H
#define CORE_ELFSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "sections.h"

struct elfscan_section {
	const char *name;	/* NUL-terminated, inside the file's buffer */
	size_t name_len;
	uint32_t index, type, link, info;
	uint64_t flags, addr, offset, size, align, entsize;
	enum section_kind kind;	/* sections.h */
};

struct elfscan {
	bool is64, big_endian;
	uint16_t e_type, machine;
	uint8_t osabi, abiversion;
	uint32_t version, flags;
	uint64_t entry;
	size_t phnum, shstrndx;
	struct elfscan_section *sec;	/* every section, index 0 included */
	size_t n;
};

bool elfscan_is_elf(const uint8_t *buf, size_t len);
/* Read the section table.  Fails with a message naming the problem (no
 * section headers, a table or name past the end of the file, a bad
 * e_shstrndx, a section whose bytes run past the end) and never reads
 * outside buf. */
int elfscan_open(struct elfscan *s, const uint8_t *buf, size_t len,
		 struct err *e);
/* As elfscan_open, but only the section name table's bytes must lie in
 * the file: LLVM's bundler lists an object's bundle sections by name and
 * reads a section's bytes only when it takes them out, so the caller
 * checks each section's bounds before it reads them. */
int elfscan_open_names(struct elfscan *s, const uint8_t *buf, size_t len,
		       struct err *e);
void elfscan_free(struct elfscan *s);
/* The first section called name (index 0 aside), or NULL. */
const struct elfscan_section *elfscan_named(const struct elfscan *s,
					    const char *name);
/* The first section of kind k (sections.h), or NULL. */
const struct elfscan_section *elfscan_find(const struct elfscan *s,
					   enum section_kind k);
/* The places a RELR table relocates (n little-endian 8-byte entries at p):
 * an even entry is an address, an odd one a bitmap of the 63 words after
 * the last address.  each is called for every place until it returns
 * true; returns whether it did. */
bool elfscan_relr_each(const uint8_t *p, uint64_t n,
		       bool (*each)(void *ctx, uint64_t at), void *ctx);
/* The bytes of section i (empty for SHT_NOBITS); checked by elfscan_open. */
const uint8_t *elfscan_bytes(const struct elfscan *s, const uint8_t *buf,
			     size_t i, uint64_t *size);

/* The NUL-terminated string at off in string-table section s (checked
 * by elfscan_open to lie in buf), or NULL when off or its NUL is outside
 * the section. */
const char *elfscan_string(const uint8_t *buf, const struct elfscan_section *s,
			   uint64_t off, size_t *len);

/* The defined global symbols of an object, in symbol-table order, as an
 * archive's symbol table lists them (weak and common included; files and
 * sections not).  each returns 0, or -1 when out of memory. */
int elfscan_symbols(const uint8_t *buf, size_t len,
		    int (*each)(void *ctx, const char *name, size_t len),
		    void *ctx, struct err *e);

#endif
