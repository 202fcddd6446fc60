/* prune_shrink: a linked file made smaller once pruned (see prune.h):
 * the ranges its containers freed handed to elf_shrink (formats/
 * elf_shrink.c), with the words the plan rewrites, and the plan made to
 * write the edits it returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prune_impl.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* Whether section j is one the plan makes shorter. */
static bool trimmed(const struct prune_plan *plan, size_t j)
{
	for (size_t i = 0; i < plan->ntrim; i++)
		if (plan->trim[i].section == j)
			return true;
	return false;
}

/* The ranges of a linked file nobody reads once pruned: each container's
 * freed tail, and the zero padding after it up to the next container or
 * the end of its section (a packed .llvm.offloading's: the section ends
 * where they start). */
static int shrink_holes(const uint8_t *buf, size_t len,
			const struct prune_plan *plan,
			struct elf_shrink_hole *hole, size_t *n, struct err *e)
{
	struct elfscan s;

	*n = 0;
	if (elfscan_open(&s, buf, len, e) < 0)
		return -1;
	for (size_t i = 0; i < plan->n; i++) {
		const struct prune_patch *pt = &plan->patch[i];
		uint64_t a = pt->offset + pt->new_size;
		uint64_t b = pt->offset + pt->old_size, limit = b;

		size_t holder = 0;

		if (!pt->in_place || a == b)
			continue;
		for (size_t j = 1; j < s.n; j++) {
			const struct elfscan_section *x = &s.sec[j];

			if ((x->kind == ELFSCAN_HIP_FATBIN ||
			     x->kind == ELFSCAN_NV_FATBIN || trimmed(plan, j)) &&
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
		if (i + 1 < plan->n && plan->patch[i + 1].offset < limit)
			limit = plan->patch[i + 1].offset;
		while (b < limit && buf[b] == 0)
			b++;
		/* The last kept image's end pointer points at a packed
		 * section's end: what is cut or written anew starts after. */
		if (trimmed(plan, holder) && (a += 8) > b)
			continue;
		hole[(*n)++] = (struct elf_shrink_hole){ a, b - a };
	}
	elfscan_free(&s);
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
		return err_code_set(e, ERR_NOMEM, "out of memory");
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

/* A linked file's freed pages cut out, where elf_shrink finds it safe;
 * else plan->shrink.why says why not. */
int prune_plan_shrink(const uint8_t *buf, size_t len, struct prune_plan *plan,
		      const struct prune_opts *o, struct err *e)
{
	struct elf_shrink *sh = &plan->shrink;
	struct elf_shrink_hole *hole;
	struct elf_shrink_word *word = NULL;
	uint64_t type;
	size_t n, nwords = 0;
	int rc;

	if (!elfscan_is_elf(buf, len) || len < 18 || !plan->zeroed)
		return 0;
	type = get_endian(buf + 16, 2, buf[5] == 2);
	if (type != 2 && type != 3)	/* objects keep their layout */
		return 0;
	hole = calloc(plan->n, sizeof(*hole));
	if (!hole)
		return err_code_set(e, ERR_NOMEM, "out of memory");
	rc = shrink_holes(buf, len, plan, hole, &n, e);
	if (rc == 0 && !n)
		snprintf(sh->why, sizeof(sh->why), "%s", plan->unpacked ?
			 plan->unpacked : "no freed range to cut out");
	else if (rc == 0 && (rc = plan_words(plan, &word, &nwords, e)) == 0)
		rc = elf_shrink_plan(buf, len, hole, n, word, nwords,
				     o->always_shrink ? ELF_SHRINK_IN_CUT
						      : ELF_SHRINK_AFTER_EHDR,
				     sh, e);
	free(hole);
	free(word);
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
