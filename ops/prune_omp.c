/* prune_omp: packages in a linked OpenMP program or library.  The offload
 * runtime (libomptarget) is handed one __tgt_bin_desc by the constructor
 * the linker wrapper writes:
 *
 *   __tgt_bin_desc      i32 NumDeviceImages (padded to 8), then pointers
 *                       DeviceImages, HostEntriesBegin, HostEntriesEnd
 *   __tgt_device_image  pointers ImageStart, ImageEnd, EntriesBegin,
 *                       EntriesEnd, one per image, in an array
 *
 * each ImageStart/ImageEnd pointing at an image inside a package of
 * .llvm.offloading (LLVM 22 points at the code object inside the package;
 * a runtime also takes a pointer at the package itself).  The runtime reads
 * NumDeviceImages entries and offers each image to its plugins.  So the
 * floor here: the kept images' entries move to the front of the array (in
 * their order), NumDeviceImages becomes their count, and the dropped
 * packages become zeros; every address stays where it was.  The pointers
 * are relocated at load time: in a position-independent file each is a
 * RELATIVE relocation whose addend is the value (rewritten there), with
 * RELR or in a fixed-address file the value is in the slot itself.  The
 * table is found by its values, and must be found exactly once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/package.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_omp.h"
#include "prune_pointers.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

enum { SHT_PROGBITS_ = 1, SHT_RELA_ = 4, SHT_REL_ = 9, SHT_RELR_ = 19,
       SHF_ALLOC_ = 2,
       SHF_EXECINSTR_ = 4 };

struct image {
	uint64_t start, end;	/* addresses ImageStart, ImageEnd may hold */
	uint64_t pstart, pend;	/* the package's, for a pointer at it */
	uint64_t bin_off, bin_size;	/* its package in the file */
	uint64_t delta;		/* how far down its package moves */
	bool kept;
};

/* Which image, if any, an entry at address at describes. */
static long entry_image(const struct prune_table *t, const struct image *im,
			size_t n, uint64_t at)
{
	uint64_t a, b;

	if (!prune_value_at(t, at, &a) || !prune_value_at(t, at + 8, &b))
		return -1;
	for (size_t j = 0; j < n; j++)
		if ((a == im[j].start && b == im[j].end) ||
		    (a == im[j].pstart && b == im[j].pend))
			return (long)j;
	return -1;
}

/* Every address an 8-byte pointer of the file may sit at that holds v
 * once relocated, passed to each; stops at the first nonzero return. */
static int each_pointer_to(const struct prune_table *t, uint64_t v,
			   int (*each)(void *, uint64_t), void *ctx)
{
	int rc;

	for (size_t i = 0; i < t->nrel; i++)
		if (t->rel[i].relative && t->rel[i].addend == v &&
		    (rc = each(ctx, t->rel[i].at)))
			return rc;
	for (size_t i = 1; i < t->s->n; i++) {
		const struct elfscan_section *sec = &t->s->sec[i];

		/* Data only: code holds no table (and is most of a large
		 * library). */
		if (!(sec->flags & SHF_ALLOC_) || (sec->flags & SHF_EXECINSTR_) ||
		    sec->type != SHT_PROGBITS_ || sec->addr % 8)
			continue;
		for (uint64_t k = 0; k + 8 <= sec->size; k += 8)
			if (get_le(t->buf + sec->offset + k, 8) == v &&
			    !prune_reloc_at(t, sec->addr + k) &&
			    (rc = each(ctx, sec->addr + k)))
				return rc;
	}
	return 0;
}

struct find {
	const struct prune_table *t;
	const struct image *im;
	size_t n;
	uint64_t found;		/* the array's or the descriptor's address */
	size_t hits;
};

/* An array of n entries starting at at, one for every image. */
static int try_array(void *ctx, uint64_t at)
{
	struct find *f = ctx;
	bool *seen = calloc(f->n, sizeof(*seen));
	size_t k;

	if (!seen)
		return -1;
	for (k = 0; k < f->n; k++) {
		long j = entry_image(f->t, f->im, f->n, at + 32 * k);

		if (j < 0 || seen[j])
			break;
		seen[j] = true;
	}
	free(seen);
	if (k == f->n && (!f->hits || f->found != at)) {
		f->found = at;
		f->hits++;
	}
	return 0;
}

/* A descriptor: NumDeviceImages (n), then the pointer at (at + 8). */
static int try_desc(void *ctx, uint64_t at)
{
	struct find *f = ctx;
	uint64_t off = at < 8 ? UINT64_MAX : prune_file_offset(f->t, at - 8);

	if (off == UINT64_MAX || get_le(f->t->buf + off, 4) != f->n)
		return 0;
	f->found = at - 8;
	f->hits++;
	return 0;
}

/* The array (the entry for an image) and the descriptor pointing at it,
 * each found exactly once. */
static int find_table(struct pruner *p, const struct prune_table *t,
		      const struct image *im, size_t n, uint64_t *array,
		      uint64_t *desc)
{
	struct find f = { .t = t, .im = im, .n = n };

	if (n > 64)
		return err_set(p->e, "more than 64 images: not rewritten");
	for (size_t j = 0; j < n; j++) {
		if (each_pointer_to(t, im[j].start, try_array, &f) < 0 ||
		    each_pointer_to(t, im[j].pstart, try_array, &f) < 0)
			return err_nomem(p->e);
	}
	if (f.hits != 1)
		return err_set(p->e, "the OpenMP runtime's image table was "
			       "found %zu times, not once: not pruned", f.hits);
	*array = f.found;
	f.hits = 0;
	if (each_pointer_to(t, *array, try_desc, &f) < 0)
		return err_nomem(p->e);
	if (f.hits != 1)
		return err_set(p->e, "the OpenMP runtime's image descriptor "
			       "was found %zu times, not once: not pruned",
			       f.hits);
	*desc = f.found;
	return 0;
}

/* The kept images' entries moved to the front (in the array's order),
 * their image pointers moved down with their packages (delta); when the
 * packages were packed, the entries past the count point at nothing (0):
 * the runtime never reads them, and they must not point into bytes that
 * are cut out. */
static int rewrite_table(struct pruner *p, const struct prune_table *t,
			 const struct image *im, size_t n, uint64_t array,
			 uint64_t desc, bool packed)
{
	uint64_t values[64][4];
	size_t kept = 0, order[64];

	for (size_t k = 0; k < n; k++) {
		long j = entry_image(t, im, n, array + 32 * k);

		if (j < 0)
			return err_set(p->e, "the image table changed under us");
		for (int m = 0; m < 4; m++)
			if (!prune_value_at(t, array + 32 * k + 8 * m,
				      &values[k][m]))
				return err_set(p->e, "an image table entry "
					       "holds a pointer not known "
					       "before the program runs");
		if (im[j].kept) {
			order[kept++] = k;
			values[k][0] -= im[j].delta;
			values[k][1] -= im[j].delta;
		}
	}
	for (size_t k = 0; k < n; k++)
		for (int m = 0; m < 4; m++) {
			uint64_t v = k < kept ? values[order[k]][m]
					      : m < 2 ? 0 : values[k][m];
			uint64_t was;

			if ((k < kept || packed) &&
			    (!prune_value_at(t, array + 32 * k + 8 * m, &was) ||
			     was != v) &&
			    prune_set_pointer(p, t, array + 32 * k + 8 * m, v) < 0)
				return -1;
		}
	return prune_add_word(p, prune_file_offset(t, desc), kept, 4);
}

/* ---- packing: the kept packages moved to the section's start ---- */

struct stray {
	uint64_t array, n;	/* the table: n entries at array */
	bool found;		/* a pointer elsewhere */
};

static int not_in_table(void *ctx, uint64_t at)
{
	struct stray *st = ctx;

	if (at < st->array || at - st->array >= 32 * st->n ||
	    (at - st->array) % 32 >= 16)
		st->found = true;
	return 0;
}

/* What relr_slot looks for: a word holding an address in [lo, hi). */
struct relr_look {
	const struct prune_table *t;
	uint64_t lo, hi;
	struct stray *st;
};

static bool relr_slot(void *ctx, uint64_t at)
{
	struct relr_look *l = ctx;
	uint64_t v;

	if (prune_value_at(l->t, at, &v) && v >= l->lo && v < l->hi)
		not_in_table(l->st, at);
	return l->st->found;
}

/* Every word that is a pointer as it stands and holds an address in
 * [lo, hi) passed to not_in_table: in a file at a fixed address (ET_EXEC)
 * every word of the data, in a position-independent one the words RELR
 * relocates (the value in place; RELA's are the relocations'). */
static void raw_pointers_into(const struct prune_table *t, uint64_t lo,
			      uint64_t hi, struct stray *st)
{
	for (size_t i = 1; i < t->s->n && !st->found; i++) {
		const struct elfscan_section *sec = &t->s->sec[i];
		const uint8_t *b = t->buf + sec->offset;
		struct relr_look look = { t, lo, hi, st };

		if (t->s->e_type == 2 /* ET_EXEC */ &&
		    (sec->flags & SHF_ALLOC_) &&
		    !(sec->flags & SHF_EXECINSTR_) &&
		    sec->type == SHT_PROGBITS_ && !(sec->addr % 8))
			for (uint64_t k = 0; k + 8 <= sec->size; k += 8) {
				uint64_t v = get_le(b + k, 8);

				if (v >= lo && v < hi)
					not_in_table(st, sec->addr + k);
			}
		if (sec->type == SHT_RELR_ && sec->entsize == 8)
			elfscan_relr_each(b, sec->size / 8, relr_slot, &look);
	}
}

/* Why the packages may not move (NULL: they may).  The table's image
 * pointers are rewritten: any other pointer into the section (a
 * relocation, a word in the data holding a package's or an image's
 * bounds, or any address in the section where a word is a pointer as it
 * stands, a dynamic symbol) would be left behind. */
static const char *pack_refusal(const struct prune_table *t,
				const struct elfscan_section *sec,
				const struct image *im, size_t n,
				uint64_t array)
{
	struct stray st = { .array = array, .n = n };
	uint64_t from = sec->addr;

	/* A pointer at the section's start is the end of a section ending
	 * there (the offload entries, in a program at a fixed address), when
	 * one does: it stays. */
	for (size_t i = 1; i < t->s->n; i++)
		if ((t->s->sec[i].flags & SHF_ALLOC_) && t->s->sec[i].size &&
		    t->s->sec[i].addr + t->s->sec[i].size == sec->addr)
			from = sec->addr + 1;
	const uint8_t *bytes = t->buf + sec->offset;
	uint64_t pos = 0;
	size_t k = 0;

	for (size_t j = 1; j < n; j++)
		if (im[j].bin_off < im[j - 1].bin_off + im[j - 1].bin_size)
			return "two images share a package";
	/* Nothing but the images' packages and zero padding moves. */
	while (pos < sec->size) {
		if (k < n && im[k].bin_off - sec->offset == pos) {
			pos += im[k++].bin_size;
			continue;
		}
		if (sec->size - pos < 8 || get_le(bytes + pos, 8))
			return ".llvm.offloading holds more than packages";
		pos += 8;
	}
	/* (A pointer at the section's end is the next section's: it
	 * stays.) */
	for (size_t i = 0; i < t->nrel; i++)
		if (t->rel[i].relative && t->rel[i].addend >= from &&
		    t->rel[i].addend - sec->addr < sec->size)
			not_in_table(&st, t->rel[i].at);
	raw_pointers_into(t, from, sec->addr + sec->size, &st);
	for (size_t j = 0; j < n && !st.found; j++) {
		uint64_t v[4] = { im[j].start, im[j].end, im[j].pstart,
				  im[j].pend };

		for (int m = 0; m < 4; m++)
			if (v[m] >= from && v[m] - sec->addr < sec->size)
				each_pointer_to(t, v[m], not_in_table, &st);
	}
	if (st.found)
		return "something besides the image table points into "
		       ".llvm.offloading";
	for (size_t i = 1; i < t->s->n; i++) {
		const struct elfscan_section *d = &t->s->sec[i];

		if (d->type != 11 /* SHT_DYNSYM */ || d->entsize != 24)
			continue;
		for (uint64_t o = 24; o + 24 <= d->size; o += 24)
			if (get_le(t->buf + d->offset + o + 6, 2) == sec->index)
				return "a dynamic symbol is defined in "
				       ".llvm.offloading";
	}
	return NULL;
}

/* The kept packages packed at the section's start, each at the same
 * address modulo the section's alignment (at least 8, at most a page):
 * its delta, and the section's new size in *packed. */
static void pack(const struct elfscan_section *sec, struct image *im,
		 size_t n, uint64_t *packed)
{
	uint64_t align = 8, at = 0;

	while (align < sec->align && align < 4096)
		align *= 2;
	for (size_t j = 0; j < n; j++) {
		uint64_t old = im[j].bin_off - sec->offset, to;

		if (!im[j].kept)
			continue;
		to = at + ((old - at) & (align - 1));
		im[j].delta = old - to;
		at = to + im[j].bin_size;
	}
	*packed = at;
}

/* The symbols of .symtab in the section follow: into a kept package, by
 * its delta; elsewhere past the packed bytes, to the section's new end,
 * with no size (section symbols stay). */
static int move_symbols(struct pruner *p, const struct prune_table *t,
			const struct elfscan_section *sec,
			const struct image *im, size_t n, uint64_t packed)
{
	for (size_t i = 1; i < t->s->n; i++) {
		const struct elfscan_section *y = &t->s->sec[i];

		if (y->type != 2 /* SHT_SYMTAB */ || y->entsize != 24)
			continue;
		for (uint64_t o = 24; o + 24 <= y->size; o += 24) {
			const uint8_t *sym = t->buf + y->offset + o;
			uint64_t v = get_le(sym + 8, 8), to;
			size_t j;
			bool gone;

			if (get_le(sym + 6, 2) != sec->index ||
			    (sym[4] & 0xf) == 3 /* STT_SECTION */)
				continue;
			for (j = 0; j < n; j++)
				if (v >= im[j].pstart && v < im[j].pend)
					break;
			gone = j < n ? !im[j].kept : v - sec->addr > packed;
			to = gone ? sec->addr + packed
				  : j < n ? v - im[j].delta : v;
			if (to != v && prune_add_word(p, y->offset + o + 8, to, 8) < 0)
				return -1;
			if (gone && get_le(sym + 16, 8) &&
			    prune_add_word(p, y->offset + o + 16, 0, 8) < 0)
				return -1;
		}
	}
	return 0;
}

/* The section's bytes: the kept packages at their new places, zeros
 * after them; its header's size the packed bytes (a plan's trim). */
static int write_packed(struct pruner *p, const uint8_t *buf,
			const struct elfscan_section *sec,
			const struct image *im, size_t n, uint64_t packed)
{
	struct prune_patch pt = { .offset = sec->offset,
				  .old_size = sec->size, .new_size = packed,
				  .in_place = true };
	struct prune_trim *grown;
	uint64_t at = 0, hdr = get_le(buf + 40, 8) + 64 * (uint64_t)sec->index;

	pt.piece = calloc(n ? n : 1, sizeof(*pt.piece));
	if (!pt.piece)
		return err_nomem(p->e);
	for (size_t j = 0; j < n; j++) {
		uint64_t to = im[j].bin_off - sec->offset - im[j].delta;

		if (!im[j].kept)
			continue;
		pt.piece[pt.npieces++] = (struct prune_piece){
			.pad = to - at, .data = buf + im[j].bin_off,
			.data_len = im[j].bin_size, .src = im[j].bin_off,
			.from_file = true,
		};
		at = to + im[j].bin_size;
	}
	if (prune_add_patch(p->plan, &pt, p->e) < 0) {
		prune_patch_free(&pt);
		return -1;
	}
	grown = realloc(p->plan->trim, (p->plan->ntrim + 1) * sizeof(*grown));
	if (!grown)
		return err_nomem(p->e);
	p->plan->trim = grown;
	grown[p->plan->ntrim++] = (struct prune_trim){ sec->index, hdr + 32,
							 true };
	return prune_add_word(p, hdr + 32, packed, 8);
}

int prune_linked_packages(struct pruner *p, const struct elfscan *s,
			  const uint8_t *buf, size_t i)
{
	const struct elfscan_section *sec = &s->sec[i];
	const struct package_limits lim = {
		.max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
		.max_size = PACKAGE_DEFAULT_MAX_SIZE };
	struct package_list l = { 0 };
	struct prune_table t = { .s = s, .buf = buf };
	struct image *im = NULL;
	size_t nkept = 0;
	uint64_t size, array = 0, desc = 0, packed = 0;
	const uint8_t *bytes = elfscan_bytes(s, buf, i, &size);
	const char *refused;
	int rc = -1;

	if (!s->is64 || s->big_endian || !prune_relative_type(s->machine))
		return err_set(p->e, "packages in a linked program are pruned "
			       "for 64-bit little-endian x86-64, AArch64, "
			       "PowerPC64 and RISC-V files only");
	if (package_scan(bytes, (size_t)size, &lim, &l, p->e) < 0)
		goto out;
	im = calloc(l.n ? l.n : 1, sizeof(*im));
	if (!im) {
		err_nomem(p->e);
		goto out;
	}
	for (size_t j = 0; j < l.n; j++) {
		const struct package_image *img = &l.v[j];
		uint64_t span = prune_package_span(bytes + img->binary_offset,
						   (size_t)(size -
							    img->binary_offset));
		int keep = prune_decide_image(p, img, sec->offset);

		if (keep < 0)
			goto out;
		im[j] = (struct image){
			.start = sec->addr + img->image_offset,
			.end = sec->addr + img->image_offset + img->image_size,
			.pstart = sec->addr + img->binary_offset,
			.pend = sec->addr + img->binary_offset +
				get_le(bytes + img->binary_offset + 8, 8),
			.bin_off = sec->offset + img->binary_offset,
			.bin_size = span,
		};
		/* An image inflated from a compressed package has no
		 * address of its own: a runtime is pointed at the package. */
		if (img->inflated) {
			im[j].start = im[j].pstart;
			im[j].end = im[j].pend;
		}
		im[j].kept = keep;
		nkept += im[j].kept;
	}
	if (l.n && !nkept)
		p->plan->containers_emptied++;
	rc = 0;
	if (nkept == l.n)
		goto out;
	rc = -1;
	/* The linker wrapper writes one image a package: a package of
	 * several (LLVM 23's version 2 or later) goes or stays whole. */
	for (size_t j = 1; j < l.n; j++)
		if (im[j].bin_off == im[j - 1].bin_off &&
		    im[j].kept != im[j - 1].kept) {
			err_set(p->e, "the package at offset %llu holds images "
				"kept and dropped: in a linked file it is not "
				"written again", (unsigned long long)
				im[j].bin_off);
			goto out;
		}
	if (prune_read_relocs(p, &t) < 0)
		goto out;
	if (t.rel_only) {
		err_set(p->e, "dynamic relocations without addends (SHT_REL) "
			"are not rewritten");
		goto out;
	}
	if (t.twice) {
		err_set(p->e, "two dynamic relocations at address 0x%llx",
			(unsigned long long)t.twice);
		goto out;
	}
	if (find_table(p, &t, im, l.n, &array, &desc) < 0)
		goto out;
	refused = pack_refusal(&t, sec, im, l.n, array);
	if (!refused)
		pack(sec, im, l.n, &packed);
	if (rewrite_table(p, &t, im, l.n, array, desc, !refused) < 0)
		goto out;
	if (!refused) {
		if (move_symbols(p, &t, sec, im, l.n, packed) < 0 ||
		    write_packed(p, buf, sec, im, l.n, packed) < 0)
			goto out;
		rc = 0;
		goto out;
	}
	p->plan->unpacked = refused;
	/* The dropped packages: zeros (holes where whole pages fall). */
	for (size_t j = 0; j < l.n; j++) {
		struct prune_patch pt = { .offset = im[j].bin_off,
					  .old_size = im[j].bin_size,
					  .in_place = true };

		if (!im[j].kept && (!j || im[j].bin_off != im[j - 1].bin_off) &&
		    prune_add_patch(p->plan, &pt, p->e) < 0)
			goto out;
	}
	rc = 0;
out:
	free(t.rel);
	free(im);
	package_list_free(&l);
	return rc;
}
