/* bitcode: the IR symbol table (irsymtab) LLVM writes into every bitcode
 * file, read without reading the IR: only what reaching the top-level
 * SYMTAB_BLOCK (25) and STRTAB_BLOCK (23) blobs takes. */
#ifndef FORMATS_BITCODE_H
#define FORMATS_BITCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* The bitstream of a bitcode file, inside its wrapper if it has one,
 * positioned after the magic (LLVM's messages for what is not bitcode). */
struct bitstream;
int bitcode_open_stream(const uint8_t *buf, size_t len, struct bitstream *b,
			struct err *e);

/* irsymtab::storage::Symbol::FlagBits. */
enum bitcode_sym_flag {
	BITCODE_SYM_VISIBILITY = 3,	/* two bits: default, hidden, protected */
	BITCODE_SYM_HAS_UNCOMMON = 1 << 2,
	BITCODE_SYM_UNDEFINED = 1 << 3,
	BITCODE_SYM_WEAK = 1 << 4,
	BITCODE_SYM_COMMON = 1 << 5,
	BITCODE_SYM_INDIRECT = 1 << 6,
	BITCODE_SYM_USED = 1 << 7,
	BITCODE_SYM_TLS = 1 << 8,
	BITCODE_SYM_MAY_OMIT = 1 << 9,
	BITCODE_SYM_GLOBAL = 1 << 10,
	BITCODE_SYM_FORMAT_SPECIFIC = 1 << 11,
	BITCODE_SYM_UNNAMED_ADDR = 1 << 12,
	BITCODE_SYM_EXECUTABLE = 1 << 13,
};

/* A bitcode file's symbol table: both blobs point into the caller's
 * buffer, which must outlive it.  Nothing is allocated. */
struct bitcode_symtab {
	const uint8_t *symtab, *strtab;
	size_t symtab_len, strtab_len;
	uint32_t version;	/* irsymtab format: LLVM 22 writes 3 */
	uint32_t modules;	/* MODULE_BLOCKs in the file */
	uint32_t nsyms;
	size_t syms_at;		/* offset of the symbol records in symtab */
	/* Strings of the header, inside strtab, not NUL-terminated. */
	const char *producer, *triple, *source;
	size_t producer_len, triple_len, source_len;
};

enum { BITCODE_UNSUPPORTED = -2 };

struct bitcode_symbol {
	const char *name;	/* as the linker sees it (mangled) */
	size_t name_len;
	const char *ir_name;	/* as the IR spells it; empty for asm symbols */
	size_t ir_name_len;
	int32_t comdat;		/* -1: none */
	uint32_t flags;		/* enum bitcode_sym_flag */
};

/* Find and check the symbol table.  Fails with a message (-1) for what is
 * not bitcode or is damaged (LLVM's own words where it has them), and
 * with BITCODE_UNSUPPORTED for bitcode without a symbol table or whose
 * table does not cover every module (LLVM would rebuild it from the IR,
 * which this reader cannot), and for a symbol table format newer than
 * version 4.  A file with no modules has an
 * empty table (nsyms 0, symtab NULL). */
int bitcode_symtab_open(struct bitcode_symtab *t, const uint8_t *buf,
			size_t len, struct err *e);
/* Symbol i (< t->nsyms), its names checked to lie inside the string
 * table. */
int bitcode_symbol(const struct bitcode_symtab *t, uint32_t i,
		   struct bitcode_symbol *s, struct err *e);

/* The names LLVM's archive writer lists for a bitcode member, in order:
 * the global symbols that are neither undefined nor format-specific
 * (private, or named "llvm.*", or in section "llvm.metadata").  each
 * returns 0 to go on; anything else stops and is returned.
 *
 * The writer reads the IR itself (IRObjectFile); the table holds the same
 * symbols, flags and order, built by the same ModuleSymbolTable when the
 * file was written, so for files LLVM 22 wrote the lists agree.  Symbols
 * of module-level inline asm (an empty ir_name) are listed, as llvm-ar
 * lists them; LLVM 22's clang-offload-bundler crashes on such a member
 * (it registers no asm parser).  -1 or BITCODE_UNSUPPORTED as
 * bitcode_symtab_open fails. */
int bitcode_archive_symbols(const uint8_t *buf, size_t len,
			    int (*each)(void *ctx, const char *name,
					size_t len),
			    void *ctx, struct err *e);

/* Open and read every symbol: 0 for a sound file.  For fuzzing. */
int bitcode_validate(const uint8_t *buf, size_t len, struct err *e);

#endif
