/* strtab: LLVM's optimised ELF string table (StringTableBuilder::ELF after
 * finalize()), which llvm-objcopy writes for .strtab/.shstrtab and
 * llvm-offload-binary for its string table. */
#ifndef CORE_STRTAB_H
#define CORE_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

/* Byte 0 is NUL and "" is at offset 0.  The other distinct strings are laid
 * out in descending order of their byte-reversed form ("end of string" below
 * every byte); a string that is a suffix of the one laid out just before it
 * shares that one's tail.  The order depends only on the set of strings,
 * never on the order they were added in. */
struct strtab_str {
	const char *s;		/* not copied: must outlive the table */
	size_t len;
	uint64_t off;
	bool first;		/* laid out in the first group (strtab_add_first) */
};

struct strtab {
	struct strtab_str *str;
	size_t n, cap;
	struct strmap index;	/* string -> position in str */
	uint64_t size;
	/* The first string's offset: 1 (ELF, the leading NUL) unless set
	 * before strtab_finalize; 4 for COFF, whose table opens with its own
	 * 4-byte size (the caller writes it over the zeros there). */
	uint64_t start;
};

/* Add s (a no-op when already there).  0, or -1 when out of memory. */
int strtab_add(struct strtab *t, const char *s, size_t len);
/* Add s to the group laid out before all others (LLVM's priority, which
 * llvm-objcopy gives COFF section names so their offsets stay small).
 * Each group is sorted on its own; a tail may still merge across. */
int strtab_add_first(struct strtab *t, const char *s, size_t len);
/* Sort, merge tails and assign offsets; 0, or -1 when out of memory. */
int strtab_finalize(struct strtab *t);
/* Offset of a string added before strtab_finalize. */
uint64_t strtab_offset(const struct strtab *t, const char *s, size_t len);
/* Write the t->size bytes of the finished table. */
void strtab_write(const struct strtab *t, uint8_t *out);
void strtab_free(struct strtab *t);

#endif
