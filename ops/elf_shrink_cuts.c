/* elf_shrink_cuts: where a linked file is cut (see elf_shrink.h): the
 * page-aligned ranges the holes allow, and where the grown program
 * header table goes (after the ELF header, or in the first cut). */
#include <stdlib.h>
#include <string.h>

#include "elf_shrink_cuts.h"
#include "elf_shrink_impl.h"
#include "elf_shrink_pointers.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

int elf_shrink_by_from(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static int by_size_desc(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;
	uint64_t sx = x->to - x->from, sy = y->to - y->from;

	return sx > sy ? -1 : sx < sy ? 1 : elf_shrink_by_from(a, b);
}

/* The cuts the holes allow, in offset order (0: none, s->why set). */
int elf_shrink_find_cuts(struct elf_shrink *s, const struct elfscan *sc,
			 const struct elf64_phdr *ph,
			 size_t phnum, uint64_t page,
			 const struct elf_shrink_hole *hole, size_t nholes,
			 struct cut *cut, size_t *ncut)
{
	bool loaded = false;

	*ncut = 0;
	for (size_t i = 0; i < nholes; i++) {
		uint64_t a = hole[i].offset, b = a + hole[i].len;
		uint64_t from = (a + page - 1) / page * page;
		uint64_t to = b / page * page;
		size_t k;
		int rc;

		for (k = 0; k < phnum; k++)
			if (ph[k].type == PT_LOAD_ && ph[k].offset < a &&
			    ph[k].offset <= b &&
			    b - ph[k].offset <= ph[k].filesz)
				break;
		if (k == phnum)
			continue;	/* not loaded: nothing to split */
		loaded = true;
		/* The piece after a cut is never empty. */
		if (to >= ph[k].offset + ph[k].filesz && to >= page)
			to -= page;
		if (from < a || to <= from || to - from < page ||
		    from <= ph[k].offset)
			continue;
		rc = elf_shrink_clear_range(s, sc, ph, phnum, k, from, to);
		if (rc <= 0)
			return rc;
		cut[(*ncut)++] = (struct cut){ from, to, a, k };
	}
	if (!*ncut && !loaded)
		return refuse(s, "its offload code is in no PT_LOAD segment");
	if (!*ncut)
		return refuse(s, "no freed range spans a whole %llu-byte page",
			      (unsigned long long)page);
	return 1;
}

/* Keep the n largest cuts, in offset order. */
void elf_shrink_largest_cuts(struct cut *cut, size_t *ncut, size_t n)
{
	if (*ncut <= n)
		return;
	qsort(cut, *ncut, sizeof(*cut), by_size_desc);
	*ncut = n;
	qsort(cut, *ncut, sizeof(*cut), elf_shrink_by_from);
}

/* The grown table right after the ELF header, where GNU strip and objcopy
 * write it back (bfd puts e_phoff at e_ehsize, the sections of the first
 * PT_LOAD after the table) and where eu-strip keeps it (libelf fills
 * with zeros what no section covers, but not before the first section):
 * how many program headers the room the linker left before the first
 * section's bytes holds (0, s->why set, when the first PT_LOAD does not
 * map the ELF header). */
size_t elf_shrink_ehdr_room(struct elf_shrink *s, const struct elfscan *sc,
			    const struct elf64_phdr *ph,
			    size_t phnum, size_t first,
			    uint64_t bias, const struct cut *cut, size_t ncut)
{
	uint64_t lim = ph[first].filesz;

	if (ph[first].offset != 0)
		return refuse(s, "its first PT_LOAD segment does not map the "
			      "ELF header");
	if (ncut && cut[0].from < lim)
		lim = cut[0].from;
	for (size_t j = 0; j < phnum && lim > EHDR_LEN; j++)
		if (j != first && ph[j].type != PT_PHDR_ &&
		    (overlaps(ph[j].offset, ph[j].filesz, EHDR_LEN,
			      lim - EHDR_LEN) ||
		     overlaps(ph[j].vaddr, ph[j].memsz, bias + EHDR_LEN,
			      lim - EHDR_LEN)))
			lim = ph[j].offset < EHDR_LEN ? EHDR_LEN : ph[j].offset;
	for (size_t i = 1; i < sc->n && lim > EHDR_LEN; i++) {
		const struct elfscan_section *x = &sc->sec[i];

		if (x->type != SHT_NOBITS_ &&
		    overlaps(x->offset, x->size, EHDR_LEN, lim - EHDR_LEN))
			lim = x->offset < EHDR_LEN ? EHDR_LEN : x->offset;
		if ((x->flags & SHF_ALLOC_) && lim > EHDR_LEN &&
		    overlaps(x->addr, x->size, bias + EHDR_LEN,
			     lim - EHDR_LEN))
			lim = x->addr - bias < EHDR_LEN ? EHDR_LEN
							: x->addr - bias;
	}
	return lim > EHDR_LEN ? (lim - EHDR_LEN) / PHDR_LEN : 0;
}

/* The table in the freed bytes before the first cut, where a kernel
 * before 5.18 looks (first PT_LOAD's vaddr - offset plus e_phoff): the
 * smallest file, which GNU strip and objcopy break (new_shdrs covers the
 * table with a section for eu-strip).  When it
 * does not fit there with every cut, the smaller cuts after the first give
 * way; when it does not fit with one, the first cut does. */
int elf_shrink_in_first_cut(struct elf_shrink *s, const struct elfscan *sc,
			    const struct elf64_phdr *ph,
			    size_t phnum, uint64_t page,
			    uint64_t bias, struct cut *cut, size_t *ncut,
			    uint64_t *at)
{
	uint64_t phsize;

	for (;;) {
		uint64_t room = 0;

		if (!*ncut)
			return refuse(s, "no freed range has room for the "
				      "grown program header table");
		if (ph[cut[0].seg].vaddr - ph[cut[0].seg].offset != bias)
			return refuse(s, "the first freed range is not where "
				      "old kernels would find program headers");
		*at = (cut[0].hole + 7) & ~(uint64_t)7;
		if (cut[0].to >= *at + page)
			room = (cut[0].to - page - *at) / PHDR_LEN;
		if (room < phnum + 1) {
			memmove(cut, cut + 1, --*ncut * sizeof(*cut));
			continue;
		}
		if (phnum + *ncut > room) {
			qsort(cut + 1, *ncut - 1, sizeof(*cut), by_size_desc);
			*ncut = room - phnum;
			qsort(cut, *ncut, sizeof(*cut), elf_shrink_by_from);
		}
		phsize = (phnum + *ncut) * PHDR_LEN;
		if (*at + phsize > cut[0].from)
			cut[0].from = (*at + phsize + page - 1) / page * page;
		break;
	}
	return elf_shrink_clear_range(s, sc, ph, phnum, cut[0].seg, *at,
				      *at + phsize);
}
