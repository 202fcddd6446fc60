/* elf_shrink_pointers: what may not be cut out of a linked file (see
 * elf_shrink.h): bytes another segment or section covers, and what the
 * file points at (relocations, RELR, fat binary wrappers, words that are
 * pointers as they stand, dynamic symbols). */
#include <stdlib.h>
#include <string.h>

#include "elf_shrink_impl.h"
#include "elf_shrink_pointers.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

/* May [lo, hi) of the input (addresses va on) go, or hold the program
 * headers?  Only a section of offload containers may cover it, and no
 * segment but the PT_LOAD it is in (seg). */
int elf_shrink_clear_range(struct elf_shrink *s, const struct elfscan *sc,
			   const struct elf64_phdr *ph,
			   size_t phnum, size_t seg,
			   uint64_t lo, uint64_t hi)
{
	uint64_t va = ph[seg].vaddr + (lo - ph[seg].offset);

	for (size_t j = 0; j < phnum; j++) {
		if (j == seg)
			continue;
		if (overlaps(ph[j].offset, ph[j].filesz, lo, hi - lo) ||
		    overlaps(ph[j].vaddr, ph[j].memsz, va, hi - lo))
			return refuse(s, "%s segment (program header %zu) "
				      "overlaps a freed range",
				      segment_name(ph[j].type), j);
	}
	for (size_t i = 1; i < sc->n; i++) {
		const struct elfscan_section *x = &sc->sec[i];
		bool holder = x->type != SHT_NOBITS_ && x->offset <= lo &&
			      hi - x->offset <= x->size &&
			      (x->kind == SECTION_HIP_FATBIN ||
			       x->kind == SECTION_NV_FATBIN);

		if (holder)
			continue;
		if ((x->type != SHT_NOBITS_ &&
		     overlaps(x->offset, x->size, lo, hi - lo)) ||
		    ((x->flags & SHF_ALLOC_) &&
		     overlaps(x->addr, x->size, va, hi - lo)))
			return refuse(s, "section [%zu] %.*s overlaps a freed "
				      "range", i, (int)(x->name_len > 40 ? 40
				      : x->name_len), x->name);
	}
	return 1;
}

static int by_lo(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Whether address v is in one of the spans (sorted, disjoint). */
static bool in_spans(const struct span *sp, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp[mid].hi <= v)
			lo = mid + 1;
		else if (sp[mid].lo > v)
			hi = mid;
		else
			return true;
	}
	return false;
}

/* The 8 bytes at file offset off as the caller writes them. */
uint64_t elf_shrink_word_at(const uint8_t *buf, const struct elf_shrink_word *w,
			    size_t nw, uint64_t off)
{
	size_t lo = 0, hi = nw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w[mid].offset < off)
			lo = mid + 1;
		else if (w[mid].offset > off)
			hi = mid;
		else
			return w[mid].value;
	}
	return get_le(buf + off, 8);
}

struct words {
	const struct elfscan *sc;
	const uint8_t *buf;
	const struct elf_shrink_word *w;	/* as the caller writes them */
	size_t nw;
	const struct span *sp;			/* sorted, disjoint */
	size_t nsp;
};

/* Whether the word at address at, when an allocated section has it in
 * the file, holds an address in one of the spans. */
static bool word_hits(const struct words *x, uint64_t at)
{
	for (size_t i = 1; i < x->sc->n; i++) {
		const struct elfscan_section *sec = &x->sc->sec[i];

		if ((sec->flags & SHF_ALLOC_) && sec->type != SHT_NOBITS_ &&
		    at >= sec->addr && sec->size >= 8 &&
		    at - sec->addr <= sec->size - 8)
			return in_spans(x->sp, x->nsp, elf_shrink_word_at(
				x->buf, x->w, x->nw,
				sec->offset + (at - sec->addr)));
	}
	return false;
}

/* Whether a place RELR relocates is in one of the spans, or holds a word
 * that points into them (the value is in place). */
static bool relr_hits(void *ctx, uint64_t at)
{
	const struct words *x = ctx;

	return in_spans(x->sp, x->nsp, at) || word_hits(x, at);
}

/* In a program at a fixed address (ET_EXEC) a word of the data is a
 * pointer as it stands: whether one of a data section (not one of
 * offload containers) points into the spans.  (Code is not read: an
 * address in an instruction is not found.) */
static bool data_hits(const struct words *x, const struct elfscan_section *sec)
{
	if (!(sec->flags & SHF_ALLOC_) || (sec->flags & SHF_EXECINSTR_) ||
	    sec->type != SHT_PROGBITS_ || sec->addr % 8 ||
	    sec->kind == SECTION_HIP_FATBIN || sec->kind == SECTION_NV_FATBIN)
		return false;
	for (uint64_t o = 0; o + 8 <= sec->size; o += 8)
		if (in_spans(x->sp, x->nsp,
			     elf_shrink_word_at(x->buf, x->w, x->nw,
						sec->offset + o)))
			return true;
	return false;
}

/* Whether a defined dynamic symbol (n bytes of them at p) has bytes in
 * one of the spans: ld.so hands its address out (a TLS symbol's value is
 * an offset in the TLS block, no address). */
static bool dynsym_hits(const uint8_t *p, uint64_t n, const struct span *sp,
			size_t nsp)
{
	for (uint64_t o = 24; o + 24 <= n; o += 24) {
		uint64_t v = get_le(p + o + 8, 8), size = get_le(p + o + 16, 8);

		if (!get_le(p + o + 6, 2) || (p[o + 4] & 0xf) == STT_TLS_)
			continue;
		for (size_t k = 0; k < nsp; k++)
			if (overlaps(v, size ? size : 1, sp[k].lo,
				     sp[k].hi - sp[k].lo))
				return true;
	}
	return false;
}

/* Whether a symbol of the symbol table (n bytes of them at p) defined in
 * a .hip_fatbin or .nv_fatbin section starts in one of the spans: code
 * may read there by a PC-relative address no relocation shows (data of
 * the program's own after the containers).  A symbol that starts at a
 * container and runs over its freed tail (nvcc's fatbinData) starts
 * outside them; the containers of a packed section, and the images of a
 * packed .llvm.offloading, are read where the plan moves them (the words
 * it rewrites). */
static bool symtab_hits(const struct words *x, const struct elfscan_section *y)
{
	const struct elfscan *sc = x->sc;
	const uint8_t *p = x->buf + y->offset;
	uint64_t n = y->size;

	for (uint64_t o = 24; o + 24 <= n; o += 24) {
		unsigned type = p[o + 4] & 0xf;
		uint64_t ndx = get_le(p + o + 6, 2);

		if (!ndx || ndx >= SHN_LORESERVE_ || ndx >= sc->n ||
		    type == STT_SECTION_ ||
		    type == STT_FILE_ || type == STT_TLS_ ||
		    (sc->sec[ndx].kind != SECTION_HIP_FATBIN &&
		     sc->sec[ndx].kind != SECTION_NV_FATBIN))
			continue;
		if (in_spans(x->sp, x->nsp, elf_shrink_word_at(x->buf, x->w,
				x->nw, y->offset + o + 8)))
			return true;
	}
	return false;
}

/* Nothing the file points at may be cut or become program headers (the
 * table, at addresses table): no dynamic relocation's place (the loader
 * writes there; a static one's may be a section offset) or addend
 * (RELATIVE: the address itself), no RELR place, no fat binary wrapper's
 * pointer as it is in place (RELR, or a program that is not PIE), no
 * other word as it is in place (RELR, or any word of the data of a
 * program at a fixed address), no defined dynamic symbol's bytes, no
 * symbol's start.  The only pointers into offload code point at
 * containers' starts, which never change. */
int elf_shrink_check_pointers(struct elf_shrink *s, const struct elfscan *sc,
			      const uint8_t *buf,
			      const struct elf_shrink_word *w, size_t nw,
			      const struct elf64_phdr *ph,
			      const struct cut *cut,
			      size_t ncut, struct span table)
{
	struct span *sp = calloc(ncut + 1, sizeof(*sp));
	bool fixed = get_le(buf + 16, 2) == ET_EXEC_;
	struct words ws;

	if (!sp)
		return -1;
	for (size_t c = 0; c < ncut; c++) {
		sp[c].lo = ph[cut[c].seg].vaddr +
			   (cut[c].from - ph[cut[c].seg].offset);
		sp[c].hi = sp[c].lo + (cut[c].to - cut[c].from);
	}
	sp[ncut++] = table;
	qsort(sp, ncut, sizeof(*sp), by_lo);
	ws = (struct words){ sc, buf, w, nw, sp, ncut };
	for (size_t i = 1; i < sc->n; i++) {
		const struct elfscan_section *x = &sc->sec[i];
		const uint8_t *p = buf + x->offset;
		bool wrappers = x->kind == SECTION_HIP_WRAPPERS ||
				x->kind == SECTION_NV_WRAPPERS;
		bool rela = x->type == SHT_RELA_ && x->entsize == 24;
		bool rel = x->type == SHT_REL_ && x->entsize == 16;
		bool dynsym = x->type == SHT_DYNSYM_ && x->entsize == 24;
		bool symtab = x->type == SHT_SYMTAB_ && x->entsize == 24;
		bool hit = false;

		if (x->type == SHT_NOBITS_)
			continue;
		if (x->type == SHT_RELR_ && x->entsize == 8)
			hit = elfscan_relr_each(p, x->size / 8, relr_hits,
						&ws);
		if (fixed && !hit && data_hits(&ws, x)) {
			free(sp);
			return refuse(s, "a word of section [%zu] points into "
				      "a freed range", i);
		}
		for (uint64_t o = 0; (rela || rel) && !hit &&
		     o + x->entsize <= x->size; o += x->entsize)
			hit = ((x->flags & SHF_ALLOC_) &&
			       in_spans(sp, ncut, get_le(p + o, 8))) ||
			      (rela && in_spans(sp, ncut,
						elf_shrink_word_at(buf, w, nw,
							x->offset + o + 16)));
		for (uint64_t o = 8; wrappers && !hit && o + 8 <= x->size;
		     o += 24)
			hit = in_spans(sp, ncut, elf_shrink_word_at(buf, w, nw,
							 x->offset + o));
		if (dynsym && !hit)
			hit = dynsym_hits(p, x->size, sp, ncut);
		if (symtab && !hit)
			hit = symtab_hits(&ws, x);
		if (hit) {
			free(sp);
			return refuse(s, "%s in section [%zu] points into a "
				      "freed range", wrappers ?
				      "a fat binary wrapper" : dynsym ?
				      "a dynamic symbol" : symtab ? "a symbol" :
				      "a relocation", i);
		}
	}
	free(sp);
	return 1;
}
