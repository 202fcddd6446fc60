/* prune_bitcode: the offload packages a bitcode module embeds, pruned in
 * place.  clang -flto -fopenmp (or -fgpu-rdc) leaves them in the module as
 *   @llvm.embedded.object = private constant [N x i8] c"...",
 *                           section ".llvm.offloading"
 * (formats/bitcode.h finds them as LLVM's extractFromBitcode does), and
 * LLVM writes such an array as a STRING record of 8-bit fields.  N is in
 * the module's type table, which other values may share, and shortening
 * the array would move every later bit of the module: the offsets LLVM
 * keeps to its function blocks and symbol table (VSTOFFSET, FNENTRY) and
 * every enclosing block's length would have to be written again, and
 * proving that no instruction of any function uses the type [N x i8]
 * means decoding them all.  So the array keeps its N bytes: they become
 * the kept packages (as prune writes them in a section), the last one's
 * size grown over the freed tail, which is zeros.  LLVM reads such a
 * package as it reads the original (a binary's size may exceed what its
 * entries use); every other bit of the file stays, so the module, its
 * symbol table and its hash are what clang wrote.  The file keeps its
 * size: the dropped images are zeros. */
#include <stdlib.h>
#include <string.h>

#include "../formats/bitcode.h"
#include "../formats/bitcode_embed.h"
#include "../formats/package.h"
#include "prune_bitcode.h"
#include "../core/sections.h"
#include "prune_containers.h"
#include "../core/bytes.h"

struct walk {
	struct pruner *p;
	const uint8_t *buf;
	size_t len;
	size_t objects;
	uint64_t done[16];	/* bits of the arrays pruned (named twice) */
	size_t ndone;
};

/* How many images the packages in buf[0, len) hold (-1: damaged). */
static long count_images(const uint8_t *buf, size_t len, struct err *e)
{
	const struct package_limits lim = {
		.max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
		.max_size = PACKAGE_DEFAULT_MAX_SIZE };
	struct package_list l = { 0 };
	long n = package_scan(buf, len, &lim, &l, e) < 0 ? -1 : (long)l.n;

	package_list_free(&l);
	return n;
}

/* The kept packages made n bytes long: the last one's size field covers
 * the zeros after it, or, when they take more than n (a package written
 * again can be larger than the one it replaces: compressed again at
 * another level, or the last one kept whole with the zeros its size
 * covered), its tail past n cut, only where every kept image still lies
 * inside the n bytes. */
static int grow_last(struct pruner *p, struct membuf *m, size_t n,
		     uint64_t bit)
{
	size_t pos = 0, last = 0;
	struct err e2;
	long images;

	while (pos < m->len) {
		last = pos;
		pos += prune_package_span(m->p + pos, m->len - pos);
	}
	if (get_le(m->p + last + 4, 4) >= 3 && m->len - last >= 40 &&
	    get_le(m->p + last + 32, 8))
		return err_set(p->e, "the last kept package is compressed: "
			       "its size cannot grow over the freed bytes");
	if (m->len > n) {
		images = count_images(m->p, m->len, &e2);
		if (last < n && n - last >= PACKAGE_V1_HEADER)
			put_le(m->p + last + 8, n - last, 8);
		if (last >= n || n - last < PACKAGE_V1_HEADER || images < 0 ||
		    count_images(m->p, n, &e2) != images)
			return err_set(p->e, "the kept packages take %zu bytes, "
				       "more than the %zu of the module's array "
				       "at bit %llu: not pruned", m->len, n,
				       (unsigned long long)bit);
		m->len = n;
		return 0;
	}
	while (m->len < n) {
		static const uint8_t zeros[64];
		size_t step = n - m->len < sizeof(zeros) ? n - m->len
							  : sizeof(zeros);

		if (prune_mem_put(m, zeros, step, p->e) < 0)
			return -1;
	}
	put_le(m->p + last + 8, n - last, 8);
	return 0;
}

/* The bytes of the file covering the array's bits, with new[0, n) there
 * (every other bit as it was): a patch of them. */
static int patch_bits(struct pruner *p, const uint8_t *buf, uint64_t bit,
		      const uint8_t *bytes, size_t n)
{
	uint64_t from = bit / 8, to = (bit + 8 * (uint64_t)n + 7) / 8;
	unsigned sh = (unsigned)(bit % 8);
	struct prune_patch pt = { .offset = p->base + from,
				  .old_size = to - from, .new_size = to - from,
				  .in_place = true };
	uint8_t *out = malloc((size_t)(to - from));

	pt.piece = calloc(1, sizeof(*pt.piece));
	if (!out || !pt.piece) {
		free(out);
		free(pt.piece);
		return err_nomem(p->e);
	}
	memcpy(out, buf + from, (size_t)(to - from));
	for (size_t i = 0; i < n; i++) {
		uint8_t *o = out + i;

		if (!sh) {
			*o = bytes[i];
			continue;
		}
		o[0] = (uint8_t)((o[0] & ((1u << sh) - 1)) | (bytes[i] << sh));
		o[1] = (uint8_t)((o[1] & ~((1u << sh) - 1)) |
				 (bytes[i] >> (8 - sh)));
	}
	pt.storage = out;
	pt.piece[0] = (struct prune_piece){ .lit = out,
					    .lit_len = (size_t)(to - from) };
	pt.npieces = 1;
	if (prune_add_patch(p->plan, &pt, p->e) < 0) {
		prune_patch_free(&pt);
		return -1;
	}
	return 0;
}

static int prune_object(void *ctx, uint8_t *data, size_t n,
			const struct bitcode_place *at)
{
	struct walk *w = ctx;
	struct pruner *p = w->p;
	struct prune_patch pt = { 0 };
	struct membuf m = { 0 };
	int rc;

	w->objects++;
	for (size_t i = 0; i < w->ndone; i++)
		if (w->done[i] == at->bit) {
			free(data);
			return 0;
		}
	p->section = sections_name(SECTION_OFFLOADING);
	rc = prune_packages(p, data, n, at->bit / 8, &pt);
	if (rc <= 0)
		goto out;
	rc = -1;
	if (!pt.new_size) {
		err_set(p->e, "every image of the package embedded at bit "
			"%llu would go: the module's array keeps its %zu "
			"bytes, and no package holds no image",
			(unsigned long long)at->bit, n);
		goto out;
	}
	if (!at->fixed8) {
		err_set(p->e, "the package embedded at bit %llu is not "
			"written as 8-bit fields: its bytes are not replaced",
			(unsigned long long)at->bit);
		goto out;
	}
	if (w->ndone == sizeof(w->done) / sizeof(w->done[0])) {
		err_set(p->e, "more than %zu embedded packages: not pruned",
			w->ndone);
		goto out;
	}
	if (prune_materialize(&pt, &m, p->e) < 0 ||
	    grow_last(p, &m, n, at->bit) < 0 ||
	    patch_bits(p, w->buf, at->bit, m.p, n) < 0)
		goto out;
	w->done[w->ndone++] = at->bit;
	p->plan->zeroed += pt.new_size < n ? n - pt.new_size : 0;
	rc = 0;
out:
	p->section = NULL;
	prune_patch_free(&pt);
	free(m.p);
	free(data);
	return rc;
}

int prune_bitcode(struct pruner *p, const uint8_t *buf, size_t len)
{
	struct walk w = { .p = p, .buf = buf, .len = len };

	if (bitcode_embedded_places(buf, len, prune_object, &w, p->e) < 0)
		return -1;
	if (!w.objects)
		return err_code_set(p->e, ERR_NOTHING, "no offload code to "
				    "prune (a bitcode module that embeds no "
				    "offload package)");
	return 0;
}
