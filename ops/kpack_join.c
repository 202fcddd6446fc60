/* kpack_join: undo what a kpack splitter did to a host binary (rocm-kpack's:
 * python/rocm_kpack/elf/kpack_transform.py, kpack_offload_binary; ours:
 * ops/kpack_host.c; spec: docs/multi_arch_packaging_with_kpack.md,
 * "Binary Conversion"), with the code objects its archives hold.
 *
 * What the splitters did, and what is undone:
 *   - .hip_fatbin's bytes were dropped.  rocm-kpack (and offload kpack
 *     split, ops/kpack_host.c) "zero-pages" it: the section NOBITS, its
 *     whole pages cut from the file, its PT_LOAD split into pieces (one
 *     with no file bytes); address, size and alignment stay.  Older
 *     versions of offload kpack split put .rocm_kpack_ref at its start and
 *     made the rest an unallocated NOBITS section (a hole, or cut out of
 *     the file, the program headers perhaps moved there).  Either way the
 *     range it had is known (struct region), and where each bundle was:
 *     one bundle per wrapper, in wrapper order, each at the section's
 *     alignment after the one before (the linker's concatenation of one
 *     .hip_fatbin per translation unit).  The bundles are made again:
 *     entries in clang's order (the host's, empty, then the devices' by
 *     bundle ID) at 4096-byte alignment (clang's HIP driver bundles with
 *     -bundle-align=4096), entry IDs the splitter's TOC metadata "target"
 *     (else hipv4-amdgcn-amd-amdhsa--<target>), the host's host-<triple>-
 *     from the ELF machine.  For every target of the original that makes
 *     the original .hip_fatbin byte for byte.  When they do not fit the
 *     range but their CCOBs do, the original's were compressed: CCOBs
 *     (clang's, byte for byte).  They go in that range where the file can
 *     take them there (enum place), else into a new segment.
 *   - each wrapper (.hipFatBinSegment, 24 bytes) became HIPK, its pointer
 *     aimed at .rocm_kpack_ref (the R_*_RELATIVE addend; the slot
 *     zeroed), its reserved1 the index of its code object (the "#<i>" of
 *     the TOC key, the i-th bundle).  It is HIPF again, reserved1 0, the
 *     pointer the address of bundle i: the RELATIVE addend when there is
 *     one, and the slot's bytes (what the linker writes there, and what
 *     a RELR-relocated or absolute pointer is).
 *   - .rocm_kpack_ref was added (rocm-kpack maps it with a PT_LOAD of its
 *     own).  It is dropped: a binary with it reads as split (offload ls,
 *     AMD's tools, whose splitter refuses to split it again), and what it
 *     says is no longer true.  Its section header goes (drop_header), its
 *     PT_LOAD becomes PT_NULL when it maps that section alone.
 * Everything else is the split binary's bytes.  64-bit little-endian
 * linked ELF files (the only HIP hosts there are).
 *
 * Here: the join and where its .hip_fatbin goes in the file; the code
 * objects and the .hip_fatbin made of them are kpack_join_code.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "kpack_find.h"
#include "kpack_join.h"
#include "kpack_join_code.h"
#include "kpack_join_impl.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../core/io_write.h"
#include "../formats/bundle.h"
#include "../formats/bundle_binary.h"
#include "../formats/ccob.h"
#include "../formats/kpack.h"
#include "../formats/kpack_ref.h"

static uint32_t relative_type(uint16_t machine)
{
	switch (machine) {
	case 62: return 8;		/* R_X86_64_RELATIVE */
	case 183: return 1027;		/* R_AARCH64_RELATIVE */
	case 21: return 22;		/* R_PPC64_RELATIVE */
	default: return 0;
	}
}

/* A file that is not an ELF file: what the table of host formats says
 * it is, as ls would. */
static int not_elf(const uint8_t *buf, size_t len, struct err *e)
{
	enum host_format f;

	if (!hosts_probe(buf, len, &f))
		return hosts_none(e);
	return err_code_set(e, ERR_MALFORMED, "not an ELF file (%s %s)",
			    hosts_get(f)->what ? "a" : "offload data:",
			    hosts_get(f)->what ? hosts_get(f)->what
					       : "a container");
}

/* Point the wrapper slot at address `at` (file offset off) to v. */
static int set_pointer(struct join *j, uint8_t *o, uint64_t at, uint64_t off,
		       uint64_t v)
{
	uint32_t rel = relative_type(j->s.machine);

	for (size_t i = 1; i < j->s.n; i++) {
		const struct elfscan_section *r = &j->s.sec[i];

		if (r->type != SHT_RELA_ || !(r->flags & SHF_ALLOC_))
			continue;
		for (uint64_t k = 0; k + 24 <= r->size; k += 24) {
			const uint8_t *x = j->buf + r->offset + k;

			if (get_le(x, 8) != at)
				continue;
			if ((get_le(x + 8, 8) & 0xffffffff) != rel || !rel)
				return err_code_set(j->e, ERR_MALFORMED, "the "
						    "wrapper pointer at 0x%llx "
						    "has a relocation of type "
						    "%llu, not RELATIVE",
						    (unsigned long long)at,
						    (unsigned long long)
						    (get_le(x + 8, 8) &
						     0xffffffff));
			put_le(o + r->offset + k + 16, v, 8);
		}
	}
	put_le(o + off, v, 8);
	return 0;
}

/* Where the original .hip_fatbin was (its address range and alignment):
 * the section's, when still allocated (the reference splitter keeps it,
 * NOBITS); when offload kpack split put .rocm_kpack_ref at its start, that
 * with the rest (an older split: the section allocated after it; now:
 * unallocated, its size the rest's), the alignment then clang's. */
struct region {
	uint64_t addr, size, align;
};

static int region_of(struct join *j, const struct elfscan_section *hf,
		     const struct elfscan_section *ref, struct region *r)
{
	bool ref_alloc = ref->flags & SHF_ALLOC_;

	r->addr = hf->addr;
	r->size = hf->size;
	r->align = hf->align;
	if (hf->flags & SHF_ALLOC_) {
		if (ref_alloc && ref->addr <= hf->addr &&
		    hf->addr - ref->addr == ref->size) {
			r->addr = ref->addr;
			r->size += ref->size;
			if (r->align <= 1)
				r->align = HIP_FATBIN_ALIGN;
		}
	} else if (ref_alloc && hf->type == SHT_NOBITS_) {
		r->addr = ref->addr;
		r->size = ref->size + hf->size;
		r->align = HIP_FATBIN_ALIGN;
		if (r->size < hf->size)
			return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: "
					    "%llu bytes, too many",
					    (unsigned long long)hf->size);
	} else {
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin is not "
				    "in memory, nor .rocm_kpack_ref where it "
				    "was: its place is not known");
	}
	if (!r->align)
		r->align = 1;
	if (r->align & (r->align - 1))
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: "
				    "alignment %llu is not a power of two",
				    (unsigned long long)r->align);
	if (r->align > HIP_FATBIN_ALIGN_MAX)
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: "
				    "alignment %llu is beyond %u",
				    (unsigned long long)r->align,
				    HIP_FATBIN_ALIGN_MAX);
	if (r->size > UINT64_MAX - r->addr)
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: its "
				    "%llu bytes at 0x%llx run past the address "
				    "space", (unsigned long long)r->size,
				    (unsigned long long)r->addr);
	return 0;
}

static bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an && a + an > a &&
	       b + bn > b;
}

/* The program headers, checked. */
struct phdrs {
	uint64_t off;
	size_t n;
};

/* Whether nothing but .hip_fatbin and .rocm_kpack_ref is in the range:
 * no other allocated section in memory, no program header table; when
 * file_len, no other section's bytes nor a header table in the file range
 * [file_off, +file_len). */
static bool clear(const struct join *j, const struct phdrs *ph,
		  const struct region *rg, uint64_t file_off,
		  uint64_t file_len)
{
	uint64_t shoff = get_le(j->buf + EHDR_SHOFF, 8);

	for (size_t k = 1; k < j->s.n; k++) {
		const struct elfscan_section *x = &j->s.sec[k];

		if (x->kind == SECTION_HIP_FATBIN ||
		    x->kind == SECTION_KPACK_REF)
			continue;
		if ((x->flags & SHF_ALLOC_) &&
		    overlap(x->addr, x->size, rg->addr, rg->size))
			return false;
		if (file_len && x->type != SHT_NOBITS_ &&
		    overlap(x->offset, x->size, file_off, file_len))
			return false;
	}
	for (size_t i = 0; i < ph->n; i++) {
		const uint8_t *p = j->buf + ph->off + i * PHDR;

		if (get_le(p, 4) == PT_PHDR_ &&
		    overlap(get_le(p + 16, 8), get_le(p + 40, 8), rg->addr,
			    rg->size))
			return false;
	}
	return !file_len ||
	       (!overlap(ph->off, ph->n * PHDR, file_off, file_len) &&
		!overlap(shoff, j->s.n * SHDR, file_off, file_len));
}

/* Where the bytes of .hip_fatbin go. */
enum place {
	IN_PLACE,	/* a segment has file bytes for the whole range */
	REPOINT,	/* the segments over parts of it lie inside it (the
			 * reference splitter's pieces): they map new bytes
			 * at the end of the file */
	NEW_SEGMENT,	/* elsewhere: a new PT_LOAD past the others, the
			 * program headers moved into it */
};

/* Whether PT_LOAD p, past the range, begins on a page (of page bytes)
 * that holds the range's end: the loader maps that whole page from p's
 * file bytes, over what the segments of the range map (the reference
 * splitter's piece after .hip_fatbin, whose page begins with the last
 * bytes of .hip_fatbin).  The addresses of the range it maps so in *sub,
 * their file offset in *fo. */
static bool shares_page(const uint8_t *p, const struct region *rg,
			uint64_t page,
			struct region *sub, uint64_t *fo)
{
	uint64_t va = get_le(p + 16, 8), off = get_le(p + 8, 8);
	uint64_t end = rg->addr + rg->size, from = va & ~(page - 1);

	if (get_le(p, 4) != PT_LOAD_ || va < end || from >= end)
		return false;
	if (from < rg->addr)
		from = rg->addr;
	sub->addr = from;
	sub->size = end - from;
	sub->align = 1;
	*fo = va - from <= off ? off - (va - from) : UINT64_MAX;
	return true;
}

/* Whether every page shares_page finds is bytes of the file that belong
 * to nothing else, to be written with the range's new bytes. */
static bool shared_clear(const struct join *j, const struct phdrs *ph,
			 const struct region *rg, uint64_t page)
{
	for (size_t i = 0; i < ph->n; i++) {
		struct region sub;
		uint64_t fo;

		if (!shares_page(j->buf + ph->off + i * PHDR, rg, page, &sub,
				 &fo))
			continue;
		if (fo > j->len || sub.size > j->len - fo ||
		    !clear(j, ph, &sub, fo, sub.size))
			return false;
	}
	return true;
}

/* Which, and for IN_PLACE the file offset of the range's start. */
static enum place choose(const struct join *j, const struct phdrs *ph,
			 const struct region *rg, bool in_room, uint64_t page,
			 uint64_t *at)
{
	uint64_t end = rg->addr + rg->size;
	bool inside = true;

	if (!in_room)
		return NEW_SEGMENT;
	for (size_t i = 0; i < ph->n; i++) {
		const uint8_t *p = j->buf + ph->off + i * PHDR;
		uint64_t off = get_le(p + 8, 8), va = get_le(p + 16, 8);
		uint64_t fs = get_le(p + 32, 8);

		if (get_le(p, 4) == PT_LOAD_ && va <= rg->addr &&
		    fs <= j->len && off <= j->len - fs &&
		    rg->addr - va <= fs && rg->size <= fs - (rg->addr - va) &&
		    clear(j, ph, rg, off + (rg->addr - va), rg->size)) {
			*at = off + (rg->addr - va);
			return IN_PLACE;
		}
	}
	for (size_t i = 0; i < ph->n; i++) {
		const uint8_t *p = j->buf + ph->off + i * PHDR;
		uint64_t va = get_le(p + 16, 8), mem = get_le(p + 40, 8);

		if (get_le(p, 4) == PT_LOAD_ && overlap(va, mem, rg->addr,
							rg->size) &&
		    (va < rg->addr || mem > end - va))
			inside = false;
	}
	return inside && clear(j, ph, rg, 0, 0) &&
	       shared_clear(j, ph, rg, page) ? REPOINT : NEW_SEGMENT;
}

/* The largest power-of-two alignment of the loadable segments (a page
 * at least), and where the highest one ends. */
static void loads(const struct join *j, const struct phdrs *ph,
		  uint64_t *page, uint64_t *top)
{
	*page = 4096;
	*top = 0;
	for (size_t i = 0; i < ph->n; i++) {
		const uint8_t *p = j->buf + ph->off + i * PHDR;
		uint64_t va = get_le(p + 16, 8), mem = get_le(p + 40, 8);
		uint64_t al = get_le(p + 48, 8);

		if (get_le(p, 4) != PT_LOAD_)
			continue;
		if (al > *page && !(al & (al - 1)) && al <= (1u << 30))
			*page = al;
		if (va + mem >= va && va + mem > *top)
			*top = va + mem;
	}
}

/* Section k's header taken out of the table at shoff in o: the ones
 * after it move down, and every index past it that the file holds goes
 * down by one (e_shstrndx, sh_link, the sh_info of relocation sections
 * and of SHF_INFO_LINK ones, symbols' st_shndx, group members). */
static void drop_header(const struct join *j, uint8_t *o, uint64_t shoff,
			size_t k)
{
	uint8_t *t = o + shoff;
	size_t n = j->s.n;
	uint64_t v;

	memmove(t + k * SHDR, t + (k + 1) * SHDR, (n - k - 1) * SHDR);
	memset(t + (n - 1) * SHDR, 0, SHDR);
	n--;
	if (get_le(o + EHDR_SHNUM, 2))
		put_le(o + EHDR_SHNUM, n, 2);
	else
		put_le(t + 32, n, 8);		/* extended: sh[0].sh_size */
	if ((v = get_le(o + EHDR_SHSTRNDX, 2)) == SHN_XINDEX_) {
		if ((v = get_le(t + 40, 4)) > k)
			put_le(t + 40, v - 1, 4);
	} else if (v > k && v < SHN_LORESERVE_) {
		put_le(o + EHDR_SHSTRNDX, v - 1, 2);
	}
	for (size_t i = 1; i < n; i++) {
		uint8_t *h = t + i * SHDR;
		uint32_t type = (uint32_t)get_le(h + 4, 4);
		uint64_t flags = get_le(h + 8, 8);
		uint64_t off = get_le(h + 24, 8), size = get_le(h + 32, 8);

		if ((v = get_le(h + 40, 4)) >= k)
			put_le(h + 40, v > k ? v - 1 : 0, 4);
		if ((type == SHT_RELA_ || type == SHT_REL_ ||
		     (flags & SHF_INFO_LINK_)) && (v = get_le(h + 44, 4)) > k)
			put_le(h + 44, v - 1, 4);
		/* (elfscan_open checked every section's bytes are in the
		 * file) */
		if (type == SHT_SYMTAB_ || type == SHT_DYNSYM_) {
			for (uint64_t at = 0; at + 24 <= size; at += 24) {
				v = get_le(o + off + at + 6, 2);
				if (v > k && v < SHN_LORESERVE_)
					put_le(o + off + at + 6, v - 1, 2);
			}
		} else if (type == SHT_SYMTAB_SHNDX_ || type == SHT_GROUP_) {
			for (uint64_t at = type == SHT_GROUP_ ? 4 : 0;
			     at + 4 <= size; at += 4)
				if ((v = get_le(o + off + at, 4)) > k)
					put_le(o + off + at, v - 1, 4);
		}
	}
}

/* The bytes of the fat binary, from the split one's, .hip_fatbin's
 * (fsize bytes at fat) placed as choose() says. */
static int rewrite(struct join *j, const struct region *rg, bool in_room,
		   const uint8_t *fat, uint64_t fsize, struct io_out *out)
{
	const struct elfscan_section *hf =
		elfscan_find(&j->s, SECTION_HIP_FATBIN);
	const struct elfscan_section *seg =
		elfscan_find(&j->s, SECTION_HIP_WRAPPERS);
	const struct elfscan_section *ref =
		elfscan_find(&j->s, SECTION_KPACK_REF);
	struct phdrs ph = { .off = get_le(j->buf + EHDR_PHOFF, 8),
			    .n = (size_t)get_le(j->buf + EHDR_PHNUM, 2) };
	uint64_t shoff = get_le(j->buf + EHDR_SHOFF, 8);
	uint64_t total = j->len, at = 0, addr = rg->addr, page, top;
	uint64_t newph = 0, tbl = 0, fo = 0;
	uint8_t *o = NULL, *sh, *pht;
	enum place where;
	int rc = -1;

	if (get_le(j->buf + EHDR_PHENTSIZE, 2) != PHDR ||
	    get_le(j->buf + EHDR_SHENTSIZE, 2) != SHDR || ph.off > j->len ||
	    ph.n > (j->len - ph.off) / PHDR)
		return err_code_set(j->e, ERR_MALFORMED, "program headers "
				    "run past the end of the file");
	if (!ph.n)
		return err_code_set(j->e, ERR_MALFORMED, "no program headers: "
				    "not a linked file");
	loads(j, &ph, &page, &top);
	where = choose(j, &ph, rg, in_room, page, &at);
	switch (where) {
	case IN_PLACE:
		break;
	case REPOINT:
		/* Past the end, congruent to the address. */
		at = j->len + ((rg->addr % page) - (j->len % page) + page) %
			      page;
		total = at + fsize;
		break;
	case NEW_SEGMENT:
		if (ph.n >= 0xfffe)
			return err_code_set(j->e, ERR_MALFORMED, "%zu program "
					    "headers: no room for one more",
					    ph.n);
		tbl = (ph.n + 1) * PHDR;
		fo = (tbl + rg->align - 1) / rg->align * rg->align;
		addr = (top + page - 1) / page * page;
		newph = (j->len + page - 1) / page * page;
		if (addr < top || newph < j->len || fsize > UINT64_MAX - fo ||
		    fo + fsize > UINT64_MAX - newph ||
		    fo + fsize > UINT64_MAX - addr)
			return err_code_set(j->e, ERR_MALFORMED, "no address "
					    "space left for .hip_fatbin");
		at = newph + fo;
		addr += fo;
		total = at + fsize;
		break;
	}
	if (total > SIZE_MAX || !(o = malloc(total ? (size_t)total : 1)))
		return err_nomem(j->e);
	memcpy(o, j->buf, j->len);
	memset(o + j->len, 0, total - j->len);
	memcpy(o + at, fat, fsize);
	pht = o + ph.off;
	switch (where) {
	case IN_PLACE:
		memset(o + at + fsize, 0, rg->size - fsize);
		break;
	case REPOINT:
		for (size_t i = 0; i < ph.n; i++) {
			uint8_t *p = pht + i * PHDR;
			uint64_t va = get_le(p + 16, 8), mem = get_le(p + 40, 8);
			uint64_t rel = va - rg->addr;

			if (get_le(p, 4) != PT_LOAD_ ||
			    !overlap(va, mem, rg->addr, rg->size))
				continue;
			put_le(p + 8, at + rel, 8);
			put_le(p + 32, fsize > rel ? (fsize - rel < mem ?
						      fsize - rel : mem) : 0, 8);
		}
		/* The pages a later segment maps over the range's end get
		 * the new bytes too (zeros past them). */
		for (size_t i = 0; i < ph.n; i++) {
			struct region sub;
			uint64_t sub_at;

			if (!shares_page(j->buf + ph.off + i * PHDR, rg, page,
					 &sub, &sub_at))
				continue;
			for (uint64_t k = 0; k < sub.size; k++) {
				uint64_t rel = sub.addr - rg->addr + k;

				o[sub_at + k] = rel < fsize ? fat[rel] : 0;
			}
		}
		break;
	case NEW_SEGMENT:
		/* The table, one more: PT_PHDR (if any) names it, the new
		 * PT_LOAD (highest, so last) maps it and the bundles. */
		pht = o + newph;
		memcpy(pht, j->buf + ph.off, ph.n * PHDR);
		for (size_t i = 0; i < ph.n; i++) {
			uint8_t *p = pht + i * PHDR;

			if (get_le(p, 4) != PT_PHDR_)
				continue;
			put_le(p + 8, newph, 8);
			put_le(p + 16, addr - fo, 8);
			put_le(p + 24, addr - fo, 8);
			put_le(p + 32, tbl, 8);
			put_le(p + 40, tbl, 8);
		}
		{
			uint8_t *p = pht + ph.n * PHDR;

			put_le(p, PT_LOAD_, 4);
			put_le(p + 4, PF_R_, 4);
			put_le(p + 8, newph, 8);
			put_le(p + 16, addr - fo, 8);
			put_le(p + 24, addr - fo, 8);
			put_le(p + 32, fo + fsize, 8);
			put_le(p + 40, fo + fsize, 8);
			put_le(p + 48, page, 8);
		}
		put_le(o + EHDR_PHOFF, newph, 8);
		put_le(o + EHDR_PHNUM, ph.n + 1, 2);
		break;
	}
	sh = o + shoff + (uint64_t)hf->index * SHDR;
	put_le(sh + 4, SHT_PROGBITS_, 4);
	put_le(sh + 8, get_le(sh + 8, 8) | SHF_ALLOC_, 8);
	put_le(sh + 16, addr, 8);
	put_le(sh + 24, at, 8);
	put_le(sh + 32, fsize, 8);
	put_le(sh + 48, rg->align, 8);
	for (size_t w = 0; w < j->nw; w++) {
		uint64_t off = seg->offset + w * WRAPPER;
		uint64_t v = addr + j->start[j->index[w]];

		put_le(o + off, KPACK_HIPF, 4);
		put_le(o + off + 16, 0, 8);
		if (set_pointer(j, o, seg->addr + w * WRAPPER + 8, off + 8, v) < 0)
			goto out;
	}
	/* .rocm_kpack_ref: its PT_LOAD when it maps it alone, its header. */
	if (ref->flags & SHF_ALLOC_) {
		size_t n = where == NEW_SEGMENT ? ph.n + 1 : ph.n;

		for (size_t i = 0; i < n; i++) {
			uint8_t *p = pht + i * PHDR;
			uint64_t va = get_le(p + 16, 8), mem = get_le(p + 40, 8);
			bool alone = get_le(p, 4) == PT_LOAD_ &&
				     va == ref->addr && mem == ref->size;

			for (size_t k = 1; alone && k < j->s.n; k++) {
				const struct elfscan_section *x = &j->s.sec[k];

				if (k != ref->index && k != hf->index &&
				    (x->flags & SHF_ALLOC_) &&
				    overlap(x->addr, x->size, va, mem))
					alone = false;
			}
			if (alone)
				put_le(p, PT_NULL_, 4);
		}
	}
	drop_header(j, o, shoff, ref->index);
	if (io_out_write(out, o, (size_t)total, j->e) < 0)
		goto out;
	rc = 0;
out:
	free(o);
	return rc;
}

int kpack_join(const char *path, const uint8_t *buf, size_t len,
	       struct select *sel, struct io_out *out,
	       struct kpack_join_stats *st, struct err *e)
{
	return kpack_join_in(path, buf, len, sel, NULL, 0, out, st, e);
}

int kpack_join_in(const char *path, const uint8_t *buf, size_t len,
		  struct select *sel, const struct kpack_find_alt *alt,
		  size_t nalt, struct io_out *out,
		  struct kpack_join_stats *st, struct err *e)
{
	struct join j = { .path = path, .buf = buf, .len = len, .e = e,
			  .f = { .path = path, .alt = alt, .nalt = nalt } };
	struct select all = { 0 };
	const struct elfscan_section *ref, *seg, *hf;
	uint8_t *fat = NULL;
	uint64_t fsize = 0;
	struct region rg;
	bool in_room;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (!sel)
		sel = &all;
	if (!hosts_is(buf, len, HOST_ELF))
		return not_elf(buf, len, e);
	if (elfscan_open(&j.s, buf, len, e) < 0)
		return -1;
	if (!j.s.is64 || j.s.big_endian) {
		err_code_set(e, ERR_MALFORMED, "not a 64-bit little-endian ELF "
			     "file");
		goto out;
	}
	ref = elfscan_find(&j.s, SECTION_KPACK_REF);
	seg = elfscan_find(&j.s, SECTION_HIP_WRAPPERS);
	hf = elfscan_find(&j.s, SECTION_HIP_FATBIN);
	if (!ref) {
		err_code_set(e, ERR_NOTHING, "not a kpack-split binary (no "
			     ".rocm_kpack_ref section)");
		goto out;
	}
	if (!seg || !hf) {
		err_code_set(e, ERR_MALFORMED, "no %s section",
			     seg ? ".hip_fatbin" : ".hipFatBinSegment");
		goto out;
	}
	if (ref->index == j.s.shstrndx || ref->type == SHT_NOBITS_ ||
	    kpack_ref_parse(buf + ref->offset, (size_t)ref->size, &j.f.ref,
			    e) < 0) {
		if (ref->index == j.s.shstrndx || ref->type == SHT_NOBITS_)
			err_code_set(e, ERR_MALFORMED, ".rocm_kpack_ref is not "
				     "a reference");
		goto out;
	}
	if (region_of(&j, hf, ref, &rg) < 0 || kpack_join_read_wrappers(&j, seg) < 0 ||
	    kpack_join_open_archives(&j) < 0 || kpack_join_pick_targets(&j, sel) < 0 ||
	    kpack_join_gather(&j) < 0 ||
	    kpack_join_make_fatbin(&j, rg.align, rg.size, &fat, &fsize, &in_room) < 0 ||
	    rewrite(&j, &rg, in_room, fat, fsize, out) < 0)
		goto out;
	st->bundles = j.nw;
	st->codes = j.nc;
	st->fatbin = fsize;
	rc = 0;
out:
	free(fat);
	for (size_t i = 0; i < j.nc; i++) {
		free(j.c[i].id);
		free(j.c[i].data);
	}
	free(j.c);
	free(j.targets);
	free(j.cand);
	free(j.from);
	free(j.index);
	free(j.start);
	kpack_find_close(&j.f);
	elfscan_free(&j.s);
	select_free(&all);
	return rc;
}
