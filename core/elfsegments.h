/* elfsegments: the program headers of an executable or shared library, and
 * the part of llvm-objcopy's layout that keeps segments where they are.
 * core/elfcopy uses it to add and remove non-allocated sections in such a
 * file the way llvm-objcopy does. */
#ifndef CORE_ELFSEGMENTS_H
#define CORE_ELFSEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfscan.h"
#include "err.h"
#include "io_types.h"

struct elfsegment {
	uint32_t type;
	uint64_t offset, vaddr, filesz, memsz, align;
	uint32_t index;
	long parent;		/* index into the array, or -1 */
	uint64_t placed;	/* its offset in the output */
};

struct elfsegments {
	struct elfsegment *v;	/* the program headers, then two pseudo
				 * segments: the ELF header, the table */
	size_t n;		/* program headers only */
	uint64_t phoff;
	size_t phentsize;
	uint64_t end;		/* where llvm-objcopy puts what follows */
};

/* Read the program headers and lay them out as llvm-objcopy does: a
 * segment keeps its place unless the linker left more room before it than
 * its alignment needs (RISC-V's attributes segment, say), when it moves
 * down.  Fails when a header lies outside the file. */
int elfsegments_read(const struct elfscan *s, const uint8_t *buf, size_t len,
		     struct elfsegments *g, struct err *e);
void elfsegments_free(struct elfsegments *g);

/* The segment a section (by its old header) lies in, as llvm-objcopy
 * decides (the one that starts first), or -1: a section in a segment
 * moves with it, to the offset elfsegments_place gives. */
long elfsegments_holder(const struct elfsegments *g,
			const struct elfscan_section *sec);
uint64_t elfsegments_place(const struct elfsegments *g, long holder,
			   const struct elfscan_section *sec);

/* Write, from offset *at on, what segments hold at their new offsets
 * (their bytes as the input has them, zeros between) and the program
 * header table with the new offsets; *at ends past the last byte. */
int elfsegments_write(const struct elfsegments *g, const uint8_t *buf,
		      bool is64, bool big_endian, struct io_out *out,
		      uint64_t *at, struct err *e);

#endif
