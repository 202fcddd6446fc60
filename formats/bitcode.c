/* bitcode: reach the irsymtab blobs of an LLVM bitcode file (the
 * bitstream under it is read by bitstream.c).
 *
 * At the top level a file holds IDENTIFICATION_BLOCK, MODULE_BLOCK (each
 * skipped whole by its length word), then SYMTAB_BLOCK and STRTAB_BLOCK,
 * each holding one record whose operand is a blob.  The walk follows
 * LLVM's getBitcodeFileContents; every read is bounded by the stream and
 * every count checked against the bits left before it is used. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bitcode.h"
#include "bitstream.h"
#include "../core/bytes.h"

enum {
	BLOCK_IDENTIFICATION = 13,
	BLOCK_MODULE = 8,
	BLOCK_STRTAB = 23,
	BLOCK_SYMTAB = 25,
	RECORD_BLOB = 1,	/* STRTAB_BLOB and SYMTAB_BLOB */
};

/* irsymtab::storage layout (little-endian 32-bit words). */
enum {
	HDR_VERSION = 0,
	HDR_PRODUCER = 4,
	HDR_MODULES = 12,
	HDR_SYMBOLS = 28,
	HDR_TRIPLE = 44,
	HDR_SOURCE = 52,
	HDR_SIZE = 76,		/* sizeof(storage::Header), versions 2 to 4 */
	MODULE_SIZE = 12,
	SYMBOL_SIZE = 24,
	MAX_VERSION = 4,
};

/* LLVM's readBlobInRecord: enter the block, keep the blob of the last
 * record with the blob code, skip anything else, up to END_BLOCK.  An
 * unabbreviated record leaves the blob empty, as in LLVM. */
static int read_blob_block(struct bitstream *b, const uint8_t **blob,
			   size_t *blob_len, struct err *e)
{
	struct bs_abbrevs a;
	struct bs_record r = { 0 };
	uint64_t id, end;
	unsigned width;

	a.n = 0;
	*blob = NULL;
	*blob_len = 0;
	if (bs_enter_block(b, &width, &end, e) < 0)
		return -1;
	for (;;) {
		if (bs_read(b, width, &id, e) < 0)
			return -1;
		switch (id) {
		case BS_END_BLOCK:
			bs_align32(b);
			return 0;
		case BS_ENTER_SUBBLOCK:
			if (bs_vbr(b, 8, &id, e) < 0 || bs_skip_block(b, e) < 0)
				return -1;
			break;
		case BS_DEFINE_ABBREV:
			if (bs_define_abbrev(b, &a, e) < 0)
				return -1;
			break;
		default:
			if (bs_read_record(b, &a, id, &r, NULL, NULL, e) < 0)
				return -1;
			if (r.code == RECORD_BLOB) {
				*blob = r.blob;
				*blob_len = r.blob_len;
			}
			break;
		}
	}
}

/* A storage::Str (offset, size) inside the string table. */
static int get_str(const struct bitcode_symtab *t, const uint8_t *at,
		   const char *what, const char **s, size_t *len,
		   struct err *e)
{
	uint32_t off = (uint32_t)get_le(at, 4);
	uint32_t size = (uint32_t)get_le(at + 4, 4);

	if (off > t->strtab_len || size > t->strtab_len - off)
		return err_cut(e, "IR symbol table: %s (%" PRIu32 " bytes at %"
			       PRIu32 ") is not inside the %zu-byte string "
			       "table", what, size, off, t->strtab_len);
	*s = (const char *)t->strtab + off;
	*len = size;
	return 0;
}

/* The walk of getBitcodeFileContents: count the modules, keep the first
 * symbol table and the first string table after it. */
static int find_blobs(struct bitstream *b, struct bitcode_symtab *t,
		      struct err *e)
{
	struct bs_abbrevs top;
	struct bs_record r = { 0 };
	uint64_t id, block;
	const uint8_t *blob;
	size_t n;

	top.n = 0;
	for (;;) {
		/* LLVM stops where no module could fit any more: tools
		 * such as Apple's ar leave padding at the end. */
		if ((b->pos >> 3) + 8 >= b->len >> 3)
			return 0;
		if (bs_read(b, 2, &id, e) < 0)
			return -1;
		if (id == BS_END_BLOCK)
			return err_bad(e, "Malformed block");
		if (id == BS_DEFINE_ABBREV) {
			if (bs_define_abbrev(b, &top, e) < 0)
				return -1;
			continue;
		}
		if (id != BS_ENTER_SUBBLOCK) {
			if (bs_read_record(b, &top, id, &r, NULL, NULL, e) < 0)
				return -1;
			continue;
		}
		if (bs_vbr(b, 8, &block, e) < 0)
			return -1;
		if (block == BLOCK_IDENTIFICATION) {
			if (bs_skip_block(b, e) < 0)
				return -1;
			/* It must be followed by a module. */
			do {
				if (bs_read(b, 2, &id, e) < 0)
					return -1;
				if (id == BS_DEFINE_ABBREV &&
				    bs_define_abbrev(b, &top, e) < 0)
					return -1;
			} while (id == BS_DEFINE_ABBREV);
			if (id != BS_ENTER_SUBBLOCK ||
			    bs_vbr(b, 8, &block, e) < 0 ||
			    block != BLOCK_MODULE)
				return err_bad(e, "Malformed block");
		}
		if (block == BLOCK_MODULE) {
			if (bs_skip_block(b, e) < 0)
				return -1;
			if (t->modules == UINT32_MAX)
				return err_bad(e, "too many modules");
			t->modules++;
		} else if (block == BLOCK_SYMTAB) {
			if (read_blob_block(b, &blob, &n, e) < 0)
				return -1;
			if (!t->symtab_len) {
				t->symtab = blob;
				t->symtab_len = n;
			}
		} else if (block == BLOCK_STRTAB) {
			if (read_blob_block(b, &blob, &n, e) < 0)
				return -1;
			if (t->symtab_len && !t->strtab_len) {
				t->strtab = blob;
				t->strtab_len = n;
			}
		} else if (bs_skip_block(b, e) < 0) {
			return -1;
		}
	}
}

/* Bitcode this reader cannot list the symbols of, though LLVM could from
 * the IR. */
static int unsupported(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int unsupported(struct err *e, const char *fmt, ...)
{
	char why[ERR_WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	err_set(e, "%s", why);
	return BITCODE_UNSUPPORTED;
}

int bitcode_open_stream(const uint8_t *buf, size_t len, struct bitstream *b,
			struct err *e)
{
	size_t start = 0, size = len;

	if (len & 3)
		return err_bad(e, "Invalid bitcode signature");
	if (len >= 4 && !memcmp(buf, "\xde\xc0\x17\x0b", 4)) {
		/* Wrapper: magic, version, offset, size, CPU type. */
		if (len < 16)
			return err_bad(e, "Invalid bitcode wrapper header");
		start = (uint32_t)get_le(buf + 8, 4);
		size = (uint32_t)get_le(buf + 12, 4);
		if (start > len || size > len - start)
			return err_bad(e, "Invalid bitcode wrapper header");
	}
	if (size < 4)
		return err_cut(e, "file too small to contain bitcode header");
	if (memcmp(buf + start, "BC\xc0\xde", 4))
		return err_bad(e, "file doesn't start with bitcode header");
	b->p = buf + start;
	b->len = (uint64_t)size * 8;
	b->pos = 32;
	return 0;
}

int bitcode_symtab_open(struct bitcode_symtab *t, const uint8_t *buf,
			size_t len, struct err *e)
{
	struct bitstream b;
	uint32_t off, n;

	memset(t, 0, sizeof(*t));
	if (bitcode_open_stream(buf, len, &b, e) < 0)
		return -1;
	if (find_blobs(&b, t, e) < 0)
		return -1;

	/* LLVM's archive writer reads the IR itself; without a table that
	 * covers every module this reader has nothing to go by. */
	if (!t->modules) {
		t->symtab = t->strtab = NULL;
		t->symtab_len = t->strtab_len = 0;
		return 0;
	}
	if (!t->symtab_len)
		return unsupported(e, "bitcode without an IR symbol table "
				   "(SYMTAB_BLOCK)");
	if (!t->strtab_len)
		return unsupported(e, "bitcode without a string table after "
				   "its IR symbol table");
	if (t->symtab_len < HDR_SIZE)
		return err_cut(e, "IR symbol table of %zu bytes: too small for "
			       "its header", t->symtab_len);
	t->version = (uint32_t)get_le(t->symtab + HDR_VERSION, 4);
	if (t->version > MAX_VERSION)
		return unsupported(e, "IR symbol table version %" PRIu32
				   " is not supported", t->version);
	off = (uint32_t)get_le(t->symtab + HDR_MODULES, 4);
	n = (uint32_t)get_le(t->symtab + HDR_MODULES + 4, 4);
	if (off > t->symtab_len || n > (t->symtab_len - off) / MODULE_SIZE)
		return err_cut(e, "IR symbol table: %" PRIu32 " modules do not "
			       "fit in its %zu bytes", n, t->symtab_len);
	if (n != t->modules)
		return unsupported(e, "IR symbol table covers %" PRIu32 " of %"
				   PRIu32 " modules (concatenated bitcode?)", n,
				   t->modules);
	off = (uint32_t)get_le(t->symtab + HDR_SYMBOLS, 4);
	n = (uint32_t)get_le(t->symtab + HDR_SYMBOLS + 4, 4);
	if (off > t->symtab_len || n > (t->symtab_len - off) / SYMBOL_SIZE)
		return err_cut(e, "IR symbol table: %" PRIu32 " symbols do not "
			       "fit in its %zu bytes", n, t->symtab_len);
	t->syms_at = off;
	t->nsyms = n;
	return get_str(t, t->symtab + HDR_PRODUCER, "the producer",
		       &t->producer, &t->producer_len, e) < 0 ||
	       get_str(t, t->symtab + HDR_TRIPLE, "the target triple",
		       &t->triple, &t->triple_len, e) < 0 ||
	       get_str(t, t->symtab + HDR_SOURCE, "the source file name",
		       &t->source, &t->source_len, e) < 0 ? -1 : 0;
}

int bitcode_symbol(const struct bitcode_symtab *t, uint32_t i,
		   struct bitcode_symbol *s, struct err *e)
{
	const uint8_t *p;

	if (i >= t->nsyms)
		return err_set(e, "IR symbol %" PRIu32 " of %" PRIu32, i,
			       t->nsyms);
	p = t->symtab + t->syms_at + (size_t)i * SYMBOL_SIZE;
	if (get_str(t, p, "a symbol name", &s->name, &s->name_len, e) < 0 ||
	    get_str(t, p + 8, "a symbol's IR name", &s->ir_name,
		    &s->ir_name_len, e) < 0)
		return -1;
	s->comdat = (int32_t)(uint32_t)get_le(p + 16, 4);
	s->flags = (uint32_t)get_le(p + 20, 4);
	return 0;
}

int bitcode_archive_symbols(const uint8_t *buf, size_t len,
			    int (*each)(void *ctx, const char *name,
					size_t len),
			    void *ctx, struct err *e)
{
	struct bitcode_symtab t;
	struct bitcode_symbol s;
	int rc = bitcode_symtab_open(&t, buf, len, e);

	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < t.nsyms; i++) {
		if (bitcode_symbol(&t, i, &s, e) < 0)
			return -1;
		/* ArchiveWriter's isArchiveSymbol; irsymtab copies these
		 * three bits from the same ModuleSymbolTable flags. */
		if (!(s.flags & BITCODE_SYM_GLOBAL) ||
		    (s.flags & (BITCODE_SYM_UNDEFINED |
				BITCODE_SYM_FORMAT_SPECIFIC)))
			continue;
		rc = each(ctx, s.name, s.name_len);
		if (rc)
			return rc;
	}
	return 0;
}

int bitcode_validate(const uint8_t *buf, size_t len, struct err *e)
{
	struct bitcode_symtab t;
	struct bitcode_symbol s;

	if (bitcode_symtab_open(&t, buf, len, e) < 0)
		return -1;
	for (uint32_t i = 0; i < t.nsyms; i++)
		if (bitcode_symbol(&t, i, &s, e) < 0)
			return -1;
	return 0;
}
