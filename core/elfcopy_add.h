/* elfcopy_add: a section elfcopy (elfcopy.h) appends; a type of its own,
 * for the parts of elfcopy (elfcopy_impl.h) to share without a loop. */
#ifndef CORE_ELFCOPY_ADD_H
#define CORE_ELFCOPY_ADD_H

#include <stdbool.h>
#include <stdint.h>

struct io_in;

/* A section to append after every existing one, in the order given. */
struct elfcopy_add {
	const char *name;	/* NUL-terminated */
	const uint8_t *data;
	uint64_t size;
	/* When set, the data are the whole of this input, copied in the
	 * kernel (so large sections never pass through our memory). */
	const struct io_in *from;
	uint32_t type;
	uint64_t flags;
	uint64_t align;
	/* Also give existing sections of this name the flags, as
	 * llvm-objcopy --set-section-flags=<name>=readonly,exclude does. */
	bool set_existing;
};

#endif
