/* bitstream: read LLVM's bitstream container (see bitstream.h), bounded
 * by the stream at every step, the way LLVM's BitstreamCursor reads it. */
#include <inttypes.h>
#include <string.h>

#include "bitstream.h"

enum op_kind { OP_LITERAL, OP_FIXED, OP_VBR, OP_ARRAY, OP_CHAR6, OP_BLOB };

#define ENDS "bitcode ends inside "

int bs_read(struct bitstream *b, unsigned n, uint64_t *v, struct err *e)
{
	uint64_t r = 0;
	unsigned got = 0;

	*v = 0;
	if (n > b->len - b->pos)
		return err_cut(e, ENDS "a record (bit %" PRIu64 ")", b->pos);
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

/* As in LLVM's ReadVBR64, bits shifted past 64 are dropped and a chunk
 * that would start at bit 64 or later is an error. */
int bs_vbr(struct bitstream *b, unsigned n, uint64_t *v, struct err *e)
{
	uint64_t piece, r = 0, more = UINT64_C(1) << (n - 1);
	unsigned shift = 0;

	*v = 0;
	for (;;) {
		if (bs_read(b, n, &piece, e) < 0)
			return -1;
		r |= (piece & (more - 1)) << shift;
		if (!(piece & more))
			break;
		shift += n - 1;
		if (shift >= 64)
			return err_cut(e, "unterminated VBR at bit %" PRIu64,
				       b->pos);
	}
	*v = r;
	return 0;
}

void bs_align32(struct bitstream *b)
{
	uint64_t p = (b->pos + 31) & ~(uint64_t)31;

	b->pos = p < b->len ? p : b->len;
}

/* An abbreviation definition: operand count vbr5, then per operand a
 * literal flag, and a vbr8 literal or a 3-bit encoding (fixed and vbr take
 * a vbr5 width; width 0 means the literal 0). */
int bs_define_abbrev(struct bitstream *b, struct bs_abbrevs *a, struct err *e)
{
	struct bs_op dropped;
	uint64_t nops, v;
	unsigned k = a ? a->n : 0;

	if (bs_vbr(b, 5, &nops, e) < 0)
		return -1;
	if (a && a->n == BS_MAX_ABBREVS)
		return err_bad(e, "more than %d abbreviations in a block",
			       BS_MAX_ABBREVS);
	if (!nops)
		return err_bad(e, "abbreviation with no operands");
	if (a && nops > BS_MAX_OPS)
		return err_bad(e, "abbreviation with %" PRIu64 " operands",
			       nops);
	/* Each operand takes two bits at least. */
	if (nops > (b->len - b->pos) / 2)
		return err_cut(e, ENDS "an abbreviation of %" PRIu64
			       " operands", nops);
	for (uint64_t i = 0; i < nops; i++) {
		struct bs_op *op = a ? &a->op[k][i] : &dropped;

		if (bs_read(b, 1, &v, e) < 0)
			return -1;
		if (v) {
			op->kind = OP_LITERAL;
			if (bs_vbr(b, 8, &op->value, e) < 0)
				return -1;
			continue;
		}
		if (bs_read(b, 3, &v, e) < 0)
			return -1;
		if (v < OP_FIXED || v > OP_BLOB)
			return err_bad(e, "invalid abbreviation encoding %"
				       PRIu64, v);
		op->kind = (uint8_t)v;
		op->value = 0;
		if (v != OP_FIXED && v != OP_VBR)
			continue;
		if (bs_vbr(b, 5, &op->value, e) < 0)
			return -1;
		if (op->value > 32)
			return err_bad(e, "fixed or VBR abbreviation operand "
				       "of %" PRIu64 " bits", op->value);
		if (!op->value)
			op->kind = OP_LITERAL;
	}
	if (a) {
		a->nops[k] = (uint8_t)nops;
		a->n++;
	}
	return 0;
}

static int read_scalar(struct bitstream *b, const struct bs_op *op,
		       uint64_t *v, struct err *e)
{
	static const char char6[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";

	switch (op->kind) {
	case OP_LITERAL:
		*v = op->value;
		return 0;
	case OP_FIXED:
		return bs_read(b, (unsigned)op->value, v, e);
	case OP_VBR:
		return bs_vbr(b, (unsigned)op->value, v, e);
	case OP_CHAR6:
		if (bs_read(b, 6, v, e) < 0)
			return -1;
		*v = (uint64_t)(unsigned char)char6[*v];
		return 0;
	}
	return err_bad(e, "an array or blob where a scalar belongs");
}

/* Keep the operand, hand it on. */
static int operand(struct bs_record *r, uint64_t v, bs_op_fn *each, void *ctx)
{
	uint64_t i = r->nops++;

	if (i < BS_KEPT)
		r->op[i] = v;
	return each ? each(ctx, i, v) : 0;
}

int bs_read_record(struct bitstream *b, const struct bs_abbrevs *a,
		   uint64_t id, struct bs_record *r, bs_op_fn *each, void *ctx,
		   struct err *e)
{
	const struct bs_op *op;
	uint64_t n, v;
	unsigned nops;
	int rc;

	r->nops = 0;
	r->blob = NULL;
	r->blob_len = 0;
	if (id == BS_UNABBREV_RECORD) {
		if (bs_vbr(b, 6, &r->code, e) < 0 || bs_vbr(b, 6, &n, e) < 0)
			return -1;
		if (n > (b->len - b->pos) / 6)
			return err_cut(e, ENDS "a record of %" PRIu64
				       " operands", n);
		for (uint64_t i = 0; i < n; i++) {
			if (bs_vbr(b, 6, &v, e) < 0)
				return -1;
			if ((rc = operand(r, v, each, ctx)))
				return rc;
		}
		return 0;
	}
	if (id < 4 || id - 4 >= a->n)
		return err_bad(e, "invalid abbrev number %" PRIu64, id);
	op = a->op[id - 4];
	nops = a->nops[id - 4];
	if (op[0].kind == OP_ARRAY || op[0].kind == OP_BLOB)
		return err_bad(e, "abbreviation starts with an array or a blob");
	if (read_scalar(b, &op[0], &r->code, e) < 0)
		return -1;
	for (unsigned i = 1; i < nops; i++) {
		if (op[i].kind == OP_ARRAY) {
			const struct bs_op *elt = &op[i + 1];

			if (i + 2 != nops)
				return err_bad(e, "array operand not second to "
					       "last");
			if (elt->kind == OP_LITERAL || elt->kind == OP_ARRAY ||
			    elt->kind == OP_BLOB)
				return err_bad(e, "array element type has to be "
					       "an encoding of a type");
			if (bs_vbr(b, 6, &n, e) < 0)
				return -1;
			/* Every element takes a bit at least. */
			if (n > b->len - b->pos)
				return err_cut(e, ENDS "an array of %" PRIu64
					       " elements", n);
			if (r->skim && elt->kind != OP_VBR) {
				uint64_t bits = elt->kind == OP_CHAR6 ? 6 :
						elt->value;

				if (n > (b->len - b->pos) / bits)
					return err_cut(e, ENDS "an array of %"
						       PRIu64 " elements", n);
				b->pos += n * bits;
				r->nops += n;
				return 0;
			}
			for (uint64_t k = 0; k < n; k++) {
				if (read_scalar(b, elt, &v, e) < 0)
					return -1;
				if ((rc = operand(r, v, each, ctx)))
					return rc;
			}
			return 0;
		}
		if (op[i].kind == OP_BLOB) {
			uint64_t end;

			if (i + 1 != nops)
				return err_bad(e, "blob operand not last");
			if (bs_vbr(b, 6, &n, e) < 0)
				return -1;
			bs_align32(b);
			/* The blob and its padding to 32 bits. */
			if (n > (b->len - b->pos) / 8 ||
			    (end = b->pos + ((n + 3) & ~(uint64_t)3) * 8) >
				    b->len)
				return err_cut(e, "blob ends too soon");
			r->blob = b->p + (b->pos >> 3);
			r->blob_len = (size_t)n;
			b->pos = end;
			for (size_t k = 0; r->blob_ops && k < r->blob_len; k++)
				if ((rc = operand(r, r->blob[k], each, ctx)))
					return rc;
			return 0;
		}
		if (read_scalar(b, &op[i], &v, e) < 0)
			return -1;
		if ((rc = operand(r, v, each, ctx)))
			return rc;
	}
	return 0;
}

int bs_skip_block(struct bitstream *b, struct err *e)
{
	uint64_t v, words;

	if (bs_vbr(b, 4, &v, e) < 0)
		return -1;
	bs_align32(b);
	if (bs_read(b, 32, &words, e) < 0)
		return -1;
	if (b->pos == b->len)
		return err_cut(e, "can't skip block: already at end of stream");
	if (words * 32 > b->len - b->pos)
		return err_cut(e, "can't skip block of %" PRIu64 " words at bit "
			       "%" PRIu64 ": past the end", words, b->pos);
	b->pos += words * 32;
	return 0;
}

int bs_enter_block(struct bitstream *b, unsigned *width, uint64_t *end,
		   struct err *e)
{
	uint64_t w, words;

	if (bs_vbr(b, 4, &w, e) < 0)
		return -1;
	if (w < 1 || w > 32)
		return err_bad(e, "block with abbreviation width %" PRIu64, w);
	bs_align32(b);
	if (bs_read(b, 32, &words, e) < 0)
		return -1;
	if (b->pos == b->len)
		return err_cut(e, "can't enter sub block: already at end of "
			       "stream");
	*width = (unsigned)w;
	*end = words * 32 > b->len - b->pos ? b->len : b->pos + words * 32;
	return 0;
}

static struct bs_abbrevs *info_for(struct bs_blockinfo *info, uint64_t block,
				   const uint64_t *want)
{
	for (unsigned i = 0; i < info->n; i++)
		if (info->block[i] == block)
			return &info->abbrevs[i];
	for (; *want != UINT64_MAX; want++) {
		if (*want != block)
			continue;
		if (info->n == BS_MAX_INFO)
			return NULL;
		info->block[info->n] = block;
		info->abbrevs[info->n].n = 0;
		return &info->abbrevs[info->n++];
	}
	return NULL;
}

/* SETBID (1) names the block the definitions that follow are for; the
 * other records (names, for tools) say nothing a reader needs. */
int bs_read_blockinfo(struct bitstream *b, struct bs_blockinfo *info,
		      const uint64_t *want, struct err *e)
{
	static const struct bs_abbrevs none;
	struct bs_abbrevs *cur = NULL;
	struct bs_record r = { 0 };
	bool have_block = false;
	unsigned width;
	uint64_t end, id;

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
			if (!have_block)
				return err_bad(e, "an abbreviation in BLOCKINFO "
					       "before any SETBID");
			if (bs_define_abbrev(b, cur, e) < 0)
				return -1;
			break;
		default:
			if (bs_read_record(b, &none, id, &r, NULL, NULL, e) < 0)
				return -1;
			if (r.code != 1)
				break;
			if (r.nops < 1)
				return err_bad(e, "SETBID without a block ID");
			have_block = true;
			cur = info_for(info, r.op[0], want);
			break;
		}
	}
}

void bs_block_abbrevs(const struct bs_blockinfo *info, uint64_t block,
		      struct bs_abbrevs *a)
{
	a->n = 0;
	for (unsigned i = 0; info && i < info->n; i++)
		if (info->block[i] == block) {
			memcpy(a, &info->abbrevs[i], sizeof(*a));
			return;
		}
}
