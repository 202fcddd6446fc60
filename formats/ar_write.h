/* ar_write: Unix archives written byte for byte as LLVM 22's
 * writeArchive writes them (ar_write.c). */
#ifndef FORMATS_AR_WRITE_H
#define FORMATS_AR_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_types.h"
#include "ar.h"

/* ---- Writing ----
 *
 * LLVM's writeArchive for Archive::K_GNU, the way clang-offload-bundler
 * -unbundle -type=a and llvm-offload-binary --archive call it (symbol
 * table, deterministic, not thin) and llvm-ar rc[S][D|U][T] does:
 *   "!<arch>\n"
 *   "/" symbol table (or "/SYM64/" once a member header would start at or
 *       past sym64_threshold), present only when some member is symbolic
 *   "//" long names: every name of 16 bytes or more or with a '/' in it,
 *       once per distinct name, as "name/\n" (thin: every name, each time)
 *   each member: header, data, "\n" to an even size
 * Headers are space-padded decimal: name or "/<offset>", date, uid, gid,
 * octal mode, size, "`\n". */

/* Member data is streamed from these, in order, never copied. */
struct ar_piece {
	const uint8_t *buf;
	size_t len;
};

struct ar_new_member {
	const char *name;	/* stored as given (LLVM: the buffer identifier) */
	size_t name_len;
	const struct ar_piece *piece;
	size_t npieces;
	/* What the symbol table says of the member; ar_member_symbols
	 * computes these from the member's bytes. */
	bool symbolic;		/* an object or bitcode file, with symbols or not */
	const char *syms;	/* the names, each followed by a NUL */
	size_t syms_len;	/* bytes in syms */
	size_t nsyms;
	/* Header fields, used without AR_WRITE_DETERMINISTIC (LLVM prints
	 * uid and gid modulo 10^6). */
	int64_t mtime;
	uint32_t uid, gid, mode;
	/* What a COFF archive's symbol maps make of it (ar_symlist's). */
	unsigned ec;
};

enum ar_write_flags {
	AR_WRITE_SYMTAB = 1 << 0,	 /* SymtabWritingMode::NormalSymtab */
	AR_WRITE_DETERMINISTIC = 1 << 1, /* date, uid, gid 0; mode 644 */
	AR_WRITE_THIN = 1 << 2,		 /* "!<thin>": headers, no data */
};

#define AR_SYM64_THRESHOLD (UINT64_C(1) << 32)

struct ar_write_opts {
	unsigned flags;
	/* Where LLVM switches to "/SYM64/": AR_SYM64_THRESHOLD, or what
	 * ar_sym64_threshold makes of $SYM64_THRESHOLD, as LLVM reads it. */
	uint64_t sym64_threshold;
	int64_t now;	/* the symbol table's date when not deterministic */
	/* AR_GNU, or AR_COFF: LLVM's K_COFF, which llvm-ar picks when the
	 * first member is a COFF object.  It differs from GNU in four ways:
	 * a long name ends in a NUL, not "/\n"; a symbol defined by several
	 * members is listed once, for the first; the symbol table is written
	 * even when empty, without GNU's three-NUL filler; and a second "/"
	 * member follows it, the symbol map (little-endian member count and
	 * offsets, symbol count, 16-bit 1-based member indices and names in
	 * byte order), and "/<ECSYMBOLS>/" after the long names when ARM64
	 * and EC members meet (enum ar_ec).  More than 0xfffe members or no
	 * symbol table give GNU, and offsets past the threshold (counted with
	 * the maps) GNU with "/SYM64/", as in LLVM. */
	enum ar_kind kind;
};

/* LLVM's reading of $SYM64_THRESHOLD: a decimal number that fits 64 bits;
 * anything else (or NULL) leaves AR_SYM64_THRESHOLD. */
uint64_t ar_sym64_threshold(const char *value);

/* Write the archive to o (opened by the caller, who commits or discards
 * it).  Fails on a member of more than 9999999999 bytes ("File <name>
 * exceeds size limit", as LLVM), a header field that does not fit, or a
 * write error. */
int ar_write(struct io_out *o, const struct ar_new_member *m, size_t n,
	     const struct ar_write_opts *opt, struct err *e);

#endif
