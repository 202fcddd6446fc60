/* ar_symbols: what an archive's symbol table lists for a member
 * (ar_symbols.c). */
#ifndef FORMATS_AR_SYMBOLS_H
#define FORMATS_AR_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* ---- What the symbol table lists for a member ----
 *
 * LLVM's writer decides by the member's magic: LLVM bitcode (plain or in
 * the 0x0B17C0DE wrapper) lists the global, defined, not format-specific
 * symbols of its IR symbol table; an ELF file those of its symbol table
 * (core/elfscan.h); a COFF object or PE image those of its (coff.h); other
 * bytes are not symbolic.  Objects LLVM would read in other formats
 * (Mach-O, Wasm, XCOFF, GOFF, DXContainer, COFF short import objects) are
 * refused rather than listed wrongly.  -1 for a member that is damaged;
 * AR_SYMBOLS_UNSUPPORTED for bitcode LLVM would read but this reader
 * cannot list (no IR symbol table: see bitcode.h). */
enum { AR_SYMBOLS_UNSUPPORTED = -2 };
/* For LLVM's ARM64EC symbol map: a COFF object of any ARM64 machine or
 * Windows AArch64 bitcode (isAnyArm64COFF), and a COFF object of any
 * machine but ARM64 or x86-64 or arm64ec bitcode (isECObject).  In a COFF
 * archive with both kinds of member, the EC members' symbols go to the
 * "/<ECSYMBOLS>/" member instead of the symbol table and map. */
enum ar_ec { AR_EC_ARM64 = 1 << 0, AR_EC_OBJECT = 1 << 1 };
struct ar_symlist {
	char *syms;		/* names, each followed by a NUL */
	size_t len, n, cap;
	bool symbolic;
	unsigned ec;		/* enum ar_ec */
};
int ar_member_symbols(const uint8_t *buf, size_t len, struct ar_symlist *l,
		      struct err *e);
void ar_symlist_free(struct ar_symlist *l);

#endif
