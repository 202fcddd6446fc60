/* elf_shrink_headers: a cut file's new headers (see elf_shrink.h): the
 * program headers with each split PT_LOAD in pieces, the section headers
 * with one more header for each further piece of a split section, and
 * the symbols in such a piece. */
#include <stdlib.h>
#include <string.h>

#include "elf_shrink_headers.h"
#include "elf_shrink_impl.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

/* Whether an executable section has bytes in [va, va + len). */
static bool holds_code(const struct elfscan *sc, uint64_t va, uint64_t len)
{
	for (size_t i = 1; i < sc->n; i++)
		if ((sc->sec[i].flags & SHF_EXECINSTR_) &&
		    (sc->sec[i].flags & SHF_ALLOC_) &&
		    overlaps(sc->sec[i].addr, sc->sec[i].size, va, len))
			return true;
	return false;
}

/* A piece of a split PT_LOAD that holds no executable section loses PF_X
 * (it maps offload code only: nothing runs it). */
static void piece_flags(const struct elfscan *sc, struct elf64_phdr *p)
{
	if ((p->flags & PF_X_) && !holds_code(sc, p->vaddr, p->memsz))
		p->flags &= ~(uint32_t)PF_X_;
}

/* The new program headers: a split PT_LOAD becomes its pieces. */
int elf_shrink_new_phdrs(struct elf_shrink *s, const struct elfscan *sc,
			 const struct elf64_phdr *ph, size_t phnum,
			 const struct cut *cut, size_t ncut, uint64_t phoff,
			 uint64_t bias, struct elf64_phdr *out, size_t *nout)
{
	size_t n = 0;
	size_t phsize = (phnum + ncut) * PHDR_LEN;

	for (size_t j = 0; j < phnum; j++) {
		struct elf64_phdr h = ph[j];
		uint64_t start = h.offset, end = h.offset + h.filesz;
		bool split = false;

		for (size_t c = 0; c < ncut; c++) {
			struct elf64_phdr p = h;

			if (cut[c].seg != j)
				continue;
			split = true;
			p.offset = out_offset(cut, ncut, start);
			p.vaddr = h.vaddr + (start - h.offset);
			p.paddr = h.paddr + (start - h.offset);
			p.filesz = p.memsz = cut[c].from - start;
			piece_flags(sc, &p);
			out[n++] = p;
			start = cut[c].to;
		}
		if (split) {
			h.offset = out_offset(cut, ncut, start);
			h.vaddr += start - ph[j].offset;
			h.paddr += start - ph[j].offset;
			h.filesz = end - start;
			h.memsz = ph[j].memsz - (start - ph[j].offset);
			piece_flags(sc, &h);
		} else if (h.type == PT_PHDR_) {
			h.offset = phoff;
			h.vaddr = phoff + bias;
			h.paddr = ph[j].paddr + (h.vaddr - ph[j].vaddr);
			h.filesz = h.memsz = phsize;
		} else {
			uint64_t moved;

			if (in_cut(cut, ncut, h.offset))
				return refuse(s, "%s segment (program header "
					      "%zu) starts in a freed range",
					      segment_name(h.type), j);
			h.offset = out_offset(cut, ncut, h.offset);
			moved = ph[j].offset - h.offset;
			if (h.align > 1 && moved % h.align)
				return refuse(s, "%s segment (program header "
					      "%zu) is aligned to more than "
					      "the bytes saved",
					      segment_name(h.type), j);
		}
		out[n++] = h;
	}
	*nout = n;
	return 1;
}

/* What the loader needs of the new table: PT_LOADs in address order, not
 * overlapping, each inside the file and congruent. */
int elf_shrink_check_phdrs(struct elf_shrink *s, const struct elf64_phdr *ph,
			   size_t n, uint64_t file_len)
{
	uint64_t end = 0;
	bool first = true;

	for (size_t j = 0; j < n; j++) {
		if (ph[j].type != PT_LOAD_)
			continue;
		if (ph[j].offset > file_len ||
		    ph[j].filesz > file_len - ph[j].offset ||
		    ph[j].filesz > ph[j].memsz ||
		    (ph[j].vaddr - ph[j].offset) % ph[j].align ||
		    (!first && ph[j].vaddr < end))
			return refuse(s, "its new PT_LOAD segments would not "
				      "load (an internal check)");
		end = ph[j].vaddr + ph[j].memsz;
		first = false;
	}
	return 1;
}

/* The section header table: a split section's header covers its first
 * piece, one more header of its name each further piece.  A table in
 * freed bytes (table.hi > table.lo: its addresses) gets a header too, the
 * last one, nameless: eu-strip (libelf) fills with zeros what no section
 * covers. */
int elf_shrink_new_shdrs(struct elf_shrink *s, const struct elfscan *sc,
			 const uint8_t *buf, uint64_t shoff, size_t shnum,
			 const struct cut *cut, size_t ncut, uint64_t phoff,
			 struct span table)
{
	size_t extra = table.hi > table.lo, k;
	uint8_t *t;

	for (size_t i = 1; i < shnum; i++) {
		const uint8_t *h = buf + shoff + i * SHDR_LEN;
		uint64_t off = get_le(h + 24, 8), size = sc->sec[i].size;

		for (size_t c = 0; c < ncut; c++)
			if (get_le(h + 4, 4) != SHT_NOBITS_ &&
			    cut[c].from >= off && cut[c].to - off <= size &&
			    size)
				extra++;
	}
	if (shnum + extra >= SHN_LORESERVE_)
		return refuse(s, "too many sections");
	t = s->shdrs = calloc(shnum + extra, SHDR_LEN);
	s->origin = calloc(extra ? extra : 1, sizeof(*s->origin));
	if (!t || !s->origin)
		return -1;
	memcpy(t, buf + shoff, shnum * SHDR_LEN);
	for (size_t i = 1; i < shnum; i++)	/* trimmed by the caller */
		put_le(t + i * SHDR_LEN + 32, sc->sec[i].size, 8);
	k = shnum;
	for (size_t i = 1; i < shnum; i++) {
		uint8_t *h = t + i * SHDR_LEN, *piece = h;
		uint64_t off = get_le(h + 24, 8), size = get_le(h + 32, 8);
		uint64_t addr = get_le(h + 16, 8), align = get_le(h + 48, 8);
		uint64_t start = off;
		bool nobits = get_le(h + 4, 4) == SHT_NOBITS_;

		for (size_t c = 0; c < ncut; c++) {
			if (nobits || !size || cut[c].from < off ||
			    cut[c].to - off > size)
				continue;
			/* The program headers, when in this piece, are no
			 * part of the section: it ends before them. */
			put_le(piece + 24, out_offset(cut, ncut, start), 8);
			put_le(piece + 32, (phoff >= start && phoff <
					    cut[c].from ? phoff
							: cut[c].from) - start,
			       8);
			s->origin[k - shnum] = i;
			piece = t + k++ * SHDR_LEN;
			memcpy(piece, h, SHDR_LEN);
			start = cut[c].to;
			put_le(piece + 16, addr + (start - off), 8);
			if (align > 1 && (addr + (start - off)) % align)
				put_le(piece + 48, 1, 8);
		}
		if (piece != h)
			put_le(piece + 32, off + size - start, 8);
		else if (in_cut(cut, ncut, start))
			return refuse(s, "section [%zu] starts in a freed "
				      "range", i);
		put_le(piece + 24, out_offset(cut, ncut, start), 8);
	}
	if (table.hi > table.lo) {
		uint8_t *h = t + k * SHDR_LEN;

		put_le(h + 4, 1, 4);			/* SHT_PROGBITS */
		put_le(h + 8, SHF_ALLOC_, 8);
		put_le(h + 16, table.lo, 8);
		put_le(h + 24, out_offset(cut, ncut, phoff), 8);
		put_le(h + 32, table.hi - table.lo, 8);
		put_le(h + 48, 8, 8);
	}
	s->extra_shdrs = extra;
	return 1;
}

/* Whether the last section header is the nameless one new_shdrs adds
 * over a program header table in freed bytes, over this file's table. */
bool elf_shrink_covers_table(const uint8_t *buf, uint64_t shoff, size_t shnum,
			     uint64_t phoff, size_t phnum)
{
	const uint8_t *h = buf + shoff + (shnum - 1) * SHDR_LEN;

	return shnum > 1 && get_le(buf + 62, 2) != shnum - 1 &&
	       get_le(h, 4) == 0 && get_le(h + 4, 4) == 1 &&
	       get_le(h + 8, 8) == SHF_ALLOC_ && get_le(h + 24, 8) == phoff &&
	       get_le(h + 32, 8) == phnum * PHDR_LEN;
}

/* The header (by new index) whose piece of split section i holds address
 * v, or i. */
static size_t piece_of(const struct elf_shrink *s, size_t shnum, size_t i,
		       uint64_t v)
{
	const uint8_t *h = s->shdrs + i * SHDR_LEN;

	if (v - get_le(h + 16, 8) <= get_le(h + 32, 8))
		return i;
	for (size_t j = 0; j < s->extra_shdrs; j++) {
		h = s->shdrs + (shnum + j) * SHDR_LEN;
		if (s->origin[j] == i && v >= get_le(h + 16, 8) &&
		    v - get_le(h + 16, 8) <= get_le(h + 32, 8))
			return shnum + j;
	}
	return i;
}

/* Symbols defined in a further piece of a split section name its header
 * (tools check st_value against the section's bounds). */
int elf_shrink_fix_symbols(struct elf_shrink *s, const struct elfscan *sc,
			   const uint8_t *buf, size_t shnum)
{
	size_t n = 0, k = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 1; i < sc->n; i++) {
			const struct elfscan_section *x = &sc->sec[i];

			if ((x->type != 2 && x->type != 11) ||
			    x->entsize != 24)
				continue;
			for (uint64_t o = 24; o + 24 <= x->size; o += 24) {
				const uint8_t *sym = buf + x->offset + o;
				size_t ndx = get_le(sym + 6, 2), to;

				if (!ndx || ndx >= shnum || ndx >= sc->n ||
				    get_le(s->shdrs + ndx * SHDR_LEN + 32, 8) ==
				    sc->sec[ndx].size)
					continue;
				to = piece_of(s, shnum, ndx,
					      get_le(sym + 8, 8));
				if (to == ndx)
					continue;
				if (!pass) {
					n++;
					continue;
				}
				put_le(s->shndx + 2 * k, to, 2);
				if (elf_shrink_add_edit(s, x->offset + o + 6, 2,
					     ELF_SHRINK_BYTES,
					     s->shndx + 2 * k++, 2) < 0)
					return -1;
			}
		}
		if (!pass && !(s->shndx = malloc(n ? 2 * n : 1)))
			return -1;
	}
	return 1;
}

int elf_shrink_add_edit(struct elf_shrink *s, uint64_t off, uint64_t len,
			enum elf_shrink_kind kind, const uint8_t *bytes,
			size_t bytes_len)
{
	struct elf_shrink_edit *grown = realloc(s->edit,
						(s->n + 1) * sizeof(*grown));

	if (!grown)
		return -1;
	s->edit = grown;
	s->edit[s->n++] = (struct elf_shrink_edit){ off, len, kind, bytes,
						    bytes_len };
	return 0;
}
