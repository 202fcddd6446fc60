/* prune_shrink: a linked file made smaller once pruned (see prune.h):
 * the ranges its containers freed handed to elf_shrink (formats/
 * elf_shrink.c), with the words the plan rewrites, and the plan made to
 * write the edits it returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/fatbin.h"
#include "elf_shrink.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_shrink.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* The plan's trim of section j (made shorter), or NULL. */
static const struct prune_trim *trimmed(const struct prune_plan *plan,
					size_t j)
{
	for (size_t i = 0; i < plan->ntrim; i++)
		if (plan->trim[i].section == j)
			return &plan->trim[i];
	return NULL;
}

/* Holes, growing. */
struct holes {
	struct elf_shrink_hole *v;
	size_t n, cap;
};

static int hole_add(struct holes *h, uint64_t offset, uint64_t n,
		    struct err *e)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct elf_shrink_hole *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return err_nomem(e);
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = (struct elf_shrink_hole){ offset, n };
	return 0;
}

static bool patched_at(const struct prune_plan *plan, uint64_t offset)
{
	for (size_t i = 0; i < plan->n; i++)
		if (plan->patch[i].offset == offset && plan->patch[i].in_place)
			return true;
	return false;
}

/* Where the zeros that follow section x in no section end, inside the
 * PT_LOAD that maps its end (a section packed by an earlier prune ends
 * where its containers do, its freed bytes after it); x's end when
 * none follow. */
static uint64_t zeros_after(const uint8_t *buf, size_t len,
			    const struct elfscan *s,
			    const struct elfscan_section *x)
{
	uint64_t end = x->offset + x->size, lim = UINT64_MAX, b;
	uint64_t phoff, phnum;

	if (len < 64 || buf[4] != 2 || buf[5] != 1 || !x->size)
		return end;
	for (size_t j = 1; j < s->n; j++) {
		const struct elfscan_section *y = &s->sec[j];

		if (y == x || !y->size)
			continue;
		if (y->type != 8 /* NOBITS */ && y->offset >= end &&
		    y->offset < lim)
			lim = y->offset;
		if ((y->flags & 2 /* SHF_ALLOC */) &&
		    y->addr >= x->addr + x->size &&
		    y->addr - (x->addr + x->size) < lim - end)
			lim = end + (y->addr - (x->addr + x->size));
	}
	phoff = get_le(buf + 32, 8);
	phnum = get_le(buf + 56, 2);
	if (phoff > len || phnum > (len - phoff) / 56)
		return end;
	for (uint64_t k = 0; k < phnum; k++) {
		const uint8_t *ph = buf + phoff + 56 * k;
		uint64_t off = get_le(ph + 8, 8), filesz = get_le(ph + 32, 8);

		if (get_le(ph, 4) == 1 /* PT_LOAD */ && off < end &&
		    end - off <= filesz) {
			if (off + filesz < lim)
				lim = off + filesz;
			for (b = end; b < lim && b < len && buf[b] == 0;)
				b++;
			return b;
		}
	}
	return end;
}

/* The zeros after each container of a fat-binary section that this prune
 * leaves as it is, up to the next container or the section's end: the
 * tail an earlier prune zeroed in place (the floor, which a later prune
 * with room for the headers can cut out) and the padding between
 * translation units; after the last one, the zeros after the section
 * (zeros_after).  Nothing points into them: the runtimes are handed each
 * container's start. */
static int idle_holes(const uint8_t *buf, size_t len,
		      const struct elfscan *s, const struct prune_plan *plan,
		      const struct ccob_limits *lim, struct holes *h,
		      struct err *e)
{
	for (size_t j = 1; j < s->n; j++) {
		const struct elfscan_section *x = &s->sec[j];
		const uint8_t *sec = buf + x->offset;
		struct fatbin_item it;
		uint64_t pos = 0;
		struct err ignored;
		int rc;

		/* A packed section's containers moved: its holes are the
		 * plan's. */
		if ((x->kind != SECTION_HIP_FATBIN &&
		     x->kind != SECTION_NV_FATBIN) || x->type == 8 /* NOBITS */ ||
		    trimmed(plan, j))
			continue;
		/* The prune has read these sections already: one it could
		 * not walk has no holes of its own. */
		while ((rc = fatbin_next(sec, x->size, &pos, lim, &it,
					 &ignored)) > 0) {
			uint64_t end = it.offset + it.size, b = end;

			if (patched_at(plan, x->offset + it.offset))
				continue;
			while (b < x->size && sec[b] == 0)
				b++;
			if (b == x->size)
				b = zeros_after(buf, len, s, x) - x->offset;
			if (b > end &&
			    hole_add(h, x->offset + end, b - end, e) < 0)
				return -1;
		}
	}
	return 0;
}

static int by_hole_offset(const void *a, const void *b)
{
	const struct elf_shrink_hole *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The ranges of a linked file nobody reads once pruned: each container's
 * freed tail, and the zero padding after it up to the next container or
 * the end of its section (a packed .llvm.offloading's: the section ends
 * where they start); and the zeros after the containers left as they are
 * (idle_holes).  In offset order. */
static int shrink_holes(const uint8_t *buf, size_t len,
			const struct prune_plan *plan,
			const struct ccob_limits *lim, struct holes *h,
			struct err *e)
{
	struct elfscan s;

	if (elfscan_open(&s, buf, len, e) < 0)
		return -1;
	for (size_t i = 0; i < plan->n; i++) {
		const struct prune_patch *pt = &plan->patch[i];
		uint64_t a = pt->offset + pt->new_size;
		uint64_t b = pt->offset + pt->old_size, limit = b;
		const struct prune_trim *holder_trim;
		size_t holder = 0;

		if (!pt->in_place || a == b)
			continue;
		for (size_t j = 1; j < s.n; j++) {
			const struct elfscan_section *x = &s.sec[j];

			if ((x->kind == SECTION_HIP_FATBIN ||
			     x->kind == SECTION_NV_FATBIN || trimmed(plan, j)) &&
			    x->type != 8 /* SHT_NOBITS */ &&
			    x->offset <= pt->offset &&
			    b - x->offset <= x->size) {
				limit = x->offset + x->size;
				holder = j;
			}
		}
		/* Packages that stayed where they were (zeroed) stay. */
		if (!holder)
			continue;
		holder_trim = trimmed(plan, holder);
		if (i + 1 < plan->n && plan->patch[i + 1].offset < limit)
			limit = plan->patch[i + 1].offset;
		while (b < limit && buf[b] == 0)
			b++;
		/* The last kept image's end pointer points at a packed
		 * .llvm.offloading's end: what is cut or written anew starts
		 * after. */
		if (holder_trim && holder_trim->end_pointer &&
		    (a += 8) > b)
			continue;
		if (hole_add(h, a, b - a, e) < 0) {
			elfscan_free(&s);
			return -1;
		}
	}
	if (idle_holes(buf, len, &s, plan, lim, h, e) < 0) {
		elfscan_free(&s);
		return -1;
	}
	elfscan_free(&s);
	if (h->n > 1)
		qsort(h->v, h->n, sizeof(*h->v), by_hole_offset);
	return 0;
}

/* The 8-byte words the plan writes (pointers of the OpenMP image table,
 * their relocations' addends), for elf_shrink's checks. */
static int plan_words(const struct prune_plan *plan,
		      struct elf_shrink_word **w, size_t *n, struct err *e)
{
	*n = 0;
	*w = calloc(plan->n ? plan->n : 1, sizeof(**w));
	if (!*w)
		return err_nomem(e);
	for (size_t i = 0; i < plan->n; i++) {
		const struct prune_patch *pt = &plan->patch[i];

		if (pt->in_place && pt->old_size == 8 && pt->new_size == 8 &&
		    pt->npieces == 1 && pt->piece[0].lit_len == 8 &&
		    !pt->piece[0].pad && !pt->piece[0].data_len)
			(*w)[(*n)++] = (struct elf_shrink_word){
				pt->offset, get_le(pt->piece[0].lit, 8) };
	}
	return 0;
}

static bool is_trim_patch(const struct prune_plan *plan,
			  const struct prune_patch *pt)
{
	for (size_t j = 0; j < plan->ntrim; j++)
		if (pt->offset == plan->trim[j].size_off)
			return true;
	return false;
}

/* The trims' sh_size patches go: the shrink writes the section headers
 * anew, with the trimmed sizes. */
static void drop_trim_patches(struct prune_plan *plan)
{
	size_t k = 0;

	for (size_t i = 0; i < plan->n; i++) {
		if (is_trim_patch(plan, &plan->patch[i]))
			prune_patch_free(&plan->patch[i]);
		else
			plan->patch[k++] = plan->patch[i];
	}
	plan->n = k;
}

/* Has the file a symbol table (SHT_SYMTAB)?  One it cannot show has none
 * for this purpose: the shrink then reads its headers and says why not. */
static bool has_symtab(const uint8_t *buf, size_t len)
{
	struct elfscan s;
	struct err e;
	bool found = false;

	if (elfscan_open_names(&s, buf, len, &e) < 0)
		return false;
	for (size_t i = 1; i < s.n && !found; i++)
		found = s.sec[i].type == 2;	/* SHT_SYMTAB */
	elfscan_free(&s);
	return found;
}

/* A linked file's freed pages cut out, where elf_shrink finds it safe;
 * else plan->shrink.why says why not. */
int prune_plan_shrink(const uint8_t *buf, size_t len, struct prune_plan *plan,
		      const struct prune_opts *o, struct err *e)
{
	struct elf_shrink *sh = &plan->shrink;
	struct holes hole = { 0 };
	struct elf_shrink_word *word = NULL;
	uint64_t type;
	size_t nwords = 0;
	bool strip_safe;
	int rc;

	if (!elfscan_is_elf(buf, len) || len < 18)
		return 0;
	type = get_endian(buf + 16, 2, buf[5] == 2);
	if (type != 2 && type != 3)	/* objects keep their layout */
		return 0;
	strip_safe = o->shrink == PRUNE_SHRINK_STRIP_SAFE ||
		     (o->shrink == PRUNE_SHRINK_AUTO && has_symtab(buf, len));
	rc = shrink_holes(buf, len, plan, &o->limits, &hole, e);
	if (rc == 0 && !hole.n)
		snprintf(sh->why, sizeof(sh->why), "%s", plan->unpacked ?
			 plan->unpacked : "no freed range to cut out");
	else if (rc == 0 && (rc = plan_words(plan, &word, &nwords, e)) == 0)
		rc = elf_shrink_plan(buf, len, hole.v, hole.n, word, nwords,
				     strip_safe ? ELF_SHRINK_AFTER_EHDR
						: ELF_SHRINK_IN_CUT, sh, e);
	/* A file kept strip-safe for its symbol table, which a cut would
	 * have made smaller: how to get the smaller file. */
	if (rc == 0 && strip_safe && o->shrink == PRUNE_SHRINK_AUTO &&
	    sh->why[0] && hole.n) {
		struct elf_shrink in_cut = { 0 };

		rc = elf_shrink_plan(buf, len, hole.v, hole.n, word, nwords,
				     ELF_SHRINK_IN_CUT, &in_cut, e);
		if (rc > 0)
			snprintf(sh->why + strlen(sh->why),
				 sizeof(sh->why) - strlen(sh->why), "; it has "
				 "a symbol table: strip it first, or "
				 "--always-shrink");
		elf_shrink_free(&in_cut);
		rc = rc < 0 ? rc : 0;
	}
	free(hole.v);
	free(word);
	/* Why nothing was cut is news only where this prune freed bytes. */
	if (rc == 0 && !plan->zeroed)
		sh->why[0] = '\0';
	if (rc <= 0)
		return rc;
	/* What is written anew must not fall on code that stays. */
	for (size_t i = 0; i < sh->n; i++)
		for (size_t j = 0; j < plan->n; j++)
			if (!is_trim_patch(plan, &plan->patch[j]) &&
			    overlaps(sh->edit[i].offset, sh->edit[i].len,
				     plan->patch[j].offset,
				     plan->patch[j].new_size)) {
				elf_shrink_free(sh);
				snprintf(sh->why, sizeof(sh->why), "its headers "
					 "overlap offload code");
				return 0;
			}
	for (size_t j = 0; j < plan->n; j++) {
		const struct prune_patch *pt = &plan->patch[j];

		for (size_t i = 0; i < sh->n; i++)
			if (sh->edit[i].kind == ELF_SHRINK_CUT) {
				uint64_t lo = pt->offset + pt->new_size;
				uint64_t hi = pt->offset + pt->old_size;
				uint64_t clo = sh->edit[i].offset;
				uint64_t chi = clo + sh->edit[i].len;

				if (pt->in_place && lo < chi && clo < hi)
					plan->zeroed -= (hi < chi ? hi : chi) -
							(lo > clo ? lo : clo);
			}
	}
	plan->size_after = sh->size_after;
	drop_trim_patches(plan);
	return 0;
}
