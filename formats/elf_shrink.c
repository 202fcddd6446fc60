/* elf_shrink: see elf_shrink.h.  Only 64-bit little-endian files (x86-64,
 * AArch64: where HIP and CUDA programs run). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_shrink.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

enum {
	EHDR_LEN = 64, PHDR_LEN = 56, SHDR_LEN = 64,
	ET_EXEC_ = 2, ET_DYN_ = 3,
	PT_LOAD_ = 1, PT_DYNAMIC_ = 2, PT_INTERP_ = 3, PT_NOTE_ = 4,
	PT_PHDR_ = 6, PT_TLS_ = 7,
	SHT_PROGBITS_ = 1, SHT_NOBITS_ = 8,
	SHF_ALLOC_ = 2, SHF_EXECINSTR_ = 4, PF_X_ = 1,
	SHN_LORESERVE_ = 0xff00, PN_XNUM_ = 0xffff,
	/* Kernels read no larger program header table (ELF_MIN_ALIGN) when
	 * they load a program; glibc's loader reads a library's on its
	 * stack (alloca and an array per header): a bound for that too. */
	MAX_PHDRS_PROGRAM = 4096 / PHDR_LEN,
	MAX_PHDRS_LIBRARY = 512,
	MIN_PAGE = 4096, MAX_PAGE = 1 << 30,
	SHT_RELA_ = 4, SHT_REL_ = 9, SHT_RELR_ = 19, SHT_DYNSYM_ = 11,
	STT_TLS_ = 6,
};

struct phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct cut {
	uint64_t from, to;	/* input offsets, page-aligned */
	uint64_t hole;		/* where the hole it is in starts */
	size_t seg;		/* the PT_LOAD it splits */
};

static int refuse(struct elf_shrink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int refuse(struct elf_shrink *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return 0;
}

static void get_phdr(const uint8_t *p, struct phdr *h)
{
	h->type = (uint32_t)get_le(p, 4);
	h->flags = (uint32_t)get_le(p + 4, 4);
	h->offset = get_le(p + 8, 8);
	h->vaddr = get_le(p + 16, 8);
	h->paddr = get_le(p + 24, 8);
	h->filesz = get_le(p + 32, 8);
	h->memsz = get_le(p + 40, 8);
	h->align = get_le(p + 48, 8);
}

static void put_phdr(uint8_t *p, const struct phdr *h)
{
	put_le(p, h->type, 4);
	put_le(p + 4, h->flags, 4);
	put_le(p + 8, h->offset, 8);
	put_le(p + 16, h->vaddr, 8);
	put_le(p + 24, h->paddr, 8);
	put_le(p + 32, h->filesz, 8);
	put_le(p + 40, h->memsz, 8);
	put_le(p + 48, h->align, 8);
}

static const char *segment_name(uint32_t type)
{
	switch (type) {
	case PT_LOAD_: return "PT_LOAD";
	case PT_DYNAMIC_: return "PT_DYNAMIC";
	case PT_INTERP_: return "PT_INTERP";
	case PT_NOTE_: return "PT_NOTE";
	case PT_PHDR_: return "PT_PHDR";
	case PT_TLS_: return "PT_TLS";
	case 0x6474e550: return "PT_GNU_EH_FRAME";
	case 0x6474e551: return "PT_GNU_STACK";
	case 0x6474e552: return "PT_GNU_RELRO";
	case 0x6474e553: return "PT_GNU_PROPERTY";
	default: return "a";
	}
}

/* [a, a + alen) and [b, b + blen) share a byte (modulo 2^64: a crafted
 * range that wraps around still overlaps what it covers). */
static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && (a - b < blen || b - a < alen);
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Where input offset x lands: down by every cut before it. */
static uint64_t out_offset(const struct cut *c, size_t n, uint64_t x)
{
	uint64_t shift = 0;

	for (size_t i = 0; i < n && c[i].to <= x; i++)
		shift += c[i].to - c[i].from;
	return x - shift;
}

/* Whether a cut interior holds x (an offset that cannot be kept). */
static bool in_cut(const struct cut *c, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (x > c[i].from && x < c[i].to)
			return true;
	return false;
}

/* May [lo, hi) of the input (addresses va on) go, or hold the program
 * headers?  Only a section of offload containers may cover it, and no
 * segment but the PT_LOAD it is in (seg). */
static int clear_range(struct elf_shrink *s, const struct elfscan *sc,
		       const struct phdr *ph, size_t phnum, size_t seg,
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
			      (x->kind == ELFSCAN_HIP_FATBIN ||
			       x->kind == ELFSCAN_NV_FATBIN);

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

struct span {
	uint64_t lo, hi;	/* addresses */
};

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

static bool is_named(const struct elfscan_section *x, const char *name)
{
	return x->name_len == strlen(name) && !memcmp(x->name, name,
						       x->name_len);
}

/* The 8 bytes at file offset off as the caller writes them. */
static uint64_t word_at(const uint8_t *buf, const struct elf_shrink_word *w,
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
	const struct elf_shrink_word *w;	/* as the caller rewrites them */
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
			return in_spans(x->sp, x->nsp,
					word_at(x->buf, x->w, x->nw,
						sec->offset + (at - sec->addr)));
	}
	return false;
}

/* Whether a RELR table (entries at p, n of them) relocates a word in one
 * of the spans, or one that points into them (the value is in place): an
 * even entry is an address, an odd one a bitmap of the 63 words after the
 * last address. */
static bool relr_hits(const struct words *x, const uint8_t *p, uint64_t n)
{
	uint64_t where = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t e = get_le(p + 8 * i, 8);

		if (!(e & 1)) {
			if (in_spans(x->sp, x->nsp, e) || word_hits(x, e))
				return true;
			where = e + 8;
			continue;
		}
		for (unsigned bit = 1; bit < 64; bit++)
			if (((e >> bit) & 1) &&
			    (in_spans(x->sp, x->nsp, where + 8 * (bit - 1)) ||
			     word_hits(x, where + 8 * (bit - 1))))
				return true;
		where += 63 * 8;
	}
	return false;
}

/* In a program at a fixed address (ET_EXEC) a word of the data is a
 * pointer as it stands: whether one of a data section (not one of
 * offload containers) points into the spans.  (Code is not read: an
 * address in an instruction is not found.) */
static bool data_hits(const struct words *x, const struct elfscan_section *sec)
{
	if (!(sec->flags & SHF_ALLOC_) || (sec->flags & SHF_EXECINSTR_) ||
	    sec->type != SHT_PROGBITS_ || sec->addr % 8 ||
	    sec->kind == ELFSCAN_HIP_FATBIN || sec->kind == ELFSCAN_NV_FATBIN)
		return false;
	for (uint64_t o = 0; o + 8 <= sec->size; o += 8)
		if (in_spans(x->sp, x->nsp,
			     word_at(x->buf, x->w, x->nw, sec->offset + o)))
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

/* Nothing the file points at may be cut or become program headers (the
 * table, at addresses table): no dynamic relocation's place (the loader
 * writes there; a static one's may be a section offset) or addend
 * (RELATIVE: the address itself), no RELR place, no fat binary wrapper's
 * pointer as it is in place (RELR, or a program that is not PIE), no
 * other word as it is in place (RELR, or any word of the data of a
 * program at a fixed address), no defined dynamic symbol's bytes.  The only pointers into offload code point
 * at containers' starts, which never change. */
static int check_pointers(struct elf_shrink *s, const struct elfscan *sc,
			  const uint8_t *buf, const struct elf_shrink_word *w,
			  size_t nw, const struct phdr *ph,
			  const struct cut *cut, size_t ncut, struct span table)
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
		bool wrappers = is_named(x, ".hipFatBinSegment") ||
				is_named(x, ".nvFatBinSegment");
		bool rela = x->type == SHT_RELA_ && x->entsize == 24;
		bool rel = x->type == SHT_REL_ && x->entsize == 16;
		bool dynsym = x->type == SHT_DYNSYM_ && x->entsize == 24;
		bool hit = false;

		if (x->type == SHT_NOBITS_)
			continue;
		if (x->type == SHT_RELR_ && x->entsize == 8)
			hit = relr_hits(&ws, p, x->size / 8);
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
						word_at(buf, w, nw,
							x->offset + o + 16)));
		for (uint64_t o = 8; wrappers && !hit && o + 8 <= x->size;
		     o += 24)
			hit = in_spans(sp, ncut, word_at(buf, w, nw,
							 x->offset + o));
		if (dynsym && !hit)
			hit = dynsym_hits(p, x->size, sp, ncut);
		if (hit) {
			free(sp);
			return refuse(s, "%s in section [%zu] points into a "
				      "freed range", wrappers ?
				      "a fat binary wrapper" : dynsym ?
				      "a dynamic symbol" : "a relocation", i);
		}
	}
	free(sp);
	return 1;
}

static int by_from(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static int by_size_desc(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;
	uint64_t sx = x->to - x->from, sy = y->to - y->from;

	return sx > sy ? -1 : sx < sy ? 1 : by_from(a, b);
}

/* The cuts the holes allow, in offset order (0: none, s->why set). */
static int find_cuts(struct elf_shrink *s, const struct elfscan *sc,
		     const struct phdr *ph, size_t phnum, uint64_t page,
		     const struct elf_shrink_hole *hole, size_t nholes,
		     struct cut *cut, size_t *ncut)
{
	bool loaded = false;

	*ncut = 0;
	for (size_t i = 0; i < nholes; i++) {
		uint64_t a = hole[i].offset, b = a + hole[i].len;
		uint64_t from = (a + page - 1) / page * page, to = b / page * page;
		size_t k;
		int rc;

		for (k = 0; k < phnum; k++)
			if (ph[k].type == PT_LOAD_ && ph[k].offset < a &&
			    ph[k].offset <= b && b - ph[k].offset <= ph[k].filesz)
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
		rc = clear_range(s, sc, ph, phnum, k, from, to);
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
static void piece_flags(const struct elfscan *sc, struct phdr *p)
{
	if ((p->flags & PF_X_) && !holds_code(sc, p->vaddr, p->memsz))
		p->flags &= ~(uint32_t)PF_X_;
}

/* The new program headers: a split PT_LOAD becomes its pieces. */
static int new_phdrs(struct elf_shrink *s, const struct elfscan *sc,
		     const struct phdr *ph,
		     size_t phnum, const struct cut *cut, size_t ncut,
		     uint64_t phoff, uint64_t bias, struct phdr *out,
		     size_t *nout)
{
	size_t n = 0;
	size_t phsize = (phnum + ncut) * PHDR_LEN;

	for (size_t j = 0; j < phnum; j++) {
		struct phdr h = ph[j];
		uint64_t start = h.offset, end = h.offset + h.filesz;
		bool split = false;

		for (size_t c = 0; c < ncut; c++) {
			struct phdr p = h;

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
static int check_phdrs(struct elf_shrink *s, const struct phdr *ph, size_t n,
		       uint64_t file_len)
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
static int new_shdrs(struct elf_shrink *s, const struct elfscan *sc,
		     const uint8_t *buf, uint64_t shoff,
		     size_t shnum, const struct cut *cut, size_t ncut,
		     uint64_t phoff, struct span table)
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
static bool covers_table(const uint8_t *buf, uint64_t shoff, size_t shnum,
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

static int add_edit(struct elf_shrink *s, uint64_t off, uint64_t len,
		    enum elf_shrink_kind kind, const uint8_t *bytes,
		    size_t bytes_len);

/* Symbols defined in a further piece of a split section name its header
 * (tools check st_value against the section's bounds). */
static int fix_symbols(struct elf_shrink *s, const struct elfscan *sc,
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
				if (add_edit(s, x->offset + o + 6, 2,
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

static int add_edit(struct elf_shrink *s, uint64_t off, uint64_t len,
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

static int by_edit_offset(const void *a, const void *b)
{
	const struct elf_shrink_edit *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Keep the n largest cuts, in offset order. */
static void largest_cuts(struct cut *cut, size_t *ncut, size_t n)
{
	if (*ncut <= n)
		return;
	qsort(cut, *ncut, sizeof(*cut), by_size_desc);
	*ncut = n;
	qsort(cut, *ncut, sizeof(*cut), by_from);
}

/* The grown table right after the ELF header, where GNU strip and objcopy
 * write it back (bfd puts e_phoff at e_ehsize, the sections of the first
 * PT_LOAD after the table) and where eu-strip keeps it (libelf fills
 * with zeros what no section covers, but not before the first section):
 * how many program headers the room the linker left before the first
 * section's bytes holds (0, s->why set, when the first PT_LOAD does not
 * map the ELF header). */
static size_t ehdr_room(struct elf_shrink *s, const struct elfscan *sc,
			const struct phdr *ph, size_t phnum, size_t first,
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
static int in_first_cut(struct elf_shrink *s, const struct elfscan *sc,
			const struct phdr *ph, size_t phnum, uint64_t page,
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
			qsort(cut, *ncut, sizeof(*cut), by_from);
		}
		phsize = (phnum + *ncut) * PHDR_LEN;
		if (*at + phsize > cut[0].from)
			cut[0].from = (*at + phsize + page - 1) / page * page;
		break;
	}
	return clear_range(s, sc, ph, phnum, cut[0].seg, *at, *at + phsize);
}

static int layout(struct elf_shrink *s, const uint8_t *buf, size_t len,
		  const struct elfscan *sc,
		  const struct elf_shrink_hole *hole, size_t nholes,
		  const struct elf_shrink_word *w, size_t nw,
		  enum elf_shrink_place place, struct phdr *ph,
		  struct cut *cut)
{
	uint64_t phoff = get_le(buf + 32, 8), shoff = get_le(buf + 40, 8);
	size_t phnum = get_le(buf + 56, 2), shnum = get_le(buf + 60, 2);
	uint64_t page = MIN_PAGE, bias = 0, at = 0, phsize;
	struct phdr *nph = NULL;
	size_t ncut = 0, first = phnum, nnew = 0, room;
	size_t max_phdrs = get_le(buf + 16, 2) == ET_EXEC_ ? MAX_PHDRS_PROGRAM
							   : MAX_PHDRS_LIBRARY;
	bool old_table = true;
	int rc;

	for (size_t j = 0; j < phnum; j++) {
		get_phdr(buf + phoff + j * PHDR_LEN, &ph[j]);
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
	rc = find_cuts(s, sc, ph, phnum, page, hole, nholes, cut, &ncut);
	if (rc <= 0)
		return rc;
	/* Past the bound on program headers: the largest cuts, as many as
	 * fit. */
	if (phnum >= max_phdrs)
		return refuse(s, "its %zu program headers leave no room for "
			      "more", phnum);
	largest_cuts(cut, &ncut, max_phdrs - phnum);
	qsort(cut, ncut, sizeof(*cut), by_from);
	/* After the ELF header when there is room for every cut there, or
	 * when asked for; else in the first cut. */
	room = ehdr_room(s, sc, ph, phnum, first, bias, cut, ncut);
	if (room >= phnum + ncut || place == ELF_SHRINK_AFTER_EHDR) {
		if (room <= phnum)
			return s->why[0] ? 0 : refuse(s, "no room after the ELF "
				"header for more program headers, where GNU "
				"strip puts them");
		largest_cuts(cut, &ncut, room - phnum);
		at = EHDR_LEN;
	} else {
		s->why[0] = 0;
		rc = in_first_cut(s, sc, ph, phnum, page, bias, cut, &ncut,
				  &at);
		if (rc <= 0)
			return rc;
	}
	phsize = (phnum + ncut) * PHDR_LEN;
	/* (The room after the ELF header ehdr_room found clear.) */
	rc = at == EHDR_LEN ? 1 : clear_range(s, sc, ph, phnum, cut[0].seg,
					      at, at + phsize);
	if (rc > 0)
		rc = check_pointers(s, sc, buf, w, nw, ph, cut, ncut,
				    (struct span){
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
	rc = new_phdrs(s, sc, ph, phnum, cut, ncut, at, bias, nph, &nnew);
	s->size_after = len - s->cut;
	if (rc > 0)
		rc = check_phdrs(s, nph, nnew, out_offset(cut, ncut, shoff));
	for (size_t j = 0; rc > 0 && j < nnew; j++)
		put_phdr(s->phdrs + j * PHDR_LEN, &nph[j]);
	free(nph);
	if (rc <= 0)
		return rc;
	/* A table a shrink put in freed bytes before had its header last:
	 * it goes (the old table is zeros), a new one comes if need be. */
	if (covers_table(buf, shoff, shnum, phoff, phnum))
		shnum--;
	rc = new_shdrs(s, sc, buf, shoff, shnum, cut, ncut, at,
		       at == EHDR_LEN ? (struct span){ 0, 0 } :
		       (struct span){ at + bias, at + bias + phsize });
	if (rc > 0)
		rc = fix_symbols(s, sc, buf, shnum);
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
	if (add_edit(s, 0, EHDR_LEN, ELF_SHRINK_BYTES, s->ehdr, EHDR_LEN) < 0 ||
	    (old_table && add_edit(s, phoff, phnum * PHDR_LEN, ELF_SHRINK_ZERO,
				   NULL, 0) < 0) ||
	    add_edit(s, at, phsize, ELF_SHRINK_BYTES, s->phdrs, phsize) < 0 ||
	    add_edit(s, shoff, len - shoff, ELF_SHRINK_BYTES, s->shdrs,
		     (shnum + s->extra_shdrs) * SHDR_LEN) < 0)
		return -1;
	for (size_t c = 0; c < ncut; c++)
		if (add_edit(s, cut[c].from, cut[c].to - cut[c].from,
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
	struct phdr *ph = NULL;
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
		uint64_t size = word_at(buf, word, nwords,
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
		return err_code_set(e, ERR_NOMEM, "out of memory");
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
