/* ar: Unix archives ("!<arch>", "!<thin>"), read the way LLVM 22's
 * object::Archive reads them and written byte for byte as its writeArchive
 * writes them. */
#ifndef FORMATS_AR_H
#define FORMATS_AR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

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
	/* A member running past the end names where the next would start
	 * and the archive's size, as LLVM 24's libObject says it (set after
	 * ar_open). */
	bool says_offsets;
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

#endif
