/* coff: the sections of a COFF object (plain or bigobj) that LLVM finds
 * offload binaries in by name, read with LLVM 22's rules. */
#ifndef FORMATS_COFF_H
#define FORMATS_COFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* A COFF object, plain (by its machine field) or bigobj, as LLVM 22's
 * identify_magic judges it (the magic alone: see coff_is_object). */
bool coff_has_magic(const uint8_t *buf, size_t len);

/* The bigobj signature ("\0\0\xff\xff" and its UUID). */
bool coff_is_bigobj(const uint8_t *buf, size_t len);
extern const uint8_t coff_bigobj_uuid[16];

/* The file header, plain or bigobj, and where its tables are. */
struct coff_header {
	bool bigobj;
	uint16_t machine, characteristics;	/* characteristics: 0 in bigobj */
	uint32_t timestamp;
	uint64_t nsec, table;		/* section count, section table offset */
	uint64_t symtab, nsym;		/* PointerToSymbolTable, NumberOfSymbols */
	unsigned symsize;		/* 18, or 20 in bigobj */
	/* The string table as LLVM takes it (0, 0: none; see coff.c). */
	uint64_t strtab_at, strtab_size;
	bool import_library;		/* 0xffff sections: no sections read */
	bool image, pe32plus;		/* a PE image (PE32+: 64-bit) */
};

/* A PE image (executable or DLL): "MZ", and where its DOS header points,
 * "PE\0\0" and a COFF header.  coff_read_header and coff_sections read
 * it as LLVM does, sections by their names cut to eight bytes, each's
 * size the smaller of its virtual and raw sizes. */
bool coff_is_image(const uint8_t *buf, size_t len);

/* Read the header (of an object or an image); the section table must lie
 * inside the file. */
int coff_read_header(const uint8_t *buf, size_t len, struct coff_header *h,
		     struct err *e);

struct coff_section {
	uint32_t index;		/* from 1, as COFF numbers sections */
	const char *name;	/* long names resolved; not NUL-terminated */
	size_t name_len;
	uint64_t offset, size;	/* its bytes in the file (0, 0: none) */
};

/* A PE image's section as loaded: at address va (the image base plus
 * its RVA), vsize bytes, of which the first raw (at most vsize) are at
 * file offset offset and the rest zeros. */
struct coff_image_section {
	uint64_t va, vsize, offset, raw;
	uint32_t characteristics;
};

/* A PE32+ image's preferred base and its sections, in table order (n of
 * them, *v malloc'd): every section's raw bytes must lie in the file. */
int coff_image_layout(const uint8_t *buf, size_t len, uint64_t *image_base,
		      struct coff_image_section **v, size_t *n,
		      struct err *e);
enum {
	COFF_SCN_CNT_CODE = 0x20,
	COFF_SCN_CNT_INITIALIZED_DATA = 0x40,
	COFF_SCN_MEM_EXECUTE = 0x20000000,
	COFF_SCN_MEM_WRITE = 0x80000000,
};

/* Which sections the caller wants the bytes of. */
typedef bool coff_want_fn(void *ctx, const char *name, size_t name_len);
typedef int coff_section_fn(void *ctx, const struct coff_section *s,
			    struct err *e);

/* Call each, in table order, for every section want accepts (long names
 * resolved through the string table).  Every section's name must resolve,
 * as in LLVM; only the bytes of the sections wanted must lie inside the
 * file.  The header's machine and form are in *machine and *bigobj. */
int coff_sections(const uint8_t *buf, size_t len, coff_want_fn *want,
		  coff_section_fn *each, void *ctx, uint16_t *machine,
		  bool *bigobj, struct err *e);

/* As coff_sections, but the wanted sections' bytes are not checked: the
 * caller checks each's offset and size before it reads them (LLVM's
 * bundler lists bundle sections by name alone). */
int coff_section_names(const uint8_t *buf, size_t len, coff_want_fn *want,
		       coff_section_fn *each, void *ctx, uint16_t *machine,
		       bool *bigobj, struct err *e);

/* Why LLVM cannot name a section of this COFF file, in its words ("invalid
 * section name", "string table empty", ...), or NULL when it can. */
const char *coff_llvm_name_error(const uint8_t *buf, size_t len);

/* A COFF object LLVM's object reader takes: the magic, and a header and
 * section table whose section names all resolve. */
bool coff_is_object(const uint8_t *buf, size_t len);

/* A COFF object as a file of any kind is taken for one (ops/hosts.c): by
 * its magic, so that a damaged one is said to be damaged, but of machine 0
 * (unknown), which any run of zeros starts with, only when it reads as
 * one (coff_is_object). */
bool coff_probe(const uint8_t *buf, size_t len);

/* A COFF file (object or PE image) LLVM's bundler takes for an object
 * with -type=o or -type=a: its header and section table in place.  Names
 * that do not resolve fail later, in llvm-objcopy or in the walk of its
 * sections, in LLVM's words (coff_llvm_name_error). */
bool coff_is_readable(const uint8_t *buf, size_t len);

/* The symbols LLVM 22's archive writer lists for a COFF object or image
 * (isArchiveSymbol over COFFObjectFile's symbols), in table order: global,
 * defined (an alias-searching weak external counts), neither a file record
 * nor a section definition.  A symbol table or string table LLVM cannot
 * read gives no symbols, as in LLVM; a name outside the string table is an
 * error.  each returns 0 to go on; anything else stops the walk and is
 * returned.  Short import objects are refused. */
typedef int coff_symbol_fn(void *ctx, const char *name, size_t len);
int coff_archive_symbols(const uint8_t *buf, size_t len,
			 coff_symbol_fn *each, void *ctx, struct err *e);

#endif
