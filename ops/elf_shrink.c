/* elf_shrink: see elf_shrink.h: the plan (the file's headers read, the
 * cuts chosen, the new headers and the edits), with elf_shrink_cuts.c,
 * elf_shrink_pointers.c and elf_shrink_headers.c.  Only 64-bit
 * little-endian files (x86-64, AArch64: where HIP and CUDA programs
 * run). */
#include <stdlib.h>
#include <string.h>

#include "elf_shrink.h"
#include "elf_shrink_cuts.h"
#include "elf_shrink_headers.h"
#include "elf_shrink_impl.h"
#include "elf_shrink_pointers.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int by_edit_offset(const void *a, const void *b)
{
	const struct elf_shrink_edit *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int layout(struct elf_shrink *s, const uint8_t *buf, size_t len,
		  const struct elfscan *sc,
		  const struct elf_shrink_hole *hole, size_t nholes,
		  const struct elf_shrink_word *w, size_t nw,
		  enum elf_shrink_place place, struct elf64_phdr *ph,
		  struct cut *cut)
{
	uint64_t phoff = get_le(buf + 32, 8), shoff = get_le(buf + 40, 8);
	size_t phnum = get_le(buf + 56, 2), shnum = get_le(buf + 60, 2);
	uint64_t page = MIN_PAGE, bias = 0, at = 0, phsize;
	struct elf64_phdr *nph = NULL;
	size_t ncut = 0, first = phnum, nnew = 0, room;
	size_t max_phdrs = get_le(buf + 16, 2) == ET_EXEC_ ? MAX_PHDRS_PROGRAM
							   : MAX_PHDRS_LIBRARY;
	bool old_table = true;
	int rc;

	for (size_t j = 0; j < phnum; j++) {
		elf64_phdr_get(&ph[j], buf + phoff + j * PHDR_LEN);
		if (ph[j].type == PT_INTERP_)	/* the kernel loads it */
			max_phdrs = MAX_PHDRS_PROGRAM;
		if (ph[j].type != PT_LOAD_)
			continue;
		if (!is_pow2(ph[j].align) || ph[j].align < MIN_PAGE ||
		    (ph[j].vaddr - ph[j].offset) % ph[j].align)
			return refuse(s, "PT_LOAD segment (program header %zu) "
				      "is not page-aligned", j);
		if (ph[j].align > MAX_PAGE)
			return refuse(s, "PT_LOAD segment (program header %zu) "
				      "is aligned to more than 1 GiB", j);
		if (ph[j].offset > len || ph[j].filesz > len - ph[j].offset ||
		    ph[j].filesz > ph[j].memsz ||
		    ph[j].memsz > UINT64_MAX - ph[j].vaddr)
			return refuse(s, "PT_LOAD segment (program header %zu) "
				      "lies outside the file or the address "
				      "space", j);
		if (first < phnum && ph[j].vaddr < at)
			return refuse(s, "its PT_LOAD segments are not in "
				      "address order");
		if (first == phnum) {
			first = j;
			bias = ph[j].vaddr - ph[j].offset;
		}
		at = ph[j].vaddr + ph[j].memsz;
		if (ph[j].align > page)
			page = ph[j].align;
	}
	if (first == phnum)
		return refuse(s, "no PT_LOAD segment");
	rc = elf_shrink_find_cuts(s, sc, ph, phnum, page, hole, nholes, cut,
				  &ncut);
	if (rc <= 0)
		return rc;
	/* Past the bound on program headers: the largest cuts, as many as
	 * fit. */
	if (phnum >= max_phdrs)
		return refuse(s, "its %zu program headers leave no room for "
			      "more", phnum);
	elf_shrink_largest_cuts(cut, &ncut, max_phdrs - phnum);
	qsort(cut, ncut, sizeof(*cut), elf_shrink_by_from);
	/* After the ELF header when there is room for every cut there, or
	 * when asked for; else in the first cut. */
	room = elf_shrink_ehdr_room(s, sc, ph, phnum, first, bias, cut, ncut);
	if (room >= phnum + ncut || place == ELF_SHRINK_AFTER_EHDR) {
		if (room <= phnum)
			return s->why[0] ? 0 : refuse(s, "no room after the "
				"ELF header for more program headers, where "
				"GNU strip puts them");
		elf_shrink_largest_cuts(cut, &ncut, room - phnum);
		at = EHDR_LEN;
	} else {
		s->why[0] = 0;
		rc = elf_shrink_in_first_cut(s, sc, ph, phnum, page, bias, cut,
					     &ncut, &at);
		if (rc <= 0)
			return rc;
	}
	phsize = (phnum + ncut) * PHDR_LEN;
	/* (The room after the ELF header ehdr_room found clear.) */
	rc = at == EHDR_LEN ? 1 : elf_shrink_clear_range(s, sc, ph, phnum,
							 cut[0].seg, at,
							 at + phsize);
	if (rc > 0)
		rc = elf_shrink_check_pointers(s, sc, buf, w, nw, ph, cut,
					       ncut, (struct span){
			at + bias, at + bias + phsize });
	if (rc <= 0)
		return rc;
	/* The old table is zeroed, unless the new one is written over it. */
	if (at == phoff)
		old_table = false;
	else if (overlaps(at, phsize, phoff, phnum * PHDR_LEN))
		return refuse(s, "its program headers lie in a freed range");
	for (size_t c = 0; c < ncut; c++) {
		s->cut += cut[c].to - cut[c].from;
		if (overlaps(cut[c].from, cut[c].to - cut[c].from, 0,
			     EHDR_LEN) ||
		    overlaps(cut[c].from, cut[c].to - cut[c].from, phoff,
			     phnum * PHDR_LEN) ||
		    cut[c].to > shoff)
			return refuse(s, "its headers lie in a freed range");
	}
	nph = calloc(phnum + ncut, sizeof(*nph));
	s->phdrs = malloc(phsize);
	s->ehdr = malloc(EHDR_LEN);
	if (!nph || !s->phdrs || !s->ehdr) {
		free(nph);
		return -1;
	}
	rc = elf_shrink_new_phdrs(s, sc, ph, phnum, cut, ncut, at, bias, nph,
				  &nnew);
	s->size_after = len - s->cut;
	if (rc > 0)
		rc = elf_shrink_check_phdrs(s, nph, nnew,
					    out_offset(cut, ncut, shoff));
	for (size_t j = 0; rc > 0 && j < nnew; j++)
		elf64_phdr_put(s->phdrs + j * PHDR_LEN, &nph[j]);
	free(nph);
	if (rc <= 0)
		return rc;
	/* A table a shrink put in freed bytes before had its header last:
	 * it goes (the old table is zeros), a new one comes if need be. */
	if (elf_shrink_covers_table(buf, shoff, shnum, phoff, phnum))
		shnum--;
	rc = elf_shrink_new_shdrs(s, sc, buf, shoff, shnum, cut, ncut, at,
				  at == EHDR_LEN ? (struct span){ 0, 0 } :
				  (struct span){ at + bias,
						 at + bias + phsize });
	if (rc > 0)
		rc = elf_shrink_fix_symbols(s, sc, buf, shnum);
	if (rc <= 0)
		return rc;
	memcpy(s->ehdr, buf, EHDR_LEN);
	put_le(s->ehdr + 32, at, 8);
	put_le(s->ehdr + 40, out_offset(cut, ncut, shoff), 8);
	put_le(s->ehdr + 56, nnew, 2);
	put_le(s->ehdr + 60, shnum + s->extra_shdrs, 2);
	s->cuts = ncut;
	s->extra_phdrs = ncut;
	s->size_after += s->extra_shdrs * SHDR_LEN;
	s->size_after -= (get_le(buf + 60, 2) - shnum) * SHDR_LEN;
	if (elf_shrink_add_edit(s, 0, EHDR_LEN, ELF_SHRINK_BYTES, s->ehdr,
				EHDR_LEN) < 0 ||
	    (old_table && elf_shrink_add_edit(s, phoff, phnum * PHDR_LEN,
					      ELF_SHRINK_ZERO, NULL, 0) < 0) ||
	    elf_shrink_add_edit(s, at, phsize, ELF_SHRINK_BYTES, s->phdrs,
				phsize) < 0 ||
	    elf_shrink_add_edit(s, shoff, len - shoff, ELF_SHRINK_BYTES,
				s->shdrs,
				(shnum + s->extra_shdrs) * SHDR_LEN) < 0)
		return -1;
	for (size_t c = 0; c < ncut; c++)
		if (elf_shrink_add_edit(s, cut[c].from, cut[c].to - cut[c].from,
					ELF_SHRINK_CUT, NULL, 0) < 0)
			return -1;
	qsort(s->edit, s->n, sizeof(*s->edit), by_edit_offset);
	for (size_t i = 1; i < s->n; i++)
		if (s->edit[i].offset < s->edit[i - 1].offset +
		    s->edit[i - 1].len)
			return refuse(s, "its headers lie in a freed range");
	return 1;
}

int elf_shrink_plan(const uint8_t *buf, size_t len,
		    const struct elf_shrink_hole *hole, size_t nholes,
		    const struct elf_shrink_word *word, size_t nwords,
		    enum elf_shrink_place place, struct elf_shrink *s,
		    struct err *e)
{
	struct elfscan sc = { 0 };
	struct elf64_phdr *ph = NULL;
	struct cut *cut = NULL;
	uint64_t phoff, shoff;
	size_t phnum, shnum;
	struct err scan;
	int rc;

	memset(s, 0, sizeof(*s));
	if (len < EHDR_LEN || buf[4] != 2 || buf[5] != 1)
		return refuse(s, "only 64-bit little-endian files are shrunk");
	if (get_le(buf + 16, 2) != ET_EXEC_ && get_le(buf + 16, 2) != ET_DYN_)
		return refuse(s, "not an executable or a shared library");
	phoff = get_le(buf + 32, 8);
	shoff = get_le(buf + 40, 8);
	phnum = get_le(buf + 56, 2);
	shnum = get_le(buf + 60, 2);
	if (get_le(buf + 54, 2) != PHDR_LEN || !phnum || phnum >= PN_XNUM_ ||
	    phoff < EHDR_LEN || phoff > len ||
	    phnum * PHDR_LEN > len - phoff)
		return refuse(s, "its program headers are not as expected");
	if (get_le(buf + 58, 2) != SHDR_LEN || !shnum ||
	    shnum >= SHN_LORESERVE_ || shoff < EHDR_LEN || shoff > len ||
	    shnum * SHDR_LEN != len - shoff)
		return refuse(s, "its section header table is not the last "
			      "thing in the file");
	if (elfscan_open(&sc, buf, len, &scan) < 0)
		return refuse(s, "its sections do not read");
	/* Sections the caller makes shorter. */
	for (size_t i = 1; i < sc.n; i++) {
		uint64_t size = elf_shrink_word_at(buf, word, nwords,
					shoff + i * SHDR_LEN + 32);

		if (size > sc.sec[i].size) {
			elfscan_free(&sc);
			return refuse(s, "a section would grow");
		}
		sc.sec[i].size = size;
	}
	ph = calloc(phnum, sizeof(*ph));
	cut = calloc(nholes ? nholes : 1, sizeof(*cut));
	rc = ph && cut ? layout(s, buf, len, &sc, hole, nholes, word, nwords,
				place, ph, cut) : -1;
	free(ph);
	free(cut);
	elfscan_free(&sc);
	if (rc < 0) {
		elf_shrink_free(s);
		return err_nomem(e);
	}
	if (rc == 0) {
		char why[sizeof(s->why)];

		memcpy(why, s->why, sizeof(why));
		elf_shrink_free(s);
		memcpy(s->why, why, sizeof(why));
	}
	return rc;
}

void elf_shrink_free(struct elf_shrink *s)
{
	free(s->edit);
	free(s->ehdr);
	free(s->phdrs);
	free(s->shdrs);
	free(s->shndx);
	free(s->origin);
	memset(s, 0, sizeof(*s));
}
