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
 * their length words.  This file reads the module block and resolves the
 * named metadata; bitcode_blocks.c reads the blocks inside the module. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitcode.h"
#include "bitcode_embed.h"
#include "bitcode_blocks.h"

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
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
	if (bce_enter(r, BLOCK_MODULE, &blk) < 0)
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
				rc = bce_read_constants(r);
			else if (block == BLOCK_METADATA && r->pass == 1)
				rc = bce_read_metadata(r);
			else if (block == BLOCK_TYPE && r->pass == 1)
				rc = bce_read_types(r);
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
				err_bad(r->e, "Invalid record: a global variable "
					"of %" PRIu64 " fields", rec.nops);
				goto out;
			}
			if (r->pass == 2)
				r->next_value++;
			else if (bce_add_value(r, (struct value){ VAL_GLOBALVAR, 0, 0,
					   rec.op[off + 2] }) < 0)
				goto out;
			break;
		case MODULE_FUNCTION:
		case MODULE_ALIAS_OLD:
		case MODULE_ALIAS:
		case MODULE_IFUNC:
			if (r->pass == 2)
				r->next_value++;
			else if (bce_add_value(r, (struct value){ VAL_GLOBAL, 0, 0,
							      0 }) < 0)
				goto out;
			break;
		}
	}
	rc = bce_leave(r, &blk);
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
		return err_nomem(e);
	top->n = 0;
	/* LLVM stops where no module could fit any more: tools such as
	 * Apple's ar leave padding at the end. */
	while ((b->pos >> 3) + 8 < b->len >> 3) {
		if (bs_read(b, 2, &id, e) < 0)
			goto out;
		if (id == BS_END_BLOCK) {
			err_bad(e, "Malformed block");
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
		err_bad(e, modules ? "bitcode of %" PRIu64 " modules (LLVM "
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
		return err_nomem(r->e);
	for (size_t i = 0; i < r->nnamed; i++) {
		const struct md *node, *str, *gv;
		const struct value *var, *init;
		uint64_t id = r->named[i];

		if (id >= r->nmd || r->md[id].kind != MD_K_NODE)
			return err_bad(r->e, "!%s: its operand %zu is not a "
				       "node", NAMED, i);
		node = &r->md[id];
		/* Operands are IDs + 1; 0 is null (LLVM 22 dies on a null
		 * second operand and on a declaration: errors here). */
		if (node->nops < 2)
			continue;
		if (!node->b || node->b > r->nmd || node->a > r->nmd)
			return err_bad(r->e, "!%s: its node %zu has a null or "
				       "undefined second operand", NAMED, i);
		str = &r->md[node->b - 1];
		if (!node->a || str->kind != MD_K_STRING || !str->section)
			continue;
		gv = &r->md[node->a - 1];
		if (gv->kind != MD_K_VALUE)
			continue;
		if (gv->b >= r->nval)
			return err_bad(r->e, "!%s: its node %zu refers to value "
				       "%" PRIu64 ", of %zu", NAMED, i, gv->b,
				       r->nval);
		var = &r->val[gv->b];
		if (var->kind != VAL_GLOBALVAR)
			continue;
		if (!var->init)
			return err_bad(r->e, "!%s: its node %zu names a global "
				       "variable without an initializer", NAMED,
				       i);
		if (var->init - 1 >= r->nval)
			return err_bad(r->e, "global variable %" PRIu64 ": its "
				       "initializer is value %" PRIu64 ", of "
				       "%zu", gv->b, var->init - 1, r->nval);
		init = &r->val[var->init - 1];
		if (init->kind != VAL_CONSTANT ||
		    (init->code != CST_STRING && init->code != CST_CSTRING &&
		     (init->code != CST_DATA || !bce_element_size(r, init->type))))
			continue;
		r->order[r->norder++] = var->init - 1;
	}
	/* Each constant once, sorted, with how often it is named. */
	sorted = calloc(r->norder + 1, sizeof(*sorted));
	if (!sorted)
		return err_nomem(r->e);
	memcpy(sorted, r->order, r->norder * sizeof(*sorted));
	qsort(sorted, r->norder, sizeof(*sorted), by_value);
	for (size_t i = 0; i < r->norder; i++) {
		if (r->nwant && r->want[r->nwant - 1].value == sorted[i]) {
			r->want[r->nwant - 1].uses++;
			continue;
		}
		r->want[r->nwant++] = (struct want){ .value = sorted[i], .uses = 1 };
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

int bitcode_embedded_places(const uint8_t *buf, size_t len,
			    int (*each)(void *ctx, uint8_t *data, size_t len,
					const struct bitcode_place *at),
			    void *ctx, struct err *e)
{
	struct reader r = { .e = e, .pass = 1 };
	struct bitcode_place at;
	uint64_t module = 0;
	int rc = -1;

	if (bitcode_open_stream(buf, len, &r.b, e) < 0 ||
	    find_module(&r.b, &module, e) < 0)
		return -1;
	r.info = malloc(sizeof(*r.info));
	if (!r.info) {
		err_nomem(e);
		goto out;
	}
	if (read_module(&r, module) < 0 || resolve(&r) < 0)
		goto out;
	if (r.nwant) {
		r.pass = 2;
		if (read_module(&r, module) < 0)
			goto out;
	}
	rc = 0;
	for (size_t i = 0; i < r.norder && !rc; i++) {
		struct want *w = bce_wanted(&r, r.order[i]);
		uint8_t *data = w->data;

		/* The buffer goes with the last use, a copy with others. */
		if (!--w->uses)
			w->data = NULL;
		else if ((data = malloc(w->len ? w->len : 1)) != NULL)
			memcpy(data, w->data, w->len);
		if (!data) {
			rc = err_nomem(e);
			break;
		}
		at = (struct bitcode_place){
			.bit = (uint64_t)(r.b.p - buf) * 8 + w->bit,
			.fixed8 = w->fixed8 };
		rc = each(ctx, data, w->len, &at);
	}
out:
	reader_free(&r);
	return rc;
}

struct plain {
	int (*each)(void *ctx, uint8_t *data, size_t len);
	void *ctx;
};

static int plain_each(void *ctx, uint8_t *data, size_t len,
		      const struct bitcode_place *at)
{
	const struct plain *pl = ctx;

	(void)at;
	return pl->each(pl->ctx, data, len);
}

int bitcode_embedded_objects(const uint8_t *buf, size_t len,
			     int (*each)(void *ctx, uint8_t *data, size_t len),
			     void *ctx, struct err *e)
{
	struct plain pl = { each, ctx };

	return bitcode_embedded_places(buf, len, plain_each, &pl, e);
}
