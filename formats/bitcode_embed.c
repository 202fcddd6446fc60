/* bitcode_embed: the offload data a bitcode module embeds, found as LLVM
 * 22's extractFromBitcode finds it, without building the IR.
 *
 * clang -fembed-offload-object (what -flto host objects carry) leaves in
 * the module
 *   @llvm.embedded.object = private constant [N x i8] c"\10\FF\10\AD...",
 *                           section ".llvm.offloading"
 *   !llvm.embedded.objects = !{!0}
 *   !0 = !{ptr @llvm.embedded.object, !".llvm.offloading"}
 * LLVM reads the named metadata, and for each node whose second operand
 * is that string takes the global of the first, and its initializer's
 * bytes if it is an array of data.
 *
 * In the MODULE_BLOCK that takes: the value numbering (each GLOBALVAR,
 * FUNCTION, ALIAS and IFUNC record, then each module-level constant but
 * SETTYPE, in stream order), each GLOBALVAR's initializer (value ID + 1),
 * the metadata numbering of the METADATA_BLOCK (strings first, then each
 * record that makes a node, a value or another kind of metadata), its
 * nodes, values and strings, the NAME / NAMED_NODE pairs, and the type
 * table, for the element size of a DATA constant.  A first walk gathers
 * all that (bytes of the large arrays are skipped), a second reads the
 * arrays asked for.  Function bodies and everything else are skipped by
 * their length words. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitcode.h"
#include "bitstream.h"

enum {
	BLOCK_MODULE = 8,
	BLOCK_CONSTANTS = 11,
	BLOCK_IDENTIFICATION = 13,
	BLOCK_METADATA = 15,
	BLOCK_TYPE = 17,

	MODULE_VERSION = 1,
	MODULE_GLOBALVAR = 7,
	MODULE_FUNCTION = 8,
	MODULE_ALIAS_OLD = 9,
	MODULE_ALIAS = 14,
	MODULE_IFUNC = 18,

	CST_SETTYPE = 1,
	CST_STRING = 8,
	CST_CSTRING = 9,
	CST_DATA = 22,

	MD_STRING_OLD = 1,
	MD_VALUE = 2,
	MD_NODE = 3,
	MD_NAME = 4,
	MD_DISTINCT_NODE = 5,
	MD_NAMED_NODE = 10,
	MD_STRINGS = 35,

	TYPE_NUMENTRY = 1,
	TYPE_FLOAT = 3,
	TYPE_DOUBLE = 4,
	TYPE_INTEGER = 7,
	TYPE_HALF = 10,
	TYPE_ARRAY = 11,
	TYPE_VECTOR = 12,
	TYPE_STRUCT_NAME = 19,
	TYPE_BFLOAT = 23,
};

static const char NAMED[] = "llvm.embedded.objects";
static const char SECTION[] = ".llvm.offloading";

enum value_kind { VAL_GLOBALVAR, VAL_GLOBAL, VAL_CONSTANT };

struct value {
	uint8_t kind;
	uint64_t code;		/* a constant's record code */
	uint64_t type;		/* a constant's type (the last SETTYPE) */
	uint64_t init;		/* a GLOBALVAR's initializer ID + 1 (0: none);
				   a constant's operand count */
};

enum md_kind { MD_OTHER, MD_K_STRING, MD_K_VALUE, MD_K_NODE };

struct md {
	uint8_t kind;
	bool section;		/* a string: ".llvm.offloading" */
	uint64_t nops;		/* a node: its operands */
	uint64_t a, b;		/* a node: operands 0 and 1 (IDs + 1);
				   a value: type and value ID */
};

struct type {
	uint64_t code, op0, op1;
};

/* A constant asked for and, after the second walk, its bytes; uses
 * counts down as they are handed out. */
struct want {
	uint64_t value;
	uint8_t *data;
	size_t len;
	size_t uses;
};

struct reader {
	struct bitstream b;
	struct bs_blockinfo *info;
	int pass;
	uint64_t version;
	struct value *val;
	size_t nval, capval;
	struct md *md;
	size_t nmd, capmd;
	struct type *ty;
	size_t nty, capty;
	uint64_t *named;	/* !llvm.embedded.objects' node IDs */
	size_t nnamed, capnamed;
	struct want *want;	/* sorted by value */
	size_t nwant;
	uint64_t *order;	/* value IDs of wanted, in LLVM's order */
	size_t norder;
	uint64_t next_value;	/* pass 2: value numbering */
	struct err *e;
};

static int grow(void *vp, size_t *cap, size_t n, size_t size, struct err *e)
{
	void **v = vp;
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 16;
	if (ncap > SIZE_MAX / size)
		return err_set(e, "out of memory");
	p = realloc(*v, ncap * size);
	if (!p)
		return err_set(e, "out of memory");
	*v = p;
	*cap = ncap;
	return 0;
}

static int add_value(struct reader *r, struct value v)
{
	if (grow(&r->val, &r->capval, r->nval, sizeof(v), r->e) < 0)
		return -1;
	r->val[r->nval++] = v;
	return 0;
}

static int add_md(struct reader *r, struct md m)
{
	if (grow(&r->md, &r->capmd, r->nmd, sizeof(m), r->e) < 0)
		return -1;
	r->md[r->nmd++] = m;
	return 0;
}

/* Metadata records that make a metadata ID (LLVM 22's MetadataLoader);
 * others (names, kinds, attachments, the index) make none, and codes it
 * does not know it ignores. */
static bool md_numbered(uint64_t code)
{
	return code == 1 || code == 2 || code == 3 || code == 5 ||
	       (code >= 7 && code <= 9) || (code >= 12 && code <= 34) ||
	       code == 37 || code == 40 || code == 41 ||
	       (code >= 44 && code <= 49);
}

/* Bytes per element of a DATA constant of type t, 0 when LLVM would not
 * make one of it. */
static unsigned element_size(const struct reader *r, uint64_t t)
{
	const struct type *elt;

	if (t >= r->nty || (r->ty[t].code != TYPE_ARRAY &&
			    r->ty[t].code != TYPE_VECTOR))
		return 0;
	if (r->ty[t].op1 >= r->nty)
		return 0;
	elt = &r->ty[r->ty[t].op1];
	switch (elt->code) {
	case TYPE_INTEGER:
		return elt->op0 == 8 || elt->op0 == 16 || elt->op0 == 32 ||
		       elt->op0 == 64 ? (unsigned)(elt->op0 / 8) : 0;
	case TYPE_HALF:
	case TYPE_BFLOAT:
		return 2;
	case TYPE_FLOAT:
		return 4;
	case TYPE_DOUBLE:
		return 8;
	}
	return 0;
}

/* ---- the walks ---- */

/* A block being read: its abbreviation width and definitions, and where
 * its length word says it ends. */
struct block {
	unsigned width;
	uint64_t end;
	struct bs_abbrevs *a;
};

/* Enter a block: its abbreviations start as BLOCKINFO gives them. */
static int enter(struct reader *r, uint64_t id, struct block *blk)
{
	blk->a = malloc(sizeof(*blk->a));
	if (!blk->a)
		return err_set(r->e, "out of memory");
	bs_block_abbrevs(r->info, id, blk->a);
	return bs_enter_block(&r->b, &blk->width, &blk->end, r->e);
}

/* Its END_BLOCK must be where its length word says: the second walk skips
 * some blocks by that word and must land where the first read to. */
static int leave(struct reader *r, const struct block *blk)
{
	bs_align32(&r->b);
	if (r->b.pos != blk->end)
		return err_set(r->e, "a block ends at bit %" PRIu64 ", its "
			       "length says at %" PRIu64, r->b.pos, blk->end);
	return 0;
}

/* The next entry of a block: a record (1, its abbreviation ID in *id),
 * its end (0); sub-blocks are skipped and definitions kept. */
static int next_record(struct reader *r, struct block *blk, uint64_t *id)
{
	uint64_t block;

	for (;;) {
		if (bs_read(&r->b, blk->width, id, r->e) < 0)
			return -1;
		switch (*id) {
		case BS_END_BLOCK:
			return leave(r, blk) < 0 ? -1 : 0;
		case BS_ENTER_SUBBLOCK:
			if (bs_vbr(&r->b, 8, &block, r->e) < 0 ||
			    bs_skip_block(&r->b, r->e) < 0)
				return -1;
			break;
		case BS_DEFINE_ABBREV:
			if (bs_define_abbrev(&r->b, blk->a, r->e) < 0)
				return -1;
			break;
		default:
			return 1;
		}
	}
}

static int read_types(struct reader *r)
{
	struct block blk = { 0 };
	struct bs_record rec = { .blob_ops = true, .skim = true };
	uint64_t id;
	int more, rc = -1;

	if (enter(r, BLOCK_TYPE, &blk) < 0)
		goto out;
	while ((more = next_record(r, &blk, &id)) == 1) {
		if (bs_read_record(&r->b, blk.a, id, &rec, NULL, NULL, r->e) < 0)
			goto out;
		if (rec.code == TYPE_NUMENTRY || rec.code == TYPE_STRUCT_NAME)
			continue;
		if (grow(&r->ty, &r->capty, r->nty, sizeof(*r->ty), r->e) < 0)
			goto out;
		r->ty[r->nty++] = (struct type){ rec.code,
			rec.nops > 0 ? rec.op[0] : 0,
			rec.nops > 1 ? rec.op[1] : 0 };
	}
	rc = more;
out:
	free(blk.a);
	return rc;
}

/* Pass 2: a wanted constant's operands, into its buffer. */
struct fill {
	struct want *w;
	unsigned size;		/* bytes per element */
};

static int fill_op(void *ctx, uint64_t i, uint64_t v)
{
	struct fill *f = ctx;
	uint8_t *p = f->w->data + i * f->size;

	if ((i + 1) * f->size > f->w->len)
		return 1;
	for (unsigned k = 0; k < f->size; k++)
		p[k] = (uint8_t)(v >> (8 * k));
	return 0;
}

static struct want *wanted(struct reader *r, uint64_t value)
{
	size_t lo = 0, hi = r->nwant;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->want[mid].value == value)
			return &r->want[mid];
		if (r->want[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Read the record at the wanted constant's value ID into its buffer
 * (unless it is a SETTYPE, which takes no value ID). */
static int read_wanted(struct reader *r, const struct bs_abbrevs *a,
		       uint64_t id, struct bs_record *rec, struct want *w)
{
	const struct value *v = &r->val[w->value];
	struct fill f = { w, v->code == CST_DATA ? element_size(r, v->type) : 1 };
	uint64_t n = v->init;
	int rc;

	/* Pass 1 counted the operands: exactly this many bytes. */
	if (n > (SIZE_MAX - 1) / f.size)
		return err_set(r->e, "a constant of %" PRIu64 " elements", n);
	w->len = (size_t)n * f.size + (v->code == CST_CSTRING);
	w->data = calloc(1, w->len ? w->len : 1);
	if (!w->data)
		return err_set(r->e, "out of memory");
	rec->skim = false;
	rc = bs_read_record(&r->b, a, id, rec, fill_op, &f, r->e);
	rec->skim = true;
	/* Not the constant yet: the type before it, read into the buffer
	 * for nothing. */
	if (rc == 0 && rec->code == CST_SETTYPE) {
		free(w->data);
		w->data = NULL;
		return 0;
	}
	if (rc > 0 || (rc == 0 && rec->nops != n))
		return err_set(r->e, "constant %" PRIu64 " changed between "
			       "two readings", w->value);
	return rc;
}

static int read_constants(struct reader *r)
{
	struct block blk = { 0 };
	struct bs_record rec = { .blob_ops = true, .skim = true };
	uint64_t id, type = 0;
	int more, rc = -1;

	if (enter(r, BLOCK_CONSTANTS, &blk) < 0)
		goto out;
	while ((more = next_record(r, &blk, &id)) == 1) {
		struct want *w = NULL;

		if (r->pass == 2 && r->next_value < r->nval &&
		    (w = wanted(r, r->next_value)) != NULL) {
			if (read_wanted(r, blk.a, id, &rec, w) < 0)
				goto out;
		} else if (bs_read_record(&r->b, blk.a, id, &rec, NULL, NULL,
					  r->e) < 0) {
			goto out;
		}
		if (rec.code == CST_SETTYPE) {
			if (rec.nops < 1) {
				err_set(r->e, "SETTYPE without a type");
				goto out;
			}
			type = rec.op[0];
			continue;
		}
		if (r->pass == 2)
			r->next_value++;
		else if (add_value(r, (struct value){ VAL_CONSTANT, rec.code,
						      type, rec.nops }) < 0)
			goto out;
	}
	rc = more;
out:
	free(blk.a);
	return rc;
}

/* A record's operands compared, as they are read, with the two strings
 * that matter: a name of named metadata, an old-style string. */
struct compare {
	bool named, section;
};

static int compare_op(void *ctx, uint64_t i, uint64_t v)
{
	struct compare *c = ctx;

	if (i >= sizeof(NAMED) - 1 || (unsigned char)NAMED[i] != v)
		c->named = false;
	if (i >= sizeof(SECTION) - 1 || (unsigned char)SECTION[i] != v)
		c->section = false;
	return 0;
}

static int named_op(void *ctx, uint64_t i, uint64_t v)
{
	struct reader *r = ctx;

	(void)i;
	if (grow(&r->named, &r->capnamed, r->nnamed, sizeof(*r->named),
		 r->e) < 0)
		return -1;
	r->named[r->nnamed++] = v;
	return 0;
}

/* METADATA_NAME, then the record that must follow it. */
static int read_named(struct reader *r, const struct block *blk, bool ours)
{
	struct bs_record rec = { 0 };
	uint64_t id;
	int rc;

	if (bs_read(&r->b, blk->width, &id, r->e) < 0)
		return -1;
	if (id != BS_UNABBREV_RECORD && id < 4)
		return err_set(r->e, "METADATA_NAME not followed by "
			       "METADATA_NAMED_NODE");
	rc = bs_read_record(&r->b, blk->a, id, &rec, ours ? named_op : NULL, r,
			    r->e);
	if (rc)
		return rc < 0 ? -1 : err_set(r->e, "out of memory");
	if (rec.code != MD_NAMED_NODE)
		return err_set(r->e, "METADATA_NAME not followed by "
			       "METADATA_NAMED_NODE");
	return 0;
}

/* METADATA_STRINGS: [count, offset], a blob of count vbr6 lengths, then
 * at offset the characters of each string, back to back. */
static int read_strings(struct reader *r, const struct bs_record *rec)
{
	struct bitstream lens;
	uint64_t count, offset, at, n;

	if (rec->nops != 2 || !rec->blob)
		return err_set(r->e, "Invalid record: metadata strings layout");
	count = rec->op[0];
	offset = rec->op[1];
	if (!count)
		return err_set(r->e, "Invalid record: metadata strings with "
			       "no strings");
	if (offset > rec->blob_len)
		return err_set(r->e, "Invalid record: metadata strings corrupt "
			       "offset");
	/* Every length takes 6 bits at least. */
	if (count > offset * 8 / 6)
		return err_set(r->e, "Invalid record: metadata strings bad "
			       "length");
	lens = (struct bitstream){ rec->blob, offset * 8, 0 };
	at = offset;
	for (uint64_t i = 0; i < count; i++) {
		if (bs_vbr(&lens, 6, &n, r->e) < 0)
			return err_set(r->e, "Invalid record: metadata strings "
				       "bad length");
		if (n > rec->blob_len - at)
			return err_set(r->e, "Invalid record: metadata strings "
				       "truncated chars");
		if (add_md(r, (struct md){ MD_K_STRING, n == sizeof(SECTION) - 1 &&
			   !memcmp(rec->blob + at, SECTION, n), 0, 0, 0 }) < 0)
			return -1;
		at += n;
	}
	return 0;
}

static int read_metadata(struct reader *r)
{
	struct block blk = { 0 };
	struct bs_record rec = { 0 };
	struct compare c;
	uint64_t id;
	int more, rc = -1;

	if (enter(r, BLOCK_METADATA, &blk) < 0)
		goto out;
	while ((more = next_record(r, &blk, &id)) == 1) {
		c = (struct compare){ true, true };
		/* Names and old strings are compared as they are read. */
		if (bs_read_record(&r->b, blk.a, id, &rec, compare_op, &c, r->e))
			goto out;
		switch (rec.code) {
		case MD_NAME:
			if (read_named(r, &blk, c.named &&
				       rec.nops == sizeof(NAMED) - 1) < 0)
				goto out;
			continue;
		case MD_STRINGS:
			if (read_strings(r, &rec) < 0)
				goto out;
			continue;
		case MD_STRING_OLD:
			if (add_md(r, (struct md){ MD_K_STRING, c.section &&
				   rec.nops == sizeof(SECTION) - 1, 0, 0, 0 }) < 0)
				goto out;
			continue;
		case MD_VALUE:
			if (rec.nops != 2) {
				err_set(r->e, "Invalid record: a metadata value "
					"of %" PRIu64 " operands", rec.nops);
				goto out;
			}
			if (add_md(r, (struct md){ MD_K_VALUE, false, 2,
						   rec.op[0], rec.op[1] }) < 0)
				goto out;
			continue;
		case MD_NODE:
		case MD_DISTINCT_NODE:
			if (add_md(r, (struct md){ MD_K_NODE, false, rec.nops,
				   rec.nops > 0 ? rec.op[0] : 0,
				   rec.nops > 1 ? rec.op[1] : 0 }) < 0)
				goto out;
			continue;
		}
		if (md_numbered(rec.code) &&
		    add_md(r, (struct md){ MD_OTHER, false, 0, 0, 0 }) < 0)
			goto out;
	}
	rc = more;
out:
	free(blk.a);
	return rc;
}

static int read_module(struct reader *r, uint64_t at)
{
	static const uint64_t info_for[] = {
		BLOCK_CONSTANTS, BLOCK_METADATA, BLOCK_TYPE, UINT64_MAX
	};
	struct block blk = { 0 };
	struct bs_record rec = { .blob_ops = true, .skim = true };
	uint64_t id, block, off;
	int rc = -1;

	r->b.pos = at;
	r->info->n = 0;
	r->version = 0;
	if (enter(r, BLOCK_MODULE, &blk) < 0)
		goto out;
	for (;;) {
		if (bs_read(&r->b, blk.width, &id, r->e) < 0)
			goto out;
		if (id == BS_END_BLOCK)
			break;
		if (id == BS_DEFINE_ABBREV) {
			if (bs_define_abbrev(&r->b, blk.a, r->e) < 0)
				goto out;
			continue;
		}
		if (id == BS_ENTER_SUBBLOCK) {
			if (bs_vbr(&r->b, 8, &block, r->e) < 0)
				goto out;
			if (block == BS_BLOCKINFO)
				rc = bs_read_blockinfo(&r->b, r->info, info_for,
						       r->e);
			else if (block == BLOCK_CONSTANTS)
				rc = read_constants(r);
			else if (block == BLOCK_METADATA && r->pass == 1)
				rc = read_metadata(r);
			else if (block == BLOCK_TYPE && r->pass == 1)
				rc = read_types(r);
			else
				rc = bs_skip_block(&r->b, r->e);
			if (rc < 0)
				goto out;
			rc = -1;
			continue;
		}
		if (bs_read_record(&r->b, blk.a, id, &rec, NULL, NULL, r->e) < 0)
			goto out;
		/* Since version 2 a global's name is an offset and size in
		 * the string table, in front of its fields. */
		off = r->version >= 2 ? 2 : 0;
		switch (rec.code) {
		case MODULE_VERSION:
			r->version = rec.nops ? rec.op[0] : 0;
			break;
		case MODULE_GLOBALVAR:
			if (rec.nops < off + 6) {
				err_set(r->e, "Invalid record: a global variable "
					"of %" PRIu64 " fields", rec.nops);
				goto out;
			}
			if (r->pass == 2)
				r->next_value++;
			else if (add_value(r, (struct value){ VAL_GLOBALVAR, 0, 0,
					   rec.op[off + 2] }) < 0)
				goto out;
			break;
		case MODULE_FUNCTION:
		case MODULE_ALIAS_OLD:
		case MODULE_ALIAS:
		case MODULE_IFUNC:
			if (r->pass == 2)
				r->next_value++;
			else if (add_value(r, (struct value){ VAL_GLOBAL, 0, 0,
							      0 }) < 0)
				goto out;
			break;
		}
	}
	rc = leave(r, &blk);
out:
	free(blk.a);
	return rc;
}

/* The walk of getBitcodeFileContents down to the one module LLVM's
 * getLazyIRModule accepts: where its block starts (after its ID). */
static int find_module(struct bitstream *b, uint64_t *at, struct err *e)
{
	struct bs_abbrevs *top = malloc(sizeof(*top));
	struct bs_record rec = { .skim = true };
	uint64_t id, block, modules = 0;
	int rc = -1;

	if (!top)
		return err_set(e, "out of memory");
	top->n = 0;
	/* LLVM stops where no module could fit any more: tools such as
	 * Apple's ar leave padding at the end. */
	while ((b->pos >> 3) + 8 < b->len >> 3) {
		if (bs_read(b, 2, &id, e) < 0)
			goto out;
		if (id == BS_END_BLOCK) {
			err_set(e, "Malformed block");
			goto out;
		}
		if (id == BS_DEFINE_ABBREV) {
			if (bs_define_abbrev(b, top, e) < 0)
				goto out;
			continue;
		}
		if (id != BS_ENTER_SUBBLOCK) {
			if (bs_read_record(b, top, id, &rec, NULL, NULL, e) < 0)
				goto out;
			continue;
		}
		if (bs_vbr(b, 8, &block, e) < 0)
			goto out;
		if (block == BLOCK_MODULE && !modules++)
			*at = b->pos;
		if (bs_skip_block(b, e) < 0)
			goto out;
	}
	if (modules != 1) {
		err_set(e, modules ? "bitcode of %" PRIu64 " modules (LLVM "
			"reads a single one)" : "bitcode without a module",
			modules);
		goto out;
	}
	rc = 0;
out:
	free(top);
	return rc;
}

/* Which constants !llvm.embedded.objects leads to, in its order. */
static int resolve(struct reader *r)
{
	uint64_t *sorted;

	r->order = calloc(r->nnamed + 1, sizeof(*r->order));
	r->want = calloc(r->nnamed + 1, sizeof(*r->want));
	if (!r->order || !r->want)
		return err_set(r->e, "out of memory");
	for (size_t i = 0; i < r->nnamed; i++) {
		const struct md *node, *str, *gv;
		const struct value *var, *init;
		uint64_t id = r->named[i];

		if (id >= r->nmd || r->md[id].kind != MD_K_NODE)
			return err_set(r->e, "!%s: its operand %zu is not a "
				       "node", NAMED, i);
		node = &r->md[id];
		/* Operands are IDs + 1; 0 is null (LLVM 22 dies on a null
		 * second operand and on a declaration: errors here). */
		if (node->nops < 2)
			continue;
		if (!node->b || node->b > r->nmd || node->a > r->nmd)
			return err_set(r->e, "!%s: its node %zu has a null or "
				       "undefined second operand", NAMED, i);
		str = &r->md[node->b - 1];
		if (!node->a || str->kind != MD_K_STRING || !str->section)
			continue;
		gv = &r->md[node->a - 1];
		if (gv->kind != MD_K_VALUE)
			continue;
		if (gv->b >= r->nval)
			return err_set(r->e, "!%s: its node %zu refers to value "
				       "%" PRIu64 ", of %zu", NAMED, i, gv->b,
				       r->nval);
		var = &r->val[gv->b];
		if (var->kind != VAL_GLOBALVAR)
			continue;
		if (!var->init)
			return err_set(r->e, "!%s: its node %zu names a global "
				       "variable without an initializer", NAMED,
				       i);
		if (var->init - 1 >= r->nval)
			return err_set(r->e, "global variable %" PRIu64 ": its "
				       "initializer is value %" PRIu64 ", of "
				       "%zu", gv->b, var->init - 1, r->nval);
		init = &r->val[var->init - 1];
		if (init->kind != VAL_CONSTANT ||
		    (init->code != CST_STRING && init->code != CST_CSTRING &&
		     (init->code != CST_DATA || !element_size(r, init->type))))
			continue;
		r->order[r->norder++] = var->init - 1;
	}
	/* Each constant once, sorted, with how often it is named. */
	sorted = calloc(r->norder + 1, sizeof(*sorted));
	if (!sorted)
		return err_set(r->e, "out of memory");
	memcpy(sorted, r->order, r->norder * sizeof(*sorted));
	qsort(sorted, r->norder, sizeof(*sorted), by_value);
	for (size_t i = 0; i < r->norder; i++) {
		if (r->nwant && r->want[r->nwant - 1].value == sorted[i]) {
			r->want[r->nwant - 1].uses++;
			continue;
		}
		r->want[r->nwant++] = (struct want){ sorted[i], NULL, 0, 1 };
	}
	free(sorted);
	return 0;
}

static void reader_free(struct reader *r)
{
	for (size_t i = 0; i < r->nwant; i++)
		free(r->want[i].data);
	free(r->want);
	free(r->order);
	free(r->named);
	free(r->ty);
	free(r->md);
	free(r->val);
	free(r->info);
}

int bitcode_embedded_objects(const uint8_t *buf, size_t len,
			     int (*each)(void *ctx, uint8_t *data, size_t len),
			     void *ctx, struct err *e)
{
	struct reader r = { .e = e, .pass = 1 };
	uint64_t at = 0;
	int rc = -1;

	if (bitcode_open_stream(buf, len, &r.b, e) < 0 ||
	    find_module(&r.b, &at, e) < 0)
		return -1;
	r.info = malloc(sizeof(*r.info));
	if (!r.info) {
		err_set(e, "out of memory");
		goto out;
	}
	if (read_module(&r, at) < 0 || resolve(&r) < 0)
		goto out;
	if (r.nwant) {
		r.pass = 2;
		if (read_module(&r, at) < 0)
			goto out;
	}
	rc = 0;
	for (size_t i = 0; i < r.norder && !rc; i++) {
		struct want *w = wanted(&r, r.order[i]);
		uint8_t *data = w->data;

		/* The buffer goes with the last use, a copy with others. */
		if (!--w->uses)
			w->data = NULL;
		else if ((data = malloc(w->len ? w->len : 1)) != NULL)
			memcpy(data, w->data, w->len);
		if (!data) {
			rc = err_set(e, "out of memory");
			break;
		}
		rc = each(ctx, data, w->len);
	}
out:
	reader_free(&r);
	return rc;
}
