/* bitcode_blocks: the blocks of a bitcode module bitcode_embed reads
 * (types, constants, metadata), as bitcode_embed.c's header says. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitcode_blocks.h"

static const char SECTION[] = ".llvm.offloading";

static int grow(void *vp, size_t *cap, size_t n, size_t size, struct err *e)
{
	void **v = vp;
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 16;
	if (ncap > SIZE_MAX / size)
		return err_nomem(e);
	p = realloc(*v, ncap * size);
	if (!p)
		return err_nomem(e);
	*v = p;
	*cap = ncap;
	return 0;
}

int bce_add_value(struct reader *r, struct value v)
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
unsigned bce_element_size(const struct reader *r, uint64_t t)
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

/* Enter a block: its abbreviations start as BLOCKINFO gives them. */
int bce_enter(struct reader *r, uint64_t id, struct block *blk)
{
	blk->a = malloc(sizeof(*blk->a));
	if (!blk->a)
		return err_nomem(r->e);
	bs_block_abbrevs(r->info, id, blk->a);
	return bs_enter_block(&r->b, &blk->width, &blk->end, r->e);
}

/* Its END_BLOCK must be where its length word says: the second walk skips
 * some blocks by that word and must land where the first read to. */
int bce_leave(struct reader *r, const struct block *blk)
{
	bs_align32(&r->b);
	if (r->b.pos != blk->end)
		return err_bad(r->e, "a block ends at bit %" PRIu64 ", its "
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
			return bce_leave(r, blk) < 0 ? -1 : 0;
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

int bce_read_types(struct reader *r)
{
	struct block blk = { 0 };
	struct bs_record rec = { .blob_ops = true, .skim = true };
	uint64_t id;
	int more, rc = -1;

	if (bce_enter(r, BLOCK_TYPE, &blk) < 0)
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
	const struct bitstream *b;
	uint64_t prev;		/* where the last element read ended */
	bool irregular;		/* two elements not 8 bits apart */
};

static int fill_op(void *ctx, uint64_t i, uint64_t v)
{
	struct fill *f = ctx;
	uint8_t *p = f->w->data + i * f->size;

	if ((i + 1) * f->size > f->w->len)
		return 1;
	/* Elements all 8 bits apart are 8-bit fields (VBR6 and Char6 take
	 * multiples of 6, every fixed element one width). */
	if (!i)
		f->w->bit = f->b->pos - 8;
	else if (f->b->pos - f->prev != 8)
		f->irregular = true;
	f->prev = f->b->pos;
	for (unsigned k = 0; k < f->size; k++)
		p[k] = (uint8_t)(v >> (8 * k));
	return 0;
}

struct want *bce_wanted(struct reader *r, uint64_t value)
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

/* Read the record at the wanted constant's value ID into its buffer
 * (unless it is a SETTYPE, which takes no value ID). */
static int read_wanted(struct reader *r, const struct bs_abbrevs *a,
		       uint64_t id, struct bs_record *rec, struct want *w)
{
	const struct value *v = &r->val[w->value];
	struct fill f = { w, v->code == CST_DATA ? bce_element_size(r, v->type) : 1,
			  &r->b, 0, false };
	uint64_t n = v->init;
	int rc;

	/* Pass 1 counted the operands: exactly this many bytes. */
	if (n > (SIZE_MAX - 1) / f.size)
		return err_bad(r->e, "a constant of %" PRIu64 " elements", n);
	w->len = (size_t)n * f.size + (v->code == CST_CSTRING);
	w->data = calloc(1, w->len ? w->len : 1);
	if (!w->data)
		return err_nomem(r->e);
	rec->skim = false;
	rc = bs_read_record(&r->b, a, id, rec, fill_op, &f, r->e);
	rec->skim = true;
	w->fixed8 = !f.irregular && n >= 2 && f.size == 1 &&
		    v->code != CST_CSTRING;
	/* Not the constant yet: the type before it, read into the buffer
	 * for nothing. */
	if (rc == 0 && rec->code == CST_SETTYPE) {
		free(w->data);
		w->data = NULL;
		return 0;
	}
	if (rc > 0 || (rc == 0 && rec->nops != n))
		return err_bad(r->e, "constant %" PRIu64 " changed between "
			       "two readings", w->value);
	return rc;
}

int bce_read_constants(struct reader *r)
{
	struct block blk = { 0 };
	struct bs_record rec = { .blob_ops = true, .skim = true };
	uint64_t id, type = 0;
	int more, rc = -1;

	if (bce_enter(r, BLOCK_CONSTANTS, &blk) < 0)
		goto out;
	while ((more = next_record(r, &blk, &id)) == 1) {
		struct want *w = NULL;

		if (r->pass == 2 && r->next_value < r->nval &&
		    (w = bce_wanted(r, r->next_value)) != NULL) {
			if (read_wanted(r, blk.a, id, &rec, w) < 0)
				goto out;
		} else if (bs_read_record(&r->b, blk.a, id, &rec, NULL, NULL,
					  r->e) < 0) {
			goto out;
		}
		if (rec.code == CST_SETTYPE) {
			if (rec.nops < 1) {
				err_bad(r->e, "SETTYPE without a type");
				goto out;
			}
			type = rec.op[0];
			continue;
		}
		if (r->pass == 2)
			r->next_value++;
		else if (bce_add_value(r, (struct value){ VAL_CONSTANT, rec.code,
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
		return err_bad(r->e, "METADATA_NAME not followed by "
			       "METADATA_NAMED_NODE");
	rc = bs_read_record(&r->b, blk->a, id, &rec, ours ? named_op : NULL, r,
			    r->e);
	if (rc)
		return rc < 0 ? -1 : err_nomem(r->e);
	if (rec.code != MD_NAMED_NODE)
		return err_bad(r->e, "METADATA_NAME not followed by "
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
		return err_bad(r->e, "Invalid record: metadata strings layout");
	count = rec->op[0];
	offset = rec->op[1];
	if (!count)
		return err_bad(r->e, "Invalid record: metadata strings with "
			       "no strings");
	if (offset > rec->blob_len)
		return err_bad(r->e, "Invalid record: metadata strings corrupt "
			       "offset");
	/* Every length takes 6 bits at least. */
	if (count > offset * 8 / 6)
		return err_bad(r->e, "Invalid record: metadata strings bad "
			       "length");
	lens = (struct bitstream){ rec->blob, offset * 8, 0 };
	at = offset;
	for (uint64_t i = 0; i < count; i++) {
		if (bs_vbr(&lens, 6, &n, r->e) < 0)
			return err_bad(r->e, "Invalid record: metadata strings "
				       "bad length");
		if (n > rec->blob_len - at)
			return err_cut(r->e, "Invalid record: metadata strings "
				       "truncated chars");
		if (add_md(r, (struct md){ MD_K_STRING, n == sizeof(SECTION) - 1 &&
			   !memcmp(rec->blob + at, SECTION, n), 0, 0, 0 }) < 0)
			return -1;
		at += n;
	}
	return 0;
}

int bce_read_metadata(struct reader *r)
{
	struct block blk = { 0 };
	struct bs_record rec = { 0 };
	struct compare c;
	uint64_t id;
	int more, rc = -1;

	if (bce_enter(r, BLOCK_METADATA, &blk) < 0)
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
				err_bad(r->e, "Invalid record: a metadata value "
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
