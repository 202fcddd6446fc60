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

#include "../formats/coff.h"
#include "../formats/package.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_omp.h"
#include "prune_pointers.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"
#include "../core/sections.h"

enum { SHT_PROGBITS_ = 1, SHT_RELA_ = 4, SHT_REL_ = 9, SHT_RELR_ = 19,
       SHF_ALLOC_ = 2,
       SHF_EXECINSTR_ = 4 };

struct image {
	uint64_t start, end;	/* addresses ImageStart, ImageEnd may hold */
	uint64_t pstart, pend;	/* the package's, for a pointer at it */
	uint64_t size;
	uint64_t new_off;	/* its offset in its package once pruned */
	size_t pkg;		/* its package */
	bool kept;
	bool inflated;		/* only its package has an address */
};

/* A package (binary) of the section, with the images im[first, first +
 * n).  One whose images all stay is copied, one whose images all go is
 * dropped, and one of several images (version 2 or 3) that keeps some is
 * written again with them (again). */
struct pkg {
	uint64_t off, span;	/* in the file, its padding included */
	uint64_t addr;
	size_t first, n, nkept;
	uint8_t *again;		/* its bytes written again, or NULL */
	uint64_t new_span, new_size;	/* once pruned: bytes, size field */
	uint64_t delta;		/* how far down it moves */
};

/* Which image, if any, an entry at address at describes; *whole when it
 * points at the image's package. */
static long entry_image(const struct prune_table *t, const struct image *im,
			size_t n, uint64_t at, bool *whole)
{
	uint64_t a, b;

	if (!prune_value_at(t, at, &a) || !prune_value_at(t, at + 8, &b))
		return -1;
	for (size_t j = 0; j < n; j++)
		if ((a == im[j].start && b == im[j].end) ||
		    (a == im[j].pstart && b == im[j].pend)) {
			*whole = !(a == im[j].start && b == im[j].end);
			return (long)j;
		}
	return -1;
}

/* The bounds an entry for image m holds once pruned: its image's where
 * its package went, or the package's (whole, or an inflated image). */
static void new_bounds(const struct image *m, const struct pkg *pk,
		       bool whole, uint64_t *a, uint64_t *b)
{
	const struct pkg *k = &pk[m->pkg];
	uint64_t at = k->addr - k->delta;

	if (whole || m->inflated) {
		*a = at;
		*b = at + k->new_size;
	} else {
		*a = at + m->new_off;
		*b = *a + m->size;
	}
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
		bool whole;
		long j = entry_image(f->t, f->im, f->n, at + 32 * k, &whole);

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
 * their image pointers where their images went (their packages moved
 * down, or written again); when the packages were packed, the entries
 * past the count point at nothing (0): the runtime never reads them, and
 * they must not point into bytes that are cut out. */
static int rewrite_table(struct pruner *p, const struct prune_table *t,
			 const struct image *im, size_t n,
			 const struct pkg *pk, uint64_t array, uint64_t desc,
			 bool packed)
{
	uint64_t values[64][4];
	size_t kept = 0, order[64];

	for (size_t k = 0; k < n; k++) {
		bool whole;
		long j = entry_image(t, im, n, array + 32 * k, &whole);

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
			new_bounds(&im[j], pk, whole, &values[k][0],
				   &values[k][1]);
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
				const struct pkg *pk, size_t npk, uint64_t array)
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

	/* Nothing but the packages and zero padding moves. */
	while (pos < sec->size) {
		if (k < npk && pk[k].off - sec->offset == pos) {
			pos += pk[k++].span;
			continue;
		}
		if (sec->size - pos < 8 || get_le(bytes + pos, 8))
			return SECTIONS_OFFLOADING_NAME " holds more than "
			       "packages";
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
		       SECTIONS_OFFLOADING_NAME;
	for (size_t i = 1; i < t->s->n; i++) {
		const struct elfscan_section *d = &t->s->sec[i];

		if (d->type != 11 /* SHT_DYNSYM */ || d->entsize != 24)
			continue;
		for (uint64_t o = 24; o + 24 <= d->size; o += 24)
			if (get_le(t->buf + d->offset + o + 6, 2) == sec->index)
				return "a dynamic symbol is defined in "
				       SECTIONS_OFFLOADING_NAME;
	}
	return NULL;
}

/* The kept packages packed at the section's start, each at the same
 * address modulo the section's alignment (at least 8, at most a page):
 * its delta, and the section's new size in *packed. */
static void pack(const struct elfscan_section *sec, struct pkg *pk,
		 size_t npk, uint64_t *packed)
{
	uint64_t align = 8, at = 0;

	while (align < sec->align && align < 4096)
		align *= 2;
	for (size_t j = 0; j < npk; j++) {
		uint64_t old = pk[j].off - sec->offset, to;

		if (!pk[j].nkept)
			continue;
		to = at + ((old - at) & (align - 1));
		pk[j].delta = old - to;
		at = to + pk[j].new_span;
	}
	*packed = at;
}

/* Where a symbol at v in kept package k goes: by its delta; in one
 * written again, to where the image it names went, else to the package's
 * start. */
static uint64_t symbol_to(const struct pkg *k, const struct image *im,
			  uint64_t v)
{
	uint64_t at = k->addr - k->delta;

	if (!k->again)
		return v - k->delta;
	for (size_t j = k->first; j < k->first + k->n; j++)
		if (im[j].kept && !im[j].inflated && v == im[j].start)
			return at + im[j].new_off;
	return at;
}

/* The symbols of .symtab in the section follow: into a kept package, as
 * symbol_to says (a symbol the size of a package written again takes its
 * new size); elsewhere past the packed bytes, to the section's new end,
 * with no size (section symbols stay). */
static int move_symbols(struct pruner *p, const struct prune_table *t,
			const struct elfscan_section *sec,
			const struct image *im, const struct pkg *pk,
			size_t npk, uint64_t packed)
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
			uint64_t sz = get_le(sym + 16, 8), nsz;

			for (j = 0; j < npk; j++)
				if (v >= pk[j].addr && v - pk[j].addr < pk[j].span)
					break;
			gone = j < npk ? !pk[j].nkept : v - sec->addr > packed;
			to = gone ? sec->addr + packed
				  : j < npk ? symbol_to(&pk[j], im, v) : v;
			nsz = gone ? 0
			      : j < npk && pk[j].again && v == pk[j].addr &&
				(sz == pk[j].span ||
				 sz == get_le(t->buf + pk[j].off + 8, 8))
			      ? (sz == pk[j].span ? pk[j].new_span
						  : pk[j].new_size)
			      : sz;
			if (to != v && prune_add_word(p, y->offset + o + 8, to, 8) < 0)
				return -1;
			if (nsz != sz &&
			    prune_add_word(p, y->offset + o + 16, nsz, 8) < 0)
				return -1;
		}
	}
	return 0;
}

/* The section's bytes: the kept packages at their new places, zeros
 * after them; its header's size the packed bytes (a plan's trim). */
static int write_packed(struct pruner *p, const uint8_t *buf,
			const struct elfscan_section *sec, struct pkg *pk,
			size_t n, uint64_t packed, struct membuf *store)
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
		uint64_t to = pk[j].off - sec->offset - pk[j].delta;

		if (!pk[j].nkept)
			continue;
		pt.piece[pt.npieces++] = pk[j].again
			? (struct prune_piece){ .pad = to - at,
						.data = pk[j].again,
						.data_len = pk[j].new_span }
			: (struct prune_piece){ .pad = to - at,
						.data = buf + pk[j].off,
						.data_len = pk[j].span,
						.src = pk[j].off,
						.from_file = true };
		at = to + pk[j].new_span;
	}
	/* The patch owns the packages written again. */
	pt.storage = store->p;
	store->p = NULL;
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

/* The packages of the section: which images each holds, and those that
 * keep some of several images written again (their bytes in *store, for
 * the plan to own), with where each kept image is in them. */
static int plan_packages(struct pruner *p, const struct elfscan_section *sec,
			 const uint8_t *bytes, uint64_t size,
			 const struct package_list *l, struct image *im,
			 struct pkg *pk, size_t *npk, struct membuf *store)
{
	const struct package_limits lim = {
		.max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
		.max_size = PACKAGE_DEFAULT_MAX_SIZE };
	bool kept[64];
	size_t *at = calloc(l->n ? l->n : 1, sizeof(*at));

	if (!at)
		return err_nomem(p->e);
	*npk = 0;
	for (size_t j = 0; j < l->n; j++) {
		const struct package_image *img = &l->v[j];
		struct pkg *k;

		if (!j || img->binary_offset != l->v[j - 1].binary_offset) {
			uint64_t span = prune_package_span(
				bytes + img->binary_offset,
				(size_t)(size - img->binary_offset));

			pk[(*npk)++] = (struct pkg){
				.off = sec->offset + img->binary_offset,
				.addr = sec->addr + img->binary_offset,
				.span = span, .new_span = span,
				.new_size = get_le(bytes + img->binary_offset +
						   8, 8),
				.first = j,
			};
		}
		k = &pk[*npk - 1];
		k->n++;
		k->nkept += im[j].kept;
		im[j].pkg = (size_t)(*npk - 1);
		im[j].new_off = img->image_offset - img->binary_offset;
	}
	for (size_t q = 0; q < *npk; q++) {
		struct pkg *k = &pk[q];
		struct package_list again = { 0 };
		size_t from = store->len, m = 0;

		if (!k->nkept || k->nkept == k->n)
			continue;
		for (size_t j = 0; j < k->n; j++)
			kept[j] = im[k->first + j].kept;
		if (prune_package_rewrite(p, bytes + (k->off - sec->offset),
					  (size_t)k->span, l->v + k->first,
					  kept, k->n, sec->offset, store) < 0)
			goto fail;
		at[q] = from;
		k->again = (uint8_t *)(uintptr_t)1;	/* resolved below */
		k->new_span = store->len - from;
		/* Nothing may move: it must fit where it was (a package can
		 * grow, its entries' records shared, or compressed again). */
		if (k->new_span > k->span) {
			err_set(p->e, "the package at offset %llu, written again "
				"with the kept images, takes %llu bytes, more "
				"than its %llu: not pruned",
				(unsigned long long)k->off,
				(unsigned long long)k->new_span,
				(unsigned long long)k->span);
			goto fail;
		}
		k->new_size = get_le(store->p + from + 8, 8);
		/* Where the kept images are in it: in their order. */
		if (package_scan(store->p + from, (size_t)k->new_span, &lim,
				 &again, p->e) < 0) {
			package_list_free(&again);
			goto fail;
		}
		for (size_t j = k->first; j < k->first + k->n; j++)
			if (im[j].kept && m < again.n)
				im[j].new_off = again.v[m++].image_offset;
		package_list_free(&again);
		if (m != k->nkept) {
			err_set(p->e, "internal error: a package written again "
				"holds %zu images, not %zu", m, k->nkept);
			goto fail;
		}
	}
	for (size_t q = 0; q < *npk; q++)
		if (pk[q].again)
			pk[q].again = store->p + at[q];
	free(at);
	return 0;
fail:
	for (size_t q = 0; q < *npk; q++)
		pk[q].again = NULL;
	free(at);
	return -1;
}

/* stay: why the packages may not move, whatever points into them (NULL:
 * pack_refusal says). */
static int linked_packages(struct pruner *p, const struct elfscan *s,
			   const uint8_t *buf, size_t i, const char *stay)
{
	const struct elfscan_section *sec = &s->sec[i];
	const struct package_limits lim = {
		.max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
		.max_size = PACKAGE_DEFAULT_MAX_SIZE };
	struct package_list l = { 0 };
	struct prune_table t = { .s = s, .buf = buf };
	struct image *im = NULL;
	struct pkg *pk = NULL;
	struct membuf store = { 0 };
	size_t nkept = 0, npk = 0;
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
	pk = calloc(l.n ? l.n : 1, sizeof(*pk));
	if (!im || !pk) {
		err_nomem(p->e);
		goto out;
	}
	for (size_t j = 0; j < l.n; j++) {
		const struct package_image *img = &l.v[j];
		int keep = prune_decide_image(p, img, sec->offset);

		if (keep < 0)
			goto out;
		im[j] = (struct image){
			.start = sec->addr + img->image_offset,
			.end = sec->addr + img->image_offset + img->image_size,
			.pstart = sec->addr + img->binary_offset,
			.pend = sec->addr + img->binary_offset +
				get_le(bytes + img->binary_offset + 8, 8),
			.size = img->image_size,
			.inflated = img->inflated,
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
	if (l.n > 64) {
		err_set(p->e, "more than 64 images: not rewritten");
		goto out;
	}
	if (plan_packages(p, sec, bytes, size, &l, im, pk, &npk, &store) < 0)
		goto out;
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
	refused = stay ? stay : pack_refusal(&t, sec, im, l.n, pk, npk, array);
	if (!refused)
		pack(sec, pk, npk, &packed);
	if (rewrite_table(p, &t, im, l.n, pk, array, desc, !refused) < 0)
		goto out;
	if (!refused) {
		if (move_symbols(p, &t, sec, im, pk, npk, packed) < 0 ||
		    write_packed(p, buf, sec, pk, npk, packed, &store) < 0)
			goto out;
		rc = 0;
		goto out;
	}
	p->plan->unpacked = refused;
	/* The dropped packages: zeros (holes where whole pages fall); those
	 * written again: their new bytes where they were, zeros after. */
	for (size_t j = 0; j < npk; j++) {
		struct prune_patch pt = { .offset = pk[j].off,
					  .old_size = pk[j].span,
					  .in_place = true };
		struct prune_piece pc = { .data = pk[j].again,
					  .data_len = pk[j].new_span };

		if (pk[j].nkept && !pk[j].again)
			continue;
		if (pk[j].again) {
			pt.piece = malloc(sizeof(*pt.piece));
			if (!pt.piece) {
				err_nomem(p->e);
				goto out;
			}
			*pt.piece = pc;
			pt.npieces = 1;
			pt.new_size = pk[j].new_span;
			/* The first such patch owns the bytes of all. */
			pt.storage = store.p;
			store.p = NULL;
		}
		if (prune_add_patch(p->plan, &pt, p->e) < 0) {
			prune_patch_free(&pt);
			goto out;
		}
	}
	rc = 0;
out:
	free(t.rel);
	free(im);
	free(pk);
	free(store.p);
	package_list_free(&l);
	return rc;
}

int prune_linked_packages(struct pruner *p, const struct elfscan *s,
			  const uint8_t *buf, size_t i)
{
	return linked_packages(p, s, buf, i, NULL);
}

/* A PE image as the walk above sees a linked ELF file at a fixed address
 * (its pointers' values in place, adjusted by the loader's base
 * relocations, which stay valid: no pointer moves): each section an
 * allocated one at its address, its bytes in the file, code executable,
 * uninitialised data without bytes. */
int prune_pe_linked_packages(struct pruner *p, uint16_t machine,
			     const struct coff_image_section *v, size_t n,
			     const uint8_t *buf, size_t i, uint64_t size)
{
	struct elfscan s = { .is64 = true, .e_type = 2 /* ET_EXEC */,
			     .n = n + 1 };
	int rc;

	s.machine = machine == 0x8664 ? 62 /* EM_X86_64 */
		    : machine == 0xaa64 ? 183 /* EM_AARCH64 */ : 0;
	if (!s.machine)
		return err_set(p->e, "packages in a PE image are pruned for "
			       "x86-64 and ARM64 only");
	s.sec = calloc(n + 1, sizeof(*s.sec));
	if (!s.sec)
		return err_nomem(p->e);
	for (size_t k = 0; k < n; k++)
		s.sec[k + 1] = (struct elfscan_section){
			.name = "", .index = (uint32_t)(k + 1),
			.type = v[k].raw ? SHT_PROGBITS_ : 8 /* NOBITS */,
			.flags = SHF_ALLOC_ |
				 ((v[k].characteristics &
				   (COFF_SCN_MEM_EXECUTE | COFF_SCN_CNT_CODE))
				  ? SHF_EXECINSTR_ : 0),
			.addr = v[k].va, .offset = v[k].offset,
			.size = v[k].raw, .align = 8,
		};
	s.sec[i + 1].name = sections_name(SECTION_OFFLOADING);
	s.sec[i + 1].size = size;
	rc = linked_packages(p, &s, buf, i + 1, "a PE image's sections stay "
			     "where they are");
	free(s.sec);
	return rc;
}
