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

struct elfsegment {
	uint32_t type;
	uint64_t offset, vaddr, filesz, memsz, align;
	uint32_t index;
	long parent;		/* index into the array, or -1 */
};

struct elfsegments {
	struct elfsegment *v;	/* the program headers, then two pseudo
				 * segments: the ELF header, the table */
	size_t n;		/* program headers only */
	uint64_t phoff;
	size_t phentsize;
	uint64_t end;		/* where llvm-objcopy puts what follows */
};

/* Read the program headers and lay them out as llvm-objcopy does; fails
 * when that would move any segment (llvm-objcopy then moves segment
 * contents, which we do not), or when a header lies outside the file. */
int elfsegments_read(const struct elfscan *s, const uint8_t *buf, size_t len,
		     struct elfsegments *g, struct err *e);
void elfsegments_free(struct elfsegments *g);

/* Whether a section (by its old header) lies in some segment, as
 * llvm-objcopy decides: then it keeps its place in the file. */
bool elfsegments_hold(const struct elfsegments *g,
		      const struct elfscan_section *sec);

/* Each stretch of the input that segments or the program header table
 * cover, past the ELF header, in file order: the bytes the output keeps
 * there (anything between stretches is zeros). */
int elfsegments_each_range(const struct elfsegments *g, uint64_t from,
			   int (*each)(void *ctx, uint64_t offset,
				       uint64_t size, struct err *e),
			   void *ctx, struct err *e);

#endif
