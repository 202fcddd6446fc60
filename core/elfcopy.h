/* elfcopy: rewrite an ELF object, executable or shared library with
 * sections added or removed, laid out byte for byte as llvm-objcopy 22
 * lays it out (segments kept in place: core/elfsegments), so an object
 * bundle made here is the file LLVM's bundler makes by running
 * `llvm-objcopy --add-section ...` (and a host unbundled here the file it
 * makes with `--remove-section`). */
#ifndef CORE_ELFCOPY_H
#define CORE_ELFCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfcopy_add.h"
#include "err.h"
#include "io_types.h"

/* Write the object in buf to out without the sections drop(drop_ctx, ...)
 * accepts (by name) and with adds appended.  What llvm-objcopy does to the
 * rest: every non-allocated string table rebuilt with LLVM's string-table
 * algorithm, symbol names and section indices rewritten, sections laid out
 * in the order of their old offsets (each at its alignment after the one
 * before), added ones after them, and the section header table last.
 * Relocatable objects, executables and shared libraries (ET_REL, ET_EXEC,
 * ET_DYN) are accepted, 32- or 64-bit, either byte order; in the last two
 * the segments stay where they are (core/elfsegments), so a section a
 * segment holds can be neither removed nor rewritten.  Symbols defined in
 * a dropped section go with it (its section symbol, mapping symbols,
 * labels), the others are renumbered in relocations and group headers,
 * and other sections linked to the symbol table (.llvm_addrsig) get
 * sh_link 0, as llvm-objcopy does.  Inputs it cannot rewrite faithfully
 * (another ELF type, a section a segment holds that would move or change,
 * a relocation, group or section that refers to a dropped section or a
 * symbol defined there) are errors. */
int elfcopy_write(const uint8_t *buf, size_t len,
		  bool (*drop)(void *ctx, const char *name, size_t name_len),
		  void *drop_ctx, const struct elfcopy_add *add, size_t nadd,
		  struct io_out *out, struct err *e);

#endif
