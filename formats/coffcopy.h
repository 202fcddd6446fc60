/* coffcopy: rewrite a COFF object with sections added or removed, laid out
 * byte for byte as llvm-objcopy 22 lays it out, so an object bundle made
 * here is the file LLVM's bundler makes by running `llvm-objcopy
 * --add-section=N=F --set-section-flags=N=readonly,exclude` on a COFF host
 * (and a host unbundled here the file `--remove-section` makes).  The COFF
 * counterpart of core/elfcopy. */
#ifndef FORMATS_COFFCOPY_H
#define FORMATS_COFFCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coff.h"
#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"

/* A section to append after every existing one, in the order given, with
 * the characteristics `readonly,exclude` gives (read, link-remove); an
 * existing section of the same name gets them too, keeping its alignment. */
struct coffcopy_add {
	const char *name;	/* NUL-terminated */
	const uint8_t *data;
	uint64_t size;
	const struct io_in *from;	/* when set, the data are all of it */
	/* Not appended: the bytes of the existing section of this name
	 * replaced, as llvm-objcopy --update-section replaces them (its place,
	 * characteristics and virtual size kept; no larger than it was, and it
	 * has no relocations). */
	bool update;
};

/* Write the COFF object in buf to out without the sections drop accepts
 * (and the symbols defined in them, and the comdat sections associated
 * with them), with adds appended.  What llvm-objcopy does to the rest:
 * sections laid out in table order, each's relocations after its bytes
 * (uninitialised data written as zeros), then the symbol table (relocation
 * and weak-external indices renumbered, section numbers and section
 * definitions updated, .file names repacked) and the string table (section
 * names first, each group in LLVM's tail-merged order).  The output is
 * bigobj exactly when it has more than 65279 sections, whatever the input
 * was.  Inputs it cannot copy faithfully (an image, a relocation to a
 * symbol that goes) are errors. */
int coffcopy_write(const uint8_t *buf, size_t len, coff_want_fn *drop,
		   void *drop_ctx, const struct coffcopy_add *add, size_t nadd,
		   struct io_out *out, struct err *e);

#endif
