/* ar: Unix archives ("!<arch>", "!<thin>"), read the way LLVM 22's
 * object::Archive reads them and written byte for byte as its writeArchive
 * writes them. */
#ifndef FORMATS_AR_H
#define FORMATS_AR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_types.h"

#define AR_MAGIC "!<arch>\n"
#define AR_THIN_MAGIC "!<thin>\n"
enum { AR_MAGIC_LEN = 8, AR_HEADER_LEN = 60 };

/* The flavours LLVM tells apart by an archive's first members. */
enum ar_kind {
	AR_GNU,		/* "/" symbol table (32-bit big-endian), "//" names */
	AR_GNU64,	/* "/SYM64/" symbol table (64-bit big-endian) */
	AR_BSD,		/* "__.SYMDEF" ranlib table, "#1/<len>" names */
	AR_DARWIN64,	/* "__.SYMDEF_64" */
	AR_COFF,	/* "/" twice, the second a symbol map; "//" names */
};

/* Starts with "!<arch>\n" or "!<thin>\n". */
bool ar_is_archive(const uint8_t *buf, size_t len);

/* ---- Reading ----
 *
 * ar_open reads the special members at the front (symbol table, long-name
 * table) as LLVM does, ar_next then returns the other members in archive
 * order.  Every header is checked before its member is returned: the
 * terminator, the size digits, the name (a long-name offset inside the
 * table and ending in "/\n", a BSD name inside the member), and the member
 * with its padding byte inside the buffer.  Messages are LLVM's where LLVM
 * has one ("truncated or malformed archive (...)"); nothing outside buf is
 * ever read.  Nothing is allocated: ar_reader needs no cleanup. */
struct ar_reader {
	const uint8_t *buf;
	size_t len;
	bool thin;
	enum ar_kind kind;
	size_t symtab_off, symtab_len;	/* the symbol table's bytes (0: none) */
	size_t strtab_off, strtab_len;	/* the long-name table's bytes */
	size_t next;			/* header ar_next reads; len: the end */
};

struct ar_member {
	const char *name;	/* inside buf, not NUL-terminated */
	size_t name_len;
	uint64_t header;	/* offset of the member's header */
	uint64_t offset;	/* offset of its data (after a BSD name) */
	uint64_t size;		/* bytes of data */
	/* A thin archive's member: its data is the file `name` names
	 * (relative to the archive's directory unless absolute), size is what
	 * the header records for it, offset is 0. */
	bool thin;
};

/* "file too small to be an archive" for anything without the magic, as
 * LLVM says; AIX big archives are refused. */
int ar_open(struct ar_reader *r, const uint8_t *buf, size_t len,
	    struct err *e);
/* The next member: 1, 0 at the end, -1 on a damaged header (the reader
 * stays at that header, so calling again fails again). */
int ar_next(struct ar_reader *r, struct ar_member *m, struct err *e);

/* The header fields tools other than the bundler care about, checked as
 * LLVM checks them when asked (decimal date, uid and gid, octal mode; an
 * empty uid or gid is 0). */
struct ar_attrs {
	uint64_t mtime;
	uint32_t uid, gid, mode;
};
int ar_member_attrs(const struct ar_reader *r, const struct ar_member *m,
		    struct ar_attrs *a, struct err *e);

/* Each entry of the symbol table, in table order: its name and the offset
 * of the header of the member that defines it.  each returns 0 to go on;
 * anything else stops the walk and is returned.  Counts and name offsets
 * are checked against the table; no table: returns 0 at once. */
typedef int ar_symbol_fn(void *ctx, const char *name, size_t len,
			 uint64_t member);
int ar_symbols(const struct ar_reader *r, ar_symbol_fn *each, void *ctx,
	       struct err *e);

/* Read everything: every member and attribute, every symbol, each symbol
 * pointing at a member's header.  0 for a sound archive.  A fuzz target
 * calls this with whatever bytes it likes. */
int ar_validate(const uint8_t *buf, size_t len, struct err *e);

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
