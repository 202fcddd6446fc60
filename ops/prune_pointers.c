/* prune_pointers: the pointers of a linked ELF file (64-bit, little
 * endian) that prune_omp.c and prune_pack.c rewrite when they move offload
 * code: dynamic relocations with addends (RELATIVE ones hold the address),
 * RELR places and words that are pointers as they stand, and the 8-byte
 * patches that rewrite them (see prune_impl.h). */
#include <stdlib.h>
#include <string.h>

#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_pointers.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

enum { SHT_RELA_ = 4, SHT_REL_ = 9, SHF_ALLOC_ = 2 };

static int by_at(const void *a, const void *b)
{
	const struct prune_reloc *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

const struct prune_reloc *prune_reloc_at(const struct prune_table *t,
					  uint64_t at)
{
	struct prune_reloc key = { .at = at };

	return bsearch(&key, t->rel, t->nrel, sizeof(key), by_at);
}

/* The file offset of address at (8 bytes of it), in an allocated section
 * that has bytes in the file; UINT64_MAX when none holds it. */
uint64_t prune_file_offset(const struct prune_table *t, uint64_t at)
{
	for (size_t i = 1; i < t->s->n; i++) {
		const struct elfscan_section *sec = &t->s->sec[i];

		if (!(sec->flags & SHF_ALLOC_) || sec->type == 8 /* NOBITS */)
			continue;
		if (at >= sec->addr && sec->size >= 8 &&
		    at - sec->addr <= sec->size - 8)
			return sec->offset + (at - sec->addr);
	}
	return UINT64_MAX;
}

/* The value the pointer at address at has once relocated: a RELATIVE
 * relocation's addend, else what the slot holds; false when unknown (a
 * symbolic relocation, or no bytes there). */
bool prune_value_at(const struct prune_table *t, uint64_t at, uint64_t *v)
{
	const struct prune_reloc *r = prune_reloc_at(t, at);
	uint64_t off;

	if (r) {
		*v = r->addend;
		return r->relative;
	}
	off = prune_file_offset(t, at);
	if (off == UINT64_MAX)
		return false;
	*v = get_le(t->buf + off, 8);
	return true;
}

uint32_t prune_relative_type(uint16_t machine)
{
	switch (machine) {
	case 62: return 8;		/* x86-64 */
	case 183: return 1027;		/* AArch64 */
	case 21: return 22;		/* PowerPC64 */
	case 243: return 3;		/* RISC-V */
	default: return 0;
	}
}

int prune_read_relocs(struct pruner *p, struct prune_table *t)
{
	const struct elfscan *s = t->s;
	uint32_t relative = prune_relative_type(s->machine);
	size_t n = 0;

	for (size_t i = 1; i < s->n; i++) {
		const struct elfscan_section *sec = &s->sec[i];

		if (sec->type == SHT_REL_ && (sec->flags & SHF_ALLOC_))
			t->rel_only = true;
		if (sec->type == SHT_RELA_ && (sec->flags & SHF_ALLOC_))
			n += sec->size / 24;
	}
	t->rel = calloc(n ? n : 1, sizeof(*t->rel));
	if (!t->rel)
		return err_nomem(p->e);
	for (size_t i = 1; i < s->n; i++) {
		const struct elfscan_section *sec = &s->sec[i];

		if (sec->type != SHT_RELA_ || !(sec->flags & SHF_ALLOC_))
			continue;
		for (uint64_t k = 0; k + 24 <= sec->size; k += 24) {
			const uint8_t *r = t->buf + sec->offset + k;

			t->rel[t->nrel++] = (struct prune_reloc){
				.at = get_le(r, 8),
				.type = (uint32_t)get_le(r + 8, 8),
				.relative = (get_le(r + 8, 8) & 0xffffffff) ==
					    relative,
				.addend = get_le(r + 16, 8),
				.addend_off = sec->offset + k + 16,
			};
		}
	}
	qsort(t->rel, t->nrel, sizeof(*t->rel), by_at);
	for (size_t i = 1; i < t->nrel && !t->twice; i++)
		if (t->rel[i].at == t->rel[i - 1].at)
			t->twice = t->rel[i].at;
	return 0;
}

int prune_add_word(struct pruner *p, uint64_t off, uint64_t v, size_t n)
{
	struct prune_patch pt = { .offset = off, .old_size = n,
				  .new_size = n, .in_place = true };

	pt.storage = malloc(8);
	pt.piece = calloc(1, sizeof(*pt.piece));
	if (!pt.storage || !pt.piece) {
		prune_patch_free(&pt);
		return err_nomem(p->e);
	}
	put_le(pt.storage, v, (int)n);
	pt.piece[0] = (struct prune_piece){ .lit = pt.storage, .lit_len = n };
	pt.npieces = 1;
	if (prune_add_patch(p->plan, &pt, p->e) < 0) {
		prune_patch_free(&pt);
		return -1;
	}
	return 0;
}

/* Point the slot at address at to v: its RELATIVE relocation's addend,
 * and the slot's bytes where they hold the old value (or there is no
 * relocation). */
int prune_set_pointer(struct pruner *p, const struct prune_table *t,
		      uint64_t at, uint64_t v)
{
	const struct prune_reloc *r = prune_reloc_at(t, at);
	uint64_t off = prune_file_offset(t, at);

	if (r && prune_add_word(p, r->addend_off, v, 8) < 0)
		return -1;
	if (off != UINT64_MAX &&
	    (!r || get_le(t->buf + off, 8) == r->addend) &&
	    prune_add_word(p, off, v, 8) < 0)
		return -1;
	return 0;
}
