/* kpack_host: a fat host binary rewritten as a kpack-split one; see
 * kpack_host.h.  Spec points relied on (ROCm/rocm-kpack,
 * docs/multi_arch_packaging_with_kpack.md, "Binary Conversion"):
 *   - the wrapper (24 bytes: u32 magic, u32 version, u64 binary, u64
 *     reserved1) gets the magic HIPK, its binary pointer the address of
 *     the .rocm_kpack_ref map in memory, reserved1 its index;
 *   - the map, {kpack_search_paths, kernel_name}, is read through that
 *     pointer by the runtime (kpack_load_code_object gets the pointer);
 *   - the .hip_fatbin bytes are not needed any more.
 * The splitter maps its new section with a new PT_LOAD and moves the
 * program headers; we put the map where .hip_fatbin began, in the
 * PT_LOAD that already holds it: the first pass (core/elfcopy,
 * llvm-objcopy's layout) only adds the section's name and header, the
 * second points that header at the map and makes .hip_fatbin NOBITS and
 * unallocated, then ops/elf_shrink cuts the whole pages its code held out
 * of the file (as prune does), or, where it cannot, they stay a hole. */
#include <stdlib.h>
#include <string.h>

#include "kpack_host.h"
#include "elf_shrink.h"
#include "prune_pointers.h"
#include "../core/bytes.h"
#include "../core/elfcopy.h"
#include "../core/elfscan.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/io_write.h"
#include "../core/sections.h"
#include "../formats/kpack_ref.h"

enum {
	SHT_PROGBITS_ = 1, SHT_RELA_ = 4, SHT_NOBITS_ = 8, SHT_REL_ = 9,
	SHF_ALLOC_ = 2, ET_EXEC_ = 2, ET_DYN_ = 3, WRAPPER = 24,
	SHDR = 64, RELA = 24,
};

void kpack_host_free(struct kpack_host *h)
{
	free(h->target);
	memset(h, 0, sizeof(*h));
}

/* The RELA relocation at address at: *addend_off its r_addend's file
 * offset, *type its type; 0 when there is none, -1 when a REL section
 * leaves the slot's meaning unknown. */
static int rela_at(const struct elfscan *s, const uint8_t *buf, size_t len,
		   uint64_t at, uint64_t *addend_off, uint32_t *type)
{
	for (size_t i = 1; i < s->n; i++) {
		const struct elfscan_section *r = &s->sec[i];

		if (!(r->flags & SHF_ALLOC_))
			continue;
		if (r->type == SHT_REL_)
			return -1;
		if (r->type != SHT_RELA_ || r->offset > len ||
		    r->size > len - r->offset)
			continue;
		for (uint64_t k = 0; k + RELA <= r->size; k += RELA) {
			const uint8_t *p = buf + r->offset + k;

			if (get_le(p, 8) == at) {
				*addend_off = r->offset + k + 16;
				*type = (uint32_t)get_le(p + 8, 4);
				return 1;
			}
		}
	}
	return 0;
}

int kpack_host_plan(const uint8_t *buf, size_t len, struct kpack_host *h,
		    struct err *e)
{
	const struct elfscan_section *fat, *seg;
	struct elfscan s;
	uint32_t relative;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	if (elfscan_open(&s, buf, len, e) < 0)
		return -1;
	relative = prune_relative_type(s.machine);
	if (!s.is64 || s.big_endian || (s.e_type != ET_EXEC_ &&
					 s.e_type != ET_DYN_)) {
		err_code_set(e, ERR_OTHER, "not a linked 64-bit little-endian "
			     "ELF file (an executable or shared library)");
		goto out;
	}
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
	if (fat->offset > len || fat->size > len - fat->offset) {
		err_code_set(e, ERR_TRUNCATED, ".hip_fatbin runs past the end "
			     "of the file");
		goto out;
	}
	h->fat_addr = fat->addr;
	h->fat_off = fat->offset;
	h->fat_size = fat->size;
	h->seg_off = seg->offset;
	h->seg_addr = seg->addr;
	h->nwrappers = (size_t)(seg->size / WRAPPER);
	if (!(h->target = calloc(h->nwrappers, sizeof(*h->target)))) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < h->nwrappers; i++) {
		const uint8_t *w = buf + seg->offset + i * WRAPPER;
		uint64_t slot = seg->addr + i * WRAPPER + 8, aoff;
		uint32_t type;
		int r;

		if (get_le(w, 4) != KPACK_HIPF) {
			err_code_set(e, ERR_MALFORMED, "wrapper %zu: magic "
				     "0x%08x, not HIPF", i,
				     (unsigned)get_le(w, 4));
			goto out;
		}
		r = rela_at(&s, buf, len, slot, &aoff, &type);
		if (r < 0 || (r > 0 && (!relative || type != relative))) {
			err_code_set(e, ERR_OTHER, "wrapper %zu: its pointer "
				     "is not relocated relative to the load "
				     "address", i);
			goto out;
		}
		h->target[i] = r ? get_le(buf + aoff, 8) : get_le(w + 8, 8);
	}
	rc = 0;
out:
	elfscan_free(&s);
	if (rc < 0)
		kpack_host_free(h);
	return rc;
}

/* The section header of index i in b (64-bit little endian). */
static const uint8_t *shdr(const uint8_t *b, size_t i)
{
	return b + get_le(b + 0x28, 8) + i * SHDR;
}

static int put_all(struct io_out *o, const uint8_t *p, uint64_t n,
		   struct err *e)
{
	return n ? io_out_write(o, p, (size_t)n, e) : 0;
}

/* The largest p_align of b's PT_LOADs (64-bit little endian), at least a
 * page. */
static uint64_t load_align(const uint8_t *b, size_t n)
{
	uint64_t phoff = get_le(b + 0x20, 8), a = 4096;
	size_t phnum = (size_t)get_le(b + 0x38, 2);

	for (size_t i = 0; i < phnum && phoff <= n && i < (n - phoff) / 56;
	     i++) {
		const uint8_t *p = b + phoff + i * 56;

		if (get_le(p, 4) == 1 && get_le(p + 48, 8) > a)
			a = get_le(p + 48, 8);
	}
	return a;
}

/* b[from, to) written to out, but what of it lies in [z, end) (the code
 * that was, in a page kept for the program headers) as zeros. */
static int put_kept(struct io_out *out, const uint8_t *b, uint64_t from,
		    uint64_t to, uint64_t z, uint64_t end, struct err *e)
{
	uint64_t a = from > z ? from : z, c = to < end ? to : end;

	if (a >= c)
		return put_all(out, b + from, to - from, e);
	return put_all(out, b + from, a - from, e) == 0 &&
	       io_out_hole(out, c - a, e) == 0 &&
	       put_all(out, b + c, to - c, e) == 0 ? 0 : -1;
}

/* b written to out, the whole pages .hip_fatbin's code held cut out where
 * elf_shrink finds it safe (its PT_LOAD split around them, what follows
 * moved down; the program header table after the ELF header when the file
 * has a symbol table, so that GNU strip keeps it loadable, else in the
 * freed bytes), else those bytes a hole. */
static int shrink(const uint8_t *b, size_t n, const struct kpack_host *h,
		  size_t ref_len, const struct elfscan *s, struct io_out *out,
		  struct err *e)
{
	uint64_t z = h->fat_off + ref_len, end = h->fat_off + h->fat_size;
	uint64_t a = load_align(b, n), lo = (z + a - 1) / a * a;
	uint64_t hi = end / a * a, pos = 0;
	struct elf_shrink sh = { 0 };
	bool symtab = false;
	int rc = 0;

	for (size_t i = 1; i < s->n; i++)
		symtab |= s->sec[i].type == 2;	/* SHT_SYMTAB */
	if (lo < hi) {
		struct elf_shrink_hole hole = { lo, hi - lo };

		rc = elf_shrink_plan(b, n, &hole, 1, NULL, 0, symtab ?
				     ELF_SHRINK_AFTER_EHDR : ELF_SHRINK_IN_CUT,
				     &sh, e);
	}
	if (rc < 0)
		return -1;
	if (rc == 0) {	/* not shrunk: the code's bytes a hole */
		elf_shrink_free(&sh);
		return put_all(out, b, z, e) == 0 &&
		       io_out_hole(out, end - z, e) == 0 &&
		       put_all(out, b + end, n - end, e) == 0 ? 0 : -1;
	}
	rc = 0;
	for (size_t i = 0; i < sh.n && rc == 0; i++) {
		const struct elf_shrink_edit *ed = &sh.edit[i];

		rc = put_kept(out, b, pos, ed->offset, z, end, e);
		if (rc == 0 && ed->kind == ELF_SHRINK_ZERO)
			rc = io_out_hole(out, ed->len, e);
		else if (rc == 0 && ed->kind == ELF_SHRINK_BYTES)
			rc = put_all(out, ed->bytes, ed->bytes_len, e);
		pos = ed->offset + ed->len;
	}
	if (rc == 0)
		rc = put_kept(out, b, pos, n, z, end, e);
	elf_shrink_free(&sh);
	return rc;
}

/* v, n bytes little endian, written over the scratch file at off (its
 * shared map sees it). */
static int patch(struct io_out *o, uint64_t off, uint64_t v, int n,
		 struct err *e)
{
	uint8_t b[8];

	put_le(b, v, n);
	return io_out_pwrite(o, b, (size_t)n, off, e);
}

static int zero(struct io_out *o, uint64_t from, uint64_t to, struct err *e)
{
	static const uint8_t z[1 << 16];

	while (from < to) {
		size_t k = to - from < sizeof(z) ? (size_t)(to - from)
						 : sizeof(z);

		if (io_out_pwrite(o, z, k, from, e) < 0)
			return -1;
		from += k;
	}
	return 0;
}

int kpack_host_write(const uint8_t *buf, size_t len,
		     const struct kpack_host *h, const uint8_t *ref,
		     size_t ref_len, struct io_out *out, struct err *e)
{
	static const uint8_t none;
	const struct elfcopy_add add = {
		.name = sections_name(SECTION_KPACK_REF), .data = &none,
		.size = 0,
		.type = SHT_PROGBITS_, .flags = 0, .align = 1,
	};
	struct io_out scratch = { .fd = -1 };
	const struct elfscan_section *fat, *refs;
	struct elfscan s = { 0 };
	struct io_in view;
	const uint8_t *b;
	size_t n = 0;
	int rc = -1;

	if (ref_len > h->fat_size)
		return err_code_set(e, ERR_OTHER, ".hip_fatbin (%llu bytes) "
				    "is too small for the kpack reference "
				    "(%zu bytes)",
				    (unsigned long long)h->fat_size, ref_len);
	/* The first pass, llvm-objcopy's layout with the section's header;
	 * the second in place, in the scratch file (no copy in memory). */
	if (io_scratch_open(&scratch, e) < 0 ||
	    elfcopy_write(buf, len, NULL, NULL, &add, 1, &scratch, e) < 0 ||
	    io_scratch_map(&scratch, &view, e) < 0)
		goto out;
	b = view.data;
	n = view.len;
	if (elfscan_open(&s, b, n, e) < 0)
		goto out;
	fat = elfscan_find(&s, SECTION_HIP_FATBIN);
	refs = elfscan_find(&s, SECTION_KPACK_REF);
	if (!fat || !refs || fat->offset != h->fat_off ||
	    fat->addr != h->fat_addr || h->seg_off > n ||
	    h->nwrappers * WRAPPER > n - h->seg_off || n < 0x40) {
		err_code_set(e, ERR_OTHER, "the sections moved when "
			     ".rocm_kpack_ref was added");
		goto out;
	}
	{
		uint64_t r = (uint64_t)(shdr(b, refs->index) - b);
		uint64_t f = (uint64_t)(shdr(b, fat->index) - b);
		uint64_t z = h->fat_off + ref_len, end = h->fat_off + h->fat_size;
		uint64_t a = load_align(b, n);
		uint64_t lo = (z + a - 1) / a * a, hi = end / a * a;

		/* The map where .hip_fatbin began, the rest of the page
		 * zeros (the whole pages are cut out, or a hole); the map's
		 * header says so.  .hip_fatbin: no bytes, and no memory:
		 * nothing reads it any more. */
		if (io_out_pwrite(&scratch, ref, ref_len, h->fat_off, e) < 0 ||
		    zero(&scratch, z, lo < end ? lo : end, e) < 0 ||
		    zero(&scratch, hi > z ? hi : z, end, e) < 0 ||
		    patch(&scratch, r + 4, SHT_PROGBITS_, 4, e) < 0 ||
		    patch(&scratch, r + 8, SHF_ALLOC_, 8, e) < 0 ||
		    patch(&scratch, r + 16, h->fat_addr, 8, e) < 0 ||
		    patch(&scratch, r + 24, h->fat_off, 8, e) < 0 ||
		    patch(&scratch, r + 32, ref_len, 8, e) < 0 ||
		    patch(&scratch, r + 48, 1, 8, e) < 0 ||
		    patch(&scratch, f + 4, SHT_NOBITS_, 4, e) < 0 ||
		    patch(&scratch, f + 8, 0, 8, e) < 0 ||
		    patch(&scratch, f + 16, 0, 8, e) < 0 ||
		    patch(&scratch, f + 24, z, 8, e) < 0 ||
		    patch(&scratch, f + 32, h->fat_size - ref_len, 8, e) < 0 ||
		    patch(&scratch, f + 48, 1, 8, e) < 0)
			goto out;
	}
	/* Each wrapper: HIPK, pointing at the map, reserved1 its index. */
	for (size_t i = 0; i < h->nwrappers; i++) {
		uint64_t w = h->seg_off + i * WRAPPER;
		uint64_t slot = h->seg_addr + i * WRAPPER + 8, aoff;
		uint32_t type;
		bool stored = get_le(b + w + 8, 8) == h->target[i];

		if (patch(&scratch, w, KPACK_HIPK, 4, e) < 0 ||
		    patch(&scratch, w + 16, i, 8, e) < 0)
			goto out;
		if (rela_at(&s, b, n, slot, &aoff, &type) > 0) {
			if (patch(&scratch, aoff, h->fat_addr, 8, e) < 0 ||
			    /* The slot too, where the linker wrote the value. */
			    (stored && patch(&scratch, w + 8, h->fat_addr, 8,
					     e) < 0))
				goto out;
		} else if (patch(&scratch, w + 8, h->fat_addr, 8, e) < 0) {
			goto out;
		}
	}
	/* No other pointer may lead into the code that is gone. */
	for (size_t i = 1; i < s.n; i++) {
		const struct elfscan_section *r = &s.sec[i];

		if (r->type != SHT_RELA_ || !(r->flags & SHF_ALLOC_) ||
		    r->offset > n || r->size > n - r->offset)
			continue;
		for (uint64_t k = 0; k + RELA <= r->size; k += RELA) {
			const uint8_t *p = b + r->offset + k;
			uint64_t a = get_le(p + 16, 8);

			if (a >= h->fat_addr + ref_len &&
			    a < h->fat_addr + h->fat_size &&
			    (uint32_t)get_le(p + 8, 4) ==
			    prune_relative_type(s.machine)) {
				err_code_set(e, ERR_OTHER, "a relocation at "
					     "0x%llx points into .hip_fatbin "
					     "(not through a wrapper)",
					     (unsigned long long)get_le(p, 8));
				goto out;
			}
		}
	}
	rc = shrink(b, n, h, ref_len, &s, out, e);
out:
	elfscan_free(&s);
	io_out_discard(&scratch);
	return rc;
}
