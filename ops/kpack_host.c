/* kpack_host: a fat host binary rewritten as a kpack-split one, as AMD's
 * splitter rewrites it; see kpack_host.h.  Spec points relied on
 * (ROCm/rocm-kpack, docs/multi_arch_packaging_with_kpack.md, "Binary
 * Conversion"): the wrapper (24 bytes: u32 magic, u32 version, u64
 * binary, u64 reserved1) gets the magic HIPK, its binary pointer the
 * address of the .rocm_kpack_ref map in memory, reserved1 its index; the
 * .hip_fatbin bytes are not needed any more.
 *
 * The layout is the splitter's (python/rocm_kpack/elf/: surgery.py
 * add_section, operations.py map_section_to_load and set_pointer,
 * phdr_manager.py, zero_page.py conservative_zero_page), step by step, so
 * that the bytes are its bytes:
 *   1. the map appended at the end of the file, then a copy of .shstrtab
 *      with its name added, then every section header (the new one last);
 *   2. a PT_LOAD (R, 4 KiB aligned) for the map at the first page past
 *      every segment, the map copied again to a page boundary when it
 *      does not sit on one; the program headers moved to the end of the
 *      file (a page past that, with a PT_LOAD of their own, PT_PHDR
 *      following, room for a multiple of 16), since they never fit where
 *      they are;
 *   3. each wrapper HIPK, pointing at the map, reserved1 its index; the
 *      RELA relocation of its pointer R_*_RELATIVE to the map, the slot
 *      zero;
 *   4. .hip_fatbin NOBITS, its whole 4 KiB pages cut out of the file (a
 *      page left when it ends on a boundary), its PT_LOAD split into the
 *      part before, the part of the first page, a part with no file bytes
 *      and the part after; everything after moved down; the program
 *      headers written where they are when they fit, else moved again.
 * What the splitter leaves in place stays: the old program headers, the
 * map's first copy, the old .shstrtab.  Where its output would not work we
 * do not follow it, and only there (man/offload-kpack.1 says so):
 *   - a pointer with no RELA relocation (a position-dependent program, a
 *     RELR-relocated one) keeps the map's address, which the splitter
 *     zeroes;
 *   - pages are cut by the largest p_align of the file's PT_LOADs, not by
 *     4 KiB, when that is larger (a cut of 4 KiB pages leaves the segments
 *     after it misaligned, which glibc's loader before 2.35 refuses);
 *   - RELATIVE is the machine's (the splitter writes x86-64's);
 *   - reserved1 is written whole (the splitter writes its low 4 bytes);
 *   - where the program headers would fit in place when the map's PT_LOAD
 *     is added, they are written there (the splitter fails).
 * The file is never copied in memory: kpack_image holds the edits. */
#include <stdlib.h>
#include <string.h>

#include "kpack_host.h"
#include "kpack_image.h"
#include "prune_pointers.h"
#include "../core/bytes.h"
#include "../core/elf64hdr.h"
#include "../core/elfscan.h"
#include "../core/io_write.h"
#include "../core/sections.h"
#include "../formats/kpack_ref.h"

enum {
	SHT_PROGBITS_ = 1, SHT_RELA_ = 4, SHT_NOBITS_ = 8, SHT_REL_ = 9,
	SHF_ALLOC_ = 2, ET_EXEC_ = 2, ET_DYN_ = 3, PT_LOAD_ = 1, PT_PHDR_ = 6,
	PF_R_ = 4, WRAPPER = 24, EHDR = 64, PHDR = ELF64_PHDR_LEN,
	SHDR = ELF64_SHDR_LEN, RELA = 24, REL = 16, PAGE = 4096, SPARE = 16,
	/* More section names than any linked file has: a bigger table is
	 * refused rather than copied into memory. */
	SHSTRTAB_MAX = 16 << 20,
};

void kpack_host_free(struct kpack_host *h)
{
	free(h->target);
	free(h->rela);
	memset(h, 0, sizeof(*h));
}

/* The first PT_LOAD of buf mapping [addr, addr + n) from the file: its
 * file offset there, or UINT64_MAX. */
static uint64_t file_offset(const uint8_t *buf, size_t len, uint64_t addr,
			    uint64_t n)
{
	uint64_t phoff = get_le(buf + 0x20, 8);
	size_t phnum = (size_t)get_le(buf + 0x38, 2);

	for (size_t i = 0; i < phnum; i++) {
		const uint8_t *p = buf + phoff + i * PHDR;
		uint64_t va = get_le(p + 16, 8), fs = get_le(p + 32, 8);
		uint64_t off = get_le(p + 8, 8);

		if (get_le(p, 4) != PT_LOAD_ || addr < va ||
		    fs > len || off > len - fs || addr - va > fs ||
		    n > fs - (addr - va))
			continue;
		return off + (addr - va);
	}
	return UINT64_MAX;
}

/* The headers the splitter's layout reads, checked against the file. */
static int check_headers(const uint8_t *buf, size_t len,
			 const struct elfscan *s, struct err *e)
{
	uint64_t phoff = get_le(buf + 0x20, 8);
	size_t phnum = (size_t)get_le(buf + 0x38, 2);
	const struct elfscan_section *str = &s->sec[s->shstrndx];

	if (get_le(buf + 0x3a, 2) != SHDR || (phnum &&
					       get_le(buf + 0x36, 2) != PHDR))
		return err_code_set(e, ERR_MALFORMED, "program or section "
				    "headers of an unusual size");
	if (phoff > len || phnum > (len - phoff) / PHDR)
		return err_code_set(e, ERR_TRUNCATED, "the program headers "
				    "run past the end of the file");
	if (get_le(buf + 0x3c, 2) != s->n || get_le(buf + 0x3e, 2) !=
	    s->shstrndx)
		return err_code_set(e, ERR_MALFORMED, "more sections than the "
				    "ELF header can count");
	if (s->n + 1 >= 0xff00 || phnum + 5 >= 0xffff)
		return err_code_set(e, ERR_MALFORMED, "too many sections or "
				    "segments to add one");
	if (!s->shstrndx || s->shstrndx >= s->n || str->type == SHT_NOBITS_ ||
	    str->size > SHSTRTAB_MAX)
		return err_code_set(e, ERR_MALFORMED, "no section name table "
				    "to add a name to");
	return 0;
}

/* Each wrapper's RELA relocation (the first, in section order, as the
 * splitter finds it), and no other that leads into .hip_fatbin: one pass
 * over every relocation. */
static int relocations(const uint8_t *buf, const struct elfscan *s,
		       struct kpack_host *h, struct err *e)
{
	uint64_t seg_end = h->seg_addr + h->nwrappers * WRAPPER;

	for (size_t i = 1; i < s->n; i++) {
		const struct elfscan_section *r = &s->sec[i];
		bool rela = r->type == SHT_RELA_;
		uint64_t ent = rela ? RELA : REL;

		if (r->type != SHT_RELA_ && r->type != SHT_REL_)
			continue;
		if ((r->entsize && r->entsize != ent) || r->size % ent)
			return err_code_set(e, ERR_MALFORMED, "relocation "
					    "section %zu is not whole "
					    "entries of %u bytes", i,
					    (unsigned)ent);
		for (uint64_t k = 0; k < r->size; k += ent) {
			const uint8_t *p = buf + r->offset + k;
			uint64_t at = get_le(p, 8), w = SIZE_MAX;
			uint64_t add = rela ? get_le(p + 16, 8) : 0;
			uint32_t type = (uint32_t)get_le(p + 8, 4);

			if (at >= h->seg_addr + 8 && at < seg_end &&
			    (at - h->seg_addr - 8) % WRAPPER == 0)
				w = (at - h->seg_addr - 8) / WRAPPER;
			if (w != SIZE_MAX && !rela)
				return err_code_set(e, ERR_OTHER, "wrapper "
						    "%llu: its pointer has a "
						    "REL relocation",
						    (unsigned long long)w);
			if (w != SIZE_MAX && h->rela[w] == UINT64_MAX) {
				if (!h->relative || type != h->relative)
					return err_code_set(e, ERR_OTHER,
						"wrapper %llu: its pointer "
						"is not relocated relative to "
						"the load address",
						(unsigned long long)w);
				h->rela[w] = r->offset + k;
				h->target[w] = add;
				continue;
			}
			if (rela && h->relative && type == h->relative &&
			    add >= h->fat_addr &&
			    add - h->fat_addr < h->fat_size)
				return err_code_set(e, ERR_OTHER, "a relocation "
						    "at 0x%llx points into "
						    ".hip_fatbin (not through "
						    "a wrapper)",
						    (unsigned long long)at);
		}
	}
	return 0;
}

int kpack_host_plan(const uint8_t *buf, size_t len, struct kpack_host *h,
		    struct err *e)
{
	const struct elfscan_section *fat, *seg;
	struct elfscan s;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	if (elfscan_open(&s, buf, len, e) < 0)
		return -1;
	h->relative = prune_relative_type(s.machine);
	if (!s.is64 || s.big_endian || (s.e_type != ET_EXEC_ &&
					 s.e_type != ET_DYN_)) {
		err_code_set(e, ERR_OTHER, "not a linked 64-bit little-endian "
			     "ELF file (an executable or shared library)");
		goto out;
	}
	if (check_headers(buf, len, &s, e) < 0)
		goto out;
	fat = elfscan_find(&s, SECTION_HIP_FATBIN);
	seg = elfscan_find(&s, SECTION_HIP_WRAPPERS);
	if (!fat || fat->type != SHT_PROGBITS_ || !(fat->flags & SHF_ALLOC_)) {
		err_code_set(e, ERR_NOTHING, ".hip_fatbin is %s", fat ?
			     "not allocated bytes of the file" : "missing");
		goto out;
	}
	if (!seg || seg->type != SHT_PROGBITS_ || seg->size % WRAPPER ||
	    !seg->size || seg->offset > len || seg->size > len - seg->offset) {
		err_code_set(e, ERR_MALFORMED, ".hipFatBinSegment is %s", !seg ?
			     "missing (no wrapper to point at the kpack "
			     "reference)" : "not whole wrappers in the file");
		goto out;
	}
	if (fat->offset > len || fat->size > len - fat->offset ||
	    fat->addr > UINT64_MAX - fat->size) {
		err_code_set(e, ERR_TRUNCATED, ".hip_fatbin runs past the end "
			     "of the file");
		goto out;
	}
	/* The splitter finds the wrappers through the program headers. */
	if (file_offset(buf, len, seg->addr, seg->size) != seg->offset) {
		err_code_set(e, ERR_MALFORMED, ".hipFatBinSegment is not "
			     "where a PT_LOAD maps its address");
		goto out;
	}
	h->fat_addr = fat->addr;
	h->fat_off = fat->offset;
	h->fat_size = fat->size;
	h->fat_index = fat->index;
	h->seg_off = seg->offset;
	h->seg_addr = seg->addr;
	h->nwrappers = (size_t)(seg->size / WRAPPER);
	if (!(h->target = calloc(h->nwrappers, sizeof(*h->target))) ||
	    !(h->rela = malloc(h->nwrappers * sizeof(*h->rela)))) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < h->nwrappers; i++) {
		const uint8_t *w = buf + seg->offset + i * WRAPPER;

		if (get_le(w, 4) != KPACK_HIPF) {
			err_code_set(e, ERR_MALFORMED, "wrapper %zu: magic "
				     "0x%08x, not HIPF", i,
				     (unsigned)get_le(w, 4));
			goto out;
		}
		h->rela[i] = UINT64_MAX;
		h->target[i] = get_le(w + 8, 8);
	}
	rc = relocations(buf, &s, h, e);
out:
	elfscan_free(&s);
	if (rc < 0)
		kpack_host_free(h);
	return rc;
}

struct surgery {
	struct kpack_image m;
	uint64_t phoff, shoff;
	struct elf64_phdr *ph;	/* what the file's table says now */
	size_t nph;
	struct elf64_shdr *sh;
	size_t nsh;
	struct err *e;
};

static int too_far(struct surgery *g)
{
	return err_code_set(g->e, ERR_MALFORMED, "addresses past the end of the "
			    "address space");
}

/* v rounded up to a multiple of a (a power of two); false on overflow. */
static bool round_up(uint64_t v, uint64_t a, uint64_t *r)
{
	if (v > UINT64_MAX - (a - 1))
		return false;
	*r = (v + a - 1) & ~(a - 1);
	return true;
}

/* The first page boundary past every PT_LOAD of ph (allocate_vaddr). */
static int next_vaddr(struct surgery *g, const struct elf64_phdr *ph, size_t n,
		      uint64_t *va)
{
	uint64_t end = 0;

	for (size_t i = 0; i < n; i++) {
		if (ph[i].type != PT_LOAD_)
			continue;
		if (ph[i].vaddr > UINT64_MAX - ph[i].memsz)
			return too_far(g);
		if (ph[i].vaddr + ph[i].memsz > end)
			end = ph[i].vaddr + ph[i].memsz;
	}
	return round_up(end, PAGE, va) ? 0 : too_far(g);
}

/* Zeros to the first offset at or past the end that is va's modulo a page
 * (page_align_offset); that offset in *off. */
static int pad_to(struct surgery *g, uint64_t va, uint64_t *off)
{
	uint64_t len = kpack_image_len(&g->m), want;

	want = (len & ~(uint64_t)(PAGE - 1)) + (va & (PAGE - 1));
	if (want < len)
		want += PAGE;
	*off = want;
	return kpack_image_append(&g->m, NULL, (size_t)(want - len), g->e);
}

static int write_shdr(struct surgery *g, size_t i)
{
	uint8_t b[SHDR];

	elf64_shdr_put(b, &g->sh[i]);
	return kpack_image_write(&g->m, g->shoff + i * SHDR, b, SHDR, g->e);
}

/* The program headers ph (n, owned: they become g->ph) written where the
 * table is when they fit before the first content after it (counted with
 * the segments of seen, as the splitter counts them), else at the end of
 * the file (ProgramHeaderManager.apply). */
static int phdrs_apply(struct surgery *g, struct elf64_phdr *ph, size_t n,
		       const struct elf64_phdr *seen, size_t nseen)
{
	uint64_t first = kpack_image_len(&g->m), off, va, cap;
	uint8_t b[PHDR];

	for (size_t i = 0; i < g->nsh; i++)
		if (g->sh[i].type && g->sh[i].offset > g->phoff &&
		    g->sh[i].offset < first)
			first = g->sh[i].offset;
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].type == PT_LOAD_ && seen[i].filesz &&
		    seen[i].offset > g->phoff && seen[i].offset < first)
			first = seen[i].offset;
	free(g->ph);
	g->ph = ph;
	g->nph = n;
	if (first >= g->phoff && (first - g->phoff) / PHDR >= n) {
		for (size_t i = 0; i < n; i++) {
			elf64_phdr_put(b, &ph[i]);
			if (kpack_image_write(&g->m, g->phoff + i * PHDR, b,
					      PHDR, g->e) < 0)
				return -1;
		}
		return 0;
	}
	if (next_vaddr(g, ph, n, &va) < 0 || pad_to(g, va, &off) < 0)
		return -1;
	cap = (n + 1 + SPARE - 1) / SPARE * SPARE;
	for (size_t i = 0; i < n; i++)
		if (ph[i].type == PT_PHDR_) {
			ph[i].offset = off;
			ph[i].vaddr = ph[i].paddr = va;
			ph[i].filesz = ph[i].memsz = cap * PHDR;
			break;
		}
	ph[n] = (struct elf64_phdr){ .type = PT_LOAD_, .flags = PF_R_,
		.offset = off, .vaddr = va, .paddr = va,
		.filesz = cap * PHDR, .memsz = cap * PHDR, .align = PAGE };
	g->nph = ++n;
	for (size_t i = 0; i < n; i++) {
		elf64_phdr_put(b, &ph[i]);
		if (kpack_image_append(&g->m, b, PHDR, g->e) < 0)
			return -1;
	}
	g->phoff = off;
	return kpack_image_append(&g->m, NULL, (size_t)((cap - n) * PHDR),
				  g->e);
}

/* g->ph and room for extra more, copied. */
static struct elf64_phdr *phdrs_copy(struct surgery *g, size_t extra)
{
	struct elf64_phdr *p = calloc(g->nph + extra, sizeof(*p));

	if (!p) {
		err_nomem(g->e);
		return NULL;
	}
	memcpy(p, g->ph, g->nph * sizeof(*p));
	return p;
}

/* Step 1 (add_section): the map, a .shstrtab with its name, every section
 * header, all after the end. */
static int add_section(struct surgery *g, const uint8_t *buf, size_t str,
		       const uint8_t *ref, size_t ref_len)
{
	static const char name[] = ".rocm_kpack_ref";
	struct elf64_shdr *sh = realloc(g->sh, (g->nsh + 1) * sizeof(*sh));
	uint64_t from;

	if (!sh)
		return err_nomem(g->e);
	g->sh = sh;
	if (sh[str].size > UINT32_MAX - sizeof(name))
		return err_code_set(g->e, ERR_MALFORMED, "the section name "
				    "table is too large");
	sh[g->nsh] = (struct elf64_shdr){ .name = (uint32_t)sh[str].size,
		.type = SHT_PROGBITS_, .offset = kpack_image_len(&g->m),
		.size = ref_len, .align = 1 };
	if (kpack_image_append(&g->m, ref, ref_len, g->e) < 0)
		return -1;
	from = sh[str].offset;
	sh[str].offset = kpack_image_len(&g->m);
	if (kpack_image_append(&g->m, buf + from, (size_t)sh[str].size,
			       g->e) < 0 ||
	    kpack_image_append(&g->m, name, sizeof(name), g->e) < 0)
		return -1;
	sh[str].size += sizeof(name);
	g->nsh++;
	g->shoff = kpack_image_len(&g->m);
	for (size_t i = 0; i < g->nsh; i++) {
		uint8_t b[SHDR];

		elf64_shdr_put(b, &sh[i]);
		if (kpack_image_append(&g->m, b, SHDR, g->e) < 0)
			return -1;
	}
	return 0;
}

/* Step 2 (map_section_to_load): the map's PT_LOAD; its address in *va. */
static int map_ref(struct surgery *g, const uint8_t *ref, size_t ref_len,
		   uint64_t *va)
{
	struct elf64_shdr *s = &g->sh[g->nsh - 1];
	uint64_t off = s->offset;
	struct elf64_phdr *ph;

	if (next_vaddr(g, g->ph, g->nph, va) < 0)
		return -1;
	if (off % PAGE != *va % PAGE &&
	    (pad_to(g, *va, &off) < 0 ||
	     kpack_image_append(&g->m, ref, ref_len, g->e) < 0))
		return -1;
	if (!(ph = phdrs_copy(g, 2)))
		return -1;
	ph[g->nph] = (struct elf64_phdr){ .type = PT_LOAD_, .flags = PF_R_,
		.offset = off, .vaddr = *va, .paddr = *va, .filesz = ref_len,
		.memsz = ref_len, .align = PAGE };
	{
		/* The splitter counts the content after the table with the
		 * segments it had. */
		struct elf64_phdr *seen = phdrs_copy(g, 0);
		int rc;

		if (!seen) {
			free(ph);
			return -1;
		}
		rc = phdrs_apply(g, ph, g->nph + 1, seen, g->nph);
		free(seen);
		if (rc < 0)
			return -1;
	}
	s = &g->sh[g->nsh - 1];
	s->flags |= SHF_ALLOC_;
	s->addr = *va;
	s->offset = off;
	return write_shdr(g, g->nsh - 1);
}

/* Step 3: each wrapper HIPK, its pointer the map's (its RELA relocation's
 * addend, the slot zero; the slot itself where there is no RELA
 * relocation), reserved1 its index. */
static int wrappers(struct surgery *g, const uint8_t *buf,
		    const struct kpack_host *h, uint64_t va)
{
	for (size_t i = 0; i < h->nwrappers; i++) {
		uint64_t w = h->seg_off + i * WRAPPER;
		uint8_t b[RELA];

		if (h->rela[i] != UINT64_MAX) {
			memcpy(b, buf + h->rela[i], 8);
			put_le(b + 8, h->relative, 8);
			put_le(b + 16, va, 8);
			if (kpack_image_write(&g->m, h->rela[i], b, RELA,
					      g->e) < 0)
				return -1;
		}
		put_le(b, KPACK_HIPK, 4);
		memcpy(b + 4, buf + w + 4, 4);
		put_le(b + 8, h->rela[i] != UINT64_MAX ? 0 : va, 8);
		put_le(b + 16, i, 8);
		if (kpack_image_write(&g->m, w, b, WRAPPER, g->e) < 0)
			return -1;
	}
	return 0;
}

/* The cut's granularity: a page, or the largest alignment of a PT_LOAD
 * when larger (0 when one is not a power of two: no cut). */
static uint64_t granule(const struct surgery *g)
{
	uint64_t a = PAGE;

	for (size_t i = 0; i < g->nph; i++) {
		uint64_t x = g->ph[i].align;

		if (g->ph[i].type != PT_LOAD_ || x <= a)
			continue;
		if (x & (x - 1))
			return 0;
		a = x;
	}
	return a;
}

/* Step 4 (conservative_zero_page): .hip_fatbin's whole pages cut out. */
static int zero_page(struct surgery *g, const struct kpack_host *h)
{
	struct elf64_shdr *fat = &g->sh[h->fat_index];
	uint64_t va = fat->addr, size = fat->size, end = va + size, off;
	uint64_t a = granule(g), lo, hi, cut;
	const struct elf64_phdr *t = NULL;
	struct elf64_phdr *ph;
	size_t n = 0;

	if (!a || !round_up(va, a, &lo))
		return 0;
	hi = end & ~(a - 1);
	if (lo >= hi)
		return 0;
	cut = hi - lo;
	if (end == hi)	/* a page left so that no two segments share an offset */
		cut -= a;
	if (!cut)
		return 0;
	off = fat->offset + (lo - va);
	for (size_t i = 0; i < g->nph && !t; i++)
		if (g->ph[i].type == PT_LOAD_ && g->ph[i].vaddr <= va &&
		    va - g->ph[i].vaddr < g->ph[i].memsz)
			t = &g->ph[i];
	if (!t || t->offset > UINT64_MAX - (va - t->vaddr) ||
	    t->offset + (va - t->vaddr) != fat->offset ||
	    t->offset > UINT64_MAX - t->filesz ||
	    fat->offset + size > t->offset + t->filesz)
		return err_code_set(g->e, ERR_MALFORMED, ".hip_fatbin is not "
				    "where a PT_LOAD maps its address");
	if (kpack_image_cut(&g->m, off, cut, g->e) < 0)
		return -1;
	if (!(ph = calloc(g->nph + 4, sizeof(*ph))))
		return err_nomem(g->e);
	if (g->phoff > off)
		g->phoff -= cut;
	if (g->shoff > off)
		g->shoff -= cut;
	for (size_t i = 0; i < g->nph; i++) {
		const struct elf64_phdr *p = &g->ph[i];
		struct elf64_phdr piece = *p;

		if (p != t) {
			if (piece.offset > off)
				piece.offset -= cut;
			ph[n++] = piece;
			continue;
		}
		if (p->vaddr < va) {	/* before */
			piece.vaddr = piece.paddr = p->vaddr;
			piece.memsz = va - p->vaddr;
			piece.offset = p->offset;
			piece.filesz = piece.memsz < p->filesz ? piece.memsz
							       : p->filesz;
			ph[n++] = piece;
		}
		if (va < lo) {		/* .hip_fatbin's first page */
			piece.vaddr = piece.paddr = va;
			piece.memsz = piece.filesz = lo - va;
			piece.offset = fat->offset;
			ph[n++] = piece;
		}
		piece.vaddr = piece.paddr = lo;	/* no file bytes */
		piece.memsz = end - lo;
		piece.offset = off;
		piece.filesz = 0;
		ph[n++] = piece;
		/* After; the splitter drops it when it has no file bytes,
		 * memory the segment had (bss) and we keep. */
		if (end - p->vaddr < p->memsz) {
			piece.vaddr = piece.paddr = end;
			piece.memsz = p->memsz - (end - p->vaddr);
			piece.offset = fat->offset + size - cut;
			piece.filesz = p->offset + p->filesz -
				       (fat->offset + size);
			ph[n++] = piece;
		}
	}
	if (phdrs_apply(g, ph, n, ph, n) < 0)
		return -1;
	for (size_t i = 0; i < g->nsh; i++) {
		struct elf64_shdr *s = &g->sh[i];

		if (i == h->fat_index)
			s->type = SHT_NOBITS_;
		else if (s->offset > off)
			s->offset -= cut;
		else
			continue;
		if (write_shdr(g, i) < 0)
			return -1;
	}
	return 0;
}

int kpack_host_write(const uint8_t *buf, size_t len,
		     const struct kpack_host *h, const uint8_t *ref,
		     size_t ref_len, struct io_out *out, struct err *e)
{
	struct surgery g = { .e = e };
	size_t phnum = (size_t)get_le(buf + 0x38, 2);
	size_t str = (size_t)get_le(buf + 0x3e, 2);
	uint64_t va;
	uint8_t ehdr[EHDR];
	int rc = -1;

	kpack_image_init(&g.m, buf, len);
	g.phoff = get_le(buf + 0x20, 8);
	g.shoff = get_le(buf + 0x28, 8);
	g.nph = phnum;
	g.nsh = (size_t)get_le(buf + 0x3c, 2);
	if (!(g.ph = calloc(phnum + 1, sizeof(*g.ph))) ||
	    !(g.sh = calloc(g.nsh, sizeof(*g.sh)))) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < phnum; i++)
		elf64_phdr_get(&g.ph[i], buf + g.phoff + i * PHDR);
	for (size_t i = 0; i < g.nsh; i++)
		elf64_shdr_get(&g.sh[i], buf + g.shoff + i * SHDR);
	if (add_section(&g, buf, str, ref, ref_len) < 0 ||
	    map_ref(&g, ref, ref_len, &va) < 0 ||
	    wrappers(&g, buf, h, va) < 0 || zero_page(&g, h) < 0)
		goto out;
	memcpy(ehdr, buf, EHDR);
	put_le(ehdr + 0x20, g.phoff, 8);
	put_le(ehdr + 0x28, g.shoff, 8);
	put_le(ehdr + 0x38, g.nph, 2);
	put_le(ehdr + 0x3c, g.nsh, 2);
	rc = kpack_image_write(&g.m, 0, ehdr, EHDR, e) < 0 ? -1 :
	     kpack_image_out(&g.m, out, e);
out:
	free(g.ph);
	free(g.sh);
	kpack_image_free(&g.m);
	return rc;
}
