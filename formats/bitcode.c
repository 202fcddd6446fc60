/* bitcode: reach the irsymtab blobs of an LLVM bitcode file.
 *
 * The bitstream is a sequence of abbreviation IDs of the current width:
 * 0 ends a block, 1 enters one (block ID vbr8, new width vbr4, align to 32
 * bits, length in 32-bit words), 2 defines an abbreviation, 3 is a record
 * spelled out in vbr6, 4 and up are records laid out by an abbreviation.
 * At the top level a file holds IDENTIFICATION_BLOCK, MODULE_BLOCK (each
 * skipped whole by its length word), then SYMTAB_BLOCK and STRTAB_BLOCK,
 * each holding one record whose operand is a blob.  The walk follows
 * LLVM's getBitcodeFileContents; every read is bounded by the stream and
 * every count checked against the bits left before it is used. */
#include <inttypes.h>
#include <string.h>

#include "bitcode.h"

enum {
	BLOCK_IDENTIFICATION = 13,
	BLOCK_MODULE = 8,
	BLOCK_STRTAB = 23,
	BLOCK_SYMTAB = 25,
	RECORD_BLOB = 1,	/* STRTAB_BLOB and SYMTAB_BLOB */
};

enum { END_BLOCK, ENTER_SUBBLOCK, DEFINE_ABBREV, UNABBREV_RECORD };

enum op_kind { OP_LITERAL, OP_FIXED, OP_VBR, OP_ARRAY, OP_CHAR6, OP_BLOB };

/* Abbreviations this reader keeps: a file's top level and its symbol and
 * string table blocks define a handful; more is refused. */
enum { MAX_ABBREVS = 32, MAX_OPS = 16 };

struct op {
	uint8_t kind;
	uint64_t value;		/* literal value or bit width */
};

struct abbrevs {
	unsigned n;
	uint8_t nops[MAX_ABBREVS];
	struct op op[MAX_ABBREVS][MAX_OPS];
};

struct bits {
	const uint8_t *p;
	uint64_t len;		/* in bits */
	uint64_t pos;
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

#define ENDS "bitcode ends inside "

bool bitcode_is_bitcode(const uint8_t *buf, size_t len)
{
	return len >= 4 && (!memcmp(buf, "BC\xc0\xde", 4) ||
			    !memcmp(buf, "\xde\xc0\x17\x0b", 4));
}

static int read_bits(struct bits *b, unsigned n, uint64_t *v, struct err *e)
{
	uint64_t r = 0;
	unsigned got = 0;

	*v = 0;
	if (n > b->len - b->pos)
		return err_set(e, ENDS "a record (bit %" PRIu64 ")", b->pos);
	while (got < n) {
		unsigned off = (unsigned)(b->pos & 7);
		unsigned take = 8 - off < n - got ? 8 - off : n - got;
		unsigned byte = b->p[b->pos >> 3];

		r |= (uint64_t)((byte >> off) & ((1u << take) - 1)) << got;
		got += take;
		b->pos += take;
	}
	*v = r;
	return 0;
}

/* Variable-width: chunks of n bits (1 to 32), the top bit of each says
 * more follow.  As in LLVM's ReadVBR64, bits shifted past 64 are dropped
 * and a chunk that would start at bit 64 or later is an error. */
static int read_vbr(struct bits *b, unsigned n, uint64_t *v, struct err *e)
{
	uint64_t piece, r = 0, more = UINT64_C(1) << (n - 1);
	unsigned shift = 0;

	*v = 0;
	for (;;) {
		if (read_bits(b, n, &piece, e) < 0)
			return -1;
		r |= (piece & (more - 1)) << shift;
		if (!(piece & more))
			break;
		shift += n - 1;
		if (shift >= 64)
			return err_set(e, "unterminated VBR at bit %" PRIu64,
				       b->pos);
	}
	*v = r;
	return 0;
}

static void align32(struct bits *b)
{
	uint64_t p = (b->pos + 31) & ~(uint64_t)31;

	b->pos = p < b->len ? p : b->len;
}

/* An abbreviation definition: operand count vbr5, then per operand a
 * literal flag, and a vbr8 literal or a 3-bit encoding (fixed and vbr take
 * a vbr5 width; width 0 means the literal 0). */
static int define_abbrev(struct bits *b, struct abbrevs *a, struct err *e)
{
	uint64_t nops, v;
	unsigned k;

	if (read_vbr(b, 5, &nops, e) < 0)
		return -1;
	if (a->n == MAX_ABBREVS)
		return err_set(e, "more than %d abbreviations in a block",
			       MAX_ABBREVS);
	if (!nops)
		return err_set(e, "abbreviation with no operands");
	if (nops > MAX_OPS)
		return err_set(e, "abbreviation with %" PRIu64 " operands",
			       nops);
	k = a->n;
	for (unsigned i = 0; i < nops; i++) {
		struct op *op = &a->op[k][i];

		if (read_bits(b, 1, &v, e) < 0)
			return -1;
		if (v) {
			op->kind = OP_LITERAL;
			if (read_vbr(b, 8, &op->value, e) < 0)
				return -1;
			continue;
		}
		if (read_bits(b, 3, &v, e) < 0)
			return -1;
		if (v < OP_FIXED || v > OP_BLOB)
			return err_set(e, "invalid abbreviation encoding %"
				       PRIu64, v);
		op->kind = (uint8_t)v;
		op->value = 0;
		if (v != OP_FIXED && v != OP_VBR)
			continue;
		if (read_vbr(b, 5, &op->value, e) < 0)
			return -1;
		if (op->value > 32)
			return err_set(e, "fixed or VBR abbreviation operand "
				       "of %" PRIu64 " bits", op->value);
		if (!op->value)
			op->kind = OP_LITERAL;
	}
	a->nops[k] = (uint8_t)nops;
	a->n++;
	return 0;
}

static int read_scalar(struct bits *b, const struct op *op, uint64_t *v,
		       struct err *e)
{
	switch (op->kind) {
	case OP_LITERAL:
		*v = op->value;
		return 0;
	case OP_FIXED:
		return read_bits(b, (unsigned)op->value, v, e);
	case OP_VBR:
		return read_vbr(b, (unsigned)op->value, v, e);
	case OP_CHAR6:
		return read_bits(b, 6, v, e);
	}
	return err_set(e, "an array or blob where a scalar belongs");
}

/* Read (or skip) one record.  For an abbreviated record with a blob
 * operand, *blob and *blob_len say where its bytes are. */
static int read_record(struct bits *b, const struct abbrevs *a, uint64_t id,
		       uint64_t *code, const uint8_t **blob, size_t *blob_len,
		       struct err *e)
{
	const struct op *op;
	uint64_t n, v;
	unsigned nops;

	*blob = NULL;
	*blob_len = 0;
	if (id == UNABBREV_RECORD) {
		if (read_vbr(b, 6, code, e) < 0 || read_vbr(b, 6, &n, e) < 0)
			return -1;
		if (n > (b->len - b->pos) / 6)
			return err_set(e, ENDS "a record of %" PRIu64
				       " operands", n);
		for (uint64_t i = 0; i < n; i++)
			if (read_vbr(b, 6, &v, e) < 0)
				return -1;
		return 0;
	}
	if (id - 4 >= a->n)
		return err_set(e, "invalid abbrev number %" PRIu64, id);
	op = a->op[id - 4];
	nops = a->nops[id - 4];
	if (op[0].kind == OP_ARRAY || op[0].kind == OP_BLOB)
		return err_set(e, "abbreviation starts with an array or a blob");
	if (read_scalar(b, &op[0], code, e) < 0)
		return -1;
	for (unsigned i = 1; i < nops; i++) {
		if (op[i].kind == OP_ARRAY) {
			const struct op *elt = &op[i + 1];

			if (i + 2 != nops)
				return err_set(e, "array operand not second to "
					       "last");
			if (elt->kind == OP_LITERAL || elt->kind == OP_ARRAY ||
			    elt->kind == OP_BLOB)
				return err_set(e, "array element type has to be "
					       "an encoding of a type");
			if (read_vbr(b, 6, &n, e) < 0)
				return -1;
			/* Every element takes a bit at least. */
			if (n > b->len - b->pos)
				return err_set(e, ENDS "an array of %" PRIu64
					       " elements", n);
			for (uint64_t k = 0; k < n; k++)
				if (read_scalar(b, elt, &v, e) < 0)
					return -1;
			return 0;
		}
		if (op[i].kind == OP_BLOB) {
			uint64_t end;

			if (i + 1 != nops)
				return err_set(e, "blob operand not last");
			if (read_vbr(b, 6, &n, e) < 0)
				return -1;
			align32(b);
			/* The blob and its padding to 32 bits. */
			if (n > (b->len - b->pos) / 8 ||
			    (end = b->pos + ((n + 3) & ~(uint64_t)3) * 8) >
				    b->len)
				return err_set(e, "blob ends too soon");
			*blob = b->p + (b->pos >> 3);
			*blob_len = (size_t)n;
			b->pos = end;
			return 0;
		}
		if (read_scalar(b, &op[i], &v, e) < 0)
			return -1;
	}
	return 0;
}

/* After ENTER_SUBBLOCK and the block ID: skip the block by its length. */
static int skip_block(struct bits *b, struct err *e)
{
	uint64_t v, words;

	if (read_vbr(b, 4, &v, e) < 0)
		return -1;
	align32(b);
	if (read_bits(b, 32, &words, e) < 0)
		return -1;
	if (b->pos == b->len)
		return err_set(e, "can't skip block: already at end of stream");
	if (words * 32 > b->len - b->pos)
		return err_set(e, "can't skip block of %" PRIu64 " words at bit "
			       "%" PRIu64 ": past the end", words, b->pos);
	b->pos += words * 32;
	return 0;
}

/* LLVM's readBlobInRecord: enter the block, keep the blob of the last
 * record with the blob code, skip anything else, up to END_BLOCK.  An
 * unabbreviated record leaves the blob empty, as in LLVM. */
static int read_blob_block(struct bits *b, const uint8_t **blob,
			   size_t *blob_len, struct err *e)
{
	struct abbrevs a;
	uint64_t width, words, id, code;
	const uint8_t *p;
	size_t n;

	a.n = 0;
	*blob = NULL;
	*blob_len = 0;
	if (read_vbr(b, 4, &width, e) < 0)
		return -1;
	if (width < 1 || width > 32)
		return err_set(e, "block with abbreviation width %" PRIu64,
			       width);
	align32(b);
	if (read_bits(b, 32, &words, e) < 0)
		return -1;
	if (b->pos == b->len)
		return err_set(e, "can't enter sub block: already at end of "
			       "stream");
	for (;;) {
		if (read_bits(b, (unsigned)width, &id, e) < 0)
			return -1;
		switch (id) {
		case END_BLOCK:
			align32(b);
			return 0;
		case ENTER_SUBBLOCK:
			if (read_vbr(b, 8, &code, e) < 0 || skip_block(b, e) < 0)
				return -1;
			break;
		case DEFINE_ABBREV:
			if (define_abbrev(b, &a, e) < 0)
				return -1;
			break;
		default:
			if (read_record(b, &a, id, &code, &p, &n, e) < 0)
				return -1;
			if (code == RECORD_BLOB) {
				*blob = p;
				*blob_len = n;
			}
			break;
		}
	}
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* A storage::Str (offset, size) inside the string table. */
static int get_str(const struct bitcode_symtab *t, const uint8_t *at,
		   const char *what, const char **s, size_t *len,
		   struct err *e)
{
	uint32_t off = le32(at), size = le32(at + 4);

	if (off > t->strtab_len || size > t->strtab_len - off)
		return err_set(e, "IR symbol table: %s (%" PRIu32 " bytes at %"
			       PRIu32 ") is not inside the %zu-byte string "
			       "table", what, size, off, t->strtab_len);
	*s = (const char *)t->strtab + off;
	*len = size;
	return 0;
}

/* The walk of getBitcodeFileContents: count the modules, keep the first
 * symbol table and the first string table after it. */
static int find_blobs(struct bits *b, struct bitcode_symtab *t, struct err *e)
{
	struct abbrevs top;
	uint64_t id, block, code;
	const uint8_t *blob;
	size_t n;

	top.n = 0;
	for (;;) {
		/* LLVM stops where no module could fit any more: tools
		 * such as Apple's ar leave padding at the end. */
		if ((b->pos >> 3) + 8 >= b->len >> 3)
			return 0;
		if (read_bits(b, 2, &id, e) < 0)
			return -1;
		if (id == END_BLOCK)
			return err_set(e, "Malformed block");
		if (id == DEFINE_ABBREV) {
			if (define_abbrev(b, &top, e) < 0)
				return -1;
			continue;
		}
		if (id != ENTER_SUBBLOCK) {
			if (read_record(b, &top, id, &code, &blob, &n, e) < 0)
				return -1;
			continue;
		}
		if (read_vbr(b, 8, &block, e) < 0)
			return -1;
		if (block == BLOCK_IDENTIFICATION) {
			if (skip_block(b, e) < 0)
				return -1;
			/* It must be followed by a module. */
			do {
				if (read_bits(b, 2, &id, e) < 0)
					return -1;
				if (id == DEFINE_ABBREV &&
				    define_abbrev(b, &top, e) < 0)
					return -1;
			} while (id == DEFINE_ABBREV);
			if (id != ENTER_SUBBLOCK ||
			    read_vbr(b, 8, &block, e) < 0 ||
			    block != BLOCK_MODULE)
				return err_set(e, "Malformed block");
		}
		if (block == BLOCK_MODULE) {
			if (skip_block(b, e) < 0)
				return -1;
			if (t->modules == UINT32_MAX)
				return err_set(e, "too many modules");
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
		} else if (skip_block(b, e) < 0) {
			return -1;
		}
	}
}

int bitcode_symtab_open(struct bitcode_symtab *t, const uint8_t *buf,
			size_t len, struct err *e)
{
	struct bits b = { buf, 0, 0 };
	size_t start = 0, size = len;
	uint32_t off, n;

	memset(t, 0, sizeof(*t));
	if (len & 3)
		return err_set(e, "Invalid bitcode signature");
	if (len >= 4 && !memcmp(buf, "\xde\xc0\x17\x0b", 4)) {
		/* Wrapper: magic, version, offset, size, CPU type. */
		if (len < 16)
			return err_set(e, "Invalid bitcode wrapper header");
		start = le32(buf + 8);
		size = le32(buf + 12);
		if (start > len || size > len - start)
			return err_set(e, "Invalid bitcode wrapper header");
	}
	if (size < 4)
		return err_set(e, "file too small to contain bitcode header");
	if (memcmp(buf + start, "BC\xc0\xde", 4))
		return err_set(e, "file doesn't start with bitcode header");
	b.p = buf + start;
	b.len = (uint64_t)size * 8;
	b.pos = 32;
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
		return err_set(e, "bitcode without an IR symbol table "
			       "(SYMTAB_BLOCK)");
	if (!t->strtab_len)
		return err_set(e, "bitcode without a string table after its IR "
			       "symbol table");
	if (t->symtab_len < HDR_SIZE)
		return err_set(e, "IR symbol table of %zu bytes: too small for "
			       "its header", t->symtab_len);
	t->version = le32(t->symtab + HDR_VERSION);
	if (t->version > MAX_VERSION)
		return err_set(e, "IR symbol table version %" PRIu32
			       " is not supported", t->version);
	off = le32(t->symtab + HDR_MODULES);
	n = le32(t->symtab + HDR_MODULES + 4);
	if (off > t->symtab_len || n > (t->symtab_len - off) / MODULE_SIZE)
		return err_set(e, "IR symbol table: %" PRIu32 " modules do not "
			       "fit in its %zu bytes", n, t->symtab_len);
	if (n != t->modules)
		return err_set(e, "IR symbol table covers %" PRIu32 " of %"
			       PRIu32 " modules (concatenated bitcode?)", n,
			       t->modules);
	off = le32(t->symtab + HDR_SYMBOLS);
	n = le32(t->symtab + HDR_SYMBOLS + 4);
	if (off > t->symtab_len || n > (t->symtab_len - off) / SYMBOL_SIZE)
		return err_set(e, "IR symbol table: %" PRIu32 " symbols do not "
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
	s->comdat = (int32_t)le32(p + 16);
	s->flags = le32(p + 20);
	return 0;
}

int bitcode_archive_symbols(const uint8_t *buf, size_t len,
			    int (*each)(void *ctx, const char *name,
					size_t len),
			    void *ctx, struct err *e)
{
	struct bitcode_symtab t;
	struct bitcode_symbol s;
	int rc;

	if (bitcode_symtab_open(&t, buf, len, e) < 0)
		return -1;
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

int bitcode_embedded_objects(const uint8_t *buf, size_t len,
			     int (*each)(void *ctx, uint8_t *data, size_t len),
			     void *ctx, struct err *e)
{
	(void)buf, (void)len, (void)each, (void)ctx;
	return err_set(e, "reading offload binaries from LLVM bitcode is not "
		       "supported");
}
