/* prune_pack: the containers of a linked program's or library's
 * .hip_fatbin or .nv_fatbin, once pruned, packed together at the section's
 * start, so that the bytes they free are one range at its end (one cut,
 * and the section stays one section: its size becomes the packed bytes').
 *
 * The runtimes find each container through a pointer of the file: HIP's
 * __hip_fatbin_wrapper and NVIDIA's __fatbinwrap (in .hipFatBinSegment,
 * .nvFatBinSegment) hold its start, relocated at load time.  Every
 * pointer into the section must be known and point at a container's
 * start: then each is made to point where its container goes.  They are
 * found as prune_omp.c finds the OpenMP image table's: a RELATIVE
 * relocation's addend, a word RELR relocates, or in a program at a fixed
 * address any word of the data.  A symbol of .symtab at a container's
 * start moves with it.  Where anything else may point into the section
 * (a dynamic symbol defined in it, a symbol inside a container, a
 * relocation of another type or without addend, a pointer into a
 * container), nothing moves: each container's freed tail is zeroed where it
 * is, as before, and the plan says why (unpacked_fatbin).  Code that
 * reaches a container by a PC-relative address leaves no relocation to
 * find; the compilers' code reaches it through the wrapper only. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/fatbin.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_pack.h"
#include "prune_pointers.h"
#include "prune_region.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

enum { SHT_PROGBITS_ = 1, SHT_SYMTAB_ = 2, SHT_NOBITS_ = 8,
       SHT_DYNSYM_ = 11, SHT_RELR_ = 19, SHF_ALLOC_ = 2,
       SHF_EXECINSTR_ = 4, STT_SECTION_ = 3, MAX_ALIGN = 4096 };

struct box {
	uint64_t off, size;	/* in the section, as it was */
	uint64_t new_size;
	uint64_t to;		/* where it goes in the section */
	struct prune_patch patch;	/* its pruned bytes, when pruned */
	bool pruned;
};

struct pointer {
	uint64_t at, value;
};

struct packer {
	struct pruner *p;
	const struct elfscan *s;
	const struct elfscan_section *sec;
	struct prune_table t;
	struct box *box;	/* in offset order */
	size_t nbox;
	struct pointer *ptr;
	size_t nptr, cap;
	uint64_t *sym;		/* file offsets of .symtab entries to move */
	size_t nsym, symcap;
	bool refused, nomem;
};

static void refuse(struct packer *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void refuse(struct packer *k, const char *fmt, ...)
{
	char *why = k->p->plan->unpacked_fatbin;
	size_t cap = sizeof(k->p->plan->unpacked_fatbin);
	va_list ap;

	if (k->refused)
		return;
	k->refused = true;
	if (why[0])		/* the first section's reason is said */
		return;
	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
}

static bool in_section(const struct packer *k, uint64_t v)
{
	return v >= k->sec->addr && v - k->sec->addr < k->sec->size;
}

/* The container starting at address v, or NULL. */
static struct box *box_at(const struct packer *k, uint64_t v)
{
	size_t lo = 0, hi = k->nbox;
	uint64_t off = v - k->sec->addr;

	if (!in_section(k, v))
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->box[mid].off < off)
			lo = mid + 1;
		else if (k->box[mid].off > off)
			hi = mid;
		else
			return &k->box[mid];
	}
	return NULL;
}

static void add_pointer(struct packer *k, uint64_t at, uint64_t v)
{
	if (k->refused || k->nomem)
		return;
	if (!box_at(k, v)) {
		refuse(k, "%s: the pointer at 0x%llx points inside it, not at "
		       "a container's start", k->sec->name,
		       (unsigned long long)at);
		return;
	}
	if (k->nptr == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct pointer *grown = realloc(k->ptr, cap * sizeof(*grown));

		if (!grown) {
			k->nomem = true;
			return;
		}
		k->ptr = grown;
		k->cap = cap;
	}
	k->ptr[k->nptr++] = (struct pointer){ at, v };
}

/* A place RELR relocates: the value is in place. */
static bool relr_place(void *ctx, uint64_t at)
{
	struct packer *k = ctx;
	uint64_t off = prune_file_offset(&k->t, at), v;

	if (off != UINT64_MAX && !prune_reloc_at(&k->t, at)) {
		v = get_le(k->t.buf + off, 8);
		if (in_section(k, v))
			add_pointer(k, at, v);
	}
	return k->refused || k->nomem;
}

/* Every pointer into the section, in k->ptr; or why one is not known. */
static void find_pointers(struct packer *k)
{
	const struct elfscan *s = k->s;

	if (k->t.rel_only) {
		refuse(k, "%s: dynamic relocations without addends (SHT_REL) "
		       "are not rewritten", k->sec->name);
		return;
	}
	if (k->t.twice) {
		refuse(k, "%s: two dynamic relocations at address 0x%llx",
		       k->sec->name, (unsigned long long)k->t.twice);
		return;
	}
	for (size_t i = 0; i < k->t.nrel && !k->refused; i++) {
		const struct prune_reloc *r = &k->t.rel[i];

		if (in_section(k, r->at))
			refuse(k, "%s: a dynamic relocation writes into it",
			       k->sec->name);
		else if (in_section(k, r->addend) && !r->relative)
			refuse(k, "%s: a relocation of type %u points into it",
			       k->sec->name, r->type);
		else if (in_section(k, r->addend))
			add_pointer(k, r->at, r->addend);
	}
	for (size_t i = 1; i < s->n && !k->refused && !k->nomem; i++) {
		const struct elfscan_section *x = &s->sec[i];
		const uint8_t *b = k->t.buf + x->offset;

		if (x->type == SHT_RELR_ && x->entsize == 8)
			elfscan_relr_each(b, x->size / 8, relr_place, k);
		/* At a fixed address a word of the data is a pointer as it
		 * stands (code is not read: an address in an instruction is
		 * not found; the compilers' code takes the wrapper's). */
		if (s->e_type != 2 /* ET_EXEC */ || !(x->flags & SHF_ALLOC_) ||
		    (x->flags & SHF_EXECINSTR_) || x->type != SHT_PROGBITS_ ||
		    x->addr % 8 || fatbin_section_holds(x->kind))
			continue;
		for (uint64_t o = 0; o + 8 <= x->size && !k->refused; o += 8) {
			uint64_t v = get_le(b + o, 8);

			if (in_section(k, v) &&
			    !prune_reloc_at(&k->t, x->addr + o))
				add_pointer(k, x->addr + o, v);
		}
	}
}

/* The symbols defined in the section: none dynamic (ld.so hands their
 * addresses out); those of .symtab at a container's start, or at the
 * section's end, move with it. */
static void find_symbols(struct packer *k)
{
	for (size_t i = 1; i < k->s->n && !k->refused && !k->nomem; i++) {
		const struct elfscan_section *y = &k->s->sec[i];

		if ((y->type != SHT_SYMTAB_ && y->type != SHT_DYNSYM_) ||
		    y->entsize != 24)
			continue;
		for (uint64_t o = 24; o + 24 <= y->size && !k->refused; o += 24) {
			const uint8_t *sym = k->t.buf + y->offset + o;
			uint64_t v = get_le(sym + 8, 8);
			size_t len;
			const char *name;

			if (get_le(sym + 6, 2) != k->sec->index ||
			    (sym[4] & 0xf) == STT_SECTION_)
				continue;
			name = y->link < k->s->n
			       ? elfscan_string(k->t.buf, &k->s->sec[y->link],
						get_le(sym, 4), &len) : NULL;
			if (y->type == SHT_DYNSYM_) {
				refuse(k, "%s: the dynamic symbol %.40s is "
				       "defined in it", k->sec->name,
				       name ? name : "?");
				return;
			}
			if (!box_at(k, v) &&
			    v != k->sec->addr + k->sec->size) {
				refuse(k, "%s: the symbol %.40s is defined "
				       "inside a container", k->sec->name,
				       name ? name : "?");
				return;
			}
			if (k->nsym == k->symcap) {
				size_t cap = k->symcap ? 2 * k->symcap : 16;
				uint64_t *grown = realloc(k->sym, cap *
							  sizeof(*grown));

				if (!grown) {
					k->nomem = true;
					return;
				}
				k->sym = grown;
				k->symcap = cap;
			}
			k->sym[k->nsym++] = y->offset + o;
		}
	}
}

/* The containers walked again, each with its pruned patch (pt, n of
 * them, in offset order) when it has one. */
static int find_boxes(struct packer *k, const uint8_t *bytes,
		      struct prune_patch *pt, size_t n)
{
	struct fatbin_item it;
	uint64_t pos = 0;
	size_t j = 0;
	int rc;

	while ((rc = fatbin_next(bytes, k->sec->size, &pos,
				 &k->p->o->limits, &it, k->p->e)) > 0) {
		struct box *grown = realloc(k->box, (k->nbox + 1) *
					    sizeof(*grown));
		struct box *b;

		if (!grown)
			return err_code_set(k->p->e, ERR_NOMEM,
					    "out of memory");
		k->box = grown;
		b = &k->box[k->nbox++];
		*b = (struct box){ .off = it.offset, .size = it.size,
				   .new_size = it.size };
		if (j < n && pt[j].offset == k->sec->offset + it.offset) {
			b->patch = pt[j];
			b->pruned = true;
			b->new_size = pt[j].new_size;
			memset(&pt[j], 0, sizeof(pt[j]));
			j++;
		}
	}
	if (rc < 0)
		return -1;
	if (j != n)
		return err_set(k->p->e, "internal error: a pruned container "
			       "not found again");
	return 0;
}

/* Each container at the same address modulo the section's alignment (at
 * least 8, at most a page), after the one before: the packed size. */
static uint64_t lay_out(struct packer *k)
{
	uint64_t align = 8, at = 0;

	while (align < k->sec->align && align < MAX_ALIGN)
		align *= 2;
	for (size_t j = 0; j < k->nbox; j++) {
		struct box *b = &k->box[j];

		b->to = at + ((b->off - at) & (align - 1));
		at = b->to + b->new_size;
	}
	return at;
}

/* The pointers, the symbols, the section's bytes (a patch per container,
 * from where it goes to where the next one goes: its bytes, then zeros)
 * and its header's size, as the packed layout has them. */
static int rewrite(struct packer *k, const uint8_t *buf, uint64_t packed)
{
	struct pruner *p = k->p;
	const struct elfscan_section *sec = k->sec;
	uint64_t hdr = get_le(buf + 40, 8) + 64 * (uint64_t)sec->index;
	struct prune_trim *grown;

	for (size_t i = 0; i < k->nptr; i++) {
		const struct box *b = box_at(k, k->ptr[i].value);

		if (b->to != b->off &&
		    prune_set_pointer(p, &k->t, k->ptr[i].at,
				      sec->addr + b->to) < 0)
			return -1;
	}
	for (size_t i = 0; i < k->nsym; i++) {
		const uint8_t *sym = buf + k->sym[i];
		uint64_t v = get_le(sym + 8, 8), size = get_le(sym + 16, 8);
		const struct box *b = box_at(k, v);
		uint64_t to = b ? sec->addr + b->to : sec->addr + packed;

		if (to != v && prune_add_word(p, k->sym[i] + 8, to, 8) < 0)
			return -1;
		/* nvcc's fatbinData is its container's size. */
		if (b && size == b->size && b->new_size != size &&
		    prune_add_word(p, k->sym[i] + 16, b->new_size, 8) < 0)
			return -1;
	}
	for (size_t j = 0; j < k->nbox; j++) {
		struct box *b = &k->box[j];
		struct prune_patch pt = b->patch;
		uint64_t end = j + 1 < k->nbox ? k->box[j + 1].to : sec->size;

		if (!b->pruned) {
			pt.piece = calloc(1, sizeof(*pt.piece));
			if (!pt.piece)
				return err_code_set(p->e, ERR_NOMEM,
						    "out of memory");
			pt.piece[0] = (struct prune_piece){
				.data = buf + sec->offset + b->off,
				.data_len = b->size, .from_file = true,
				.src = sec->offset + b->off };
			pt.npieces = 1;
			pt.new_size = b->size;
		}
		pt.offset = sec->offset + b->to;
		pt.old_size = end - b->to;
		pt.in_place = true;
		memset(&b->patch, 0, sizeof(b->patch));
		if (prune_add_patch(p->plan, &pt, p->e) < 0) {
			prune_patch_free(&pt);
			return -1;
		}
	}
	if (packed == sec->size)
		return 0;
	grown = realloc(p->plan->trim, (p->plan->ntrim + 1) * sizeof(*grown));
	if (!grown)
		return err_nomem(p->e);
	p->plan->trim = grown;
	grown[p->plan->ntrim++] = (struct prune_trim){ sec->index, hdr + 32,
						       false };
	return prune_add_word(p, hdr + 32, packed, 8);
}

int prune_fatbin_section(struct pruner *p, const struct elfscan *s,
			 const uint8_t *buf, size_t i)
{
	const struct elfscan_section *sec = &s->sec[i];
	struct packer k = { .p = p, .s = s, .sec = sec,
			    .t = { .s = s, .buf = buf } };
	struct prune_patch *mine = NULL;
	size_t first = p->plan->n, n;
	uint64_t size, packed;
	const uint8_t *bytes = elfscan_bytes(s, buf, i, &size);
	int rc = -1;

	if (prune_region(p, bytes, (size_t)size, sec->offset, true) < 0)
		return -1;
	n = p->plan->n - first;
	/* Only a loaded section of a linked file, pruned, is packed. */
	if (!n || p->o->decide_only || (s->e_type != 2 && s->e_type != 3) ||
	    !(sec->flags & SHF_ALLOC_) || sec->type == SHT_NOBITS_ ||
	    sec->kind == SECTION_NV_RELFATBIN)
		return 0;
	if (!s->is64 || s->big_endian || !prune_relative_type(s->machine)) {
		refuse(&k, "%s: containers are packed in 64-bit "
		       "little-endian x86-64, AArch64, PowerPC64 and RISC-V "
		       "files only", sec->name);
		return 0;
	}
	/* The section's patches, taken back: they become the packed ones,
	 * or are given back as they were. */
	mine = malloc(n * sizeof(*mine));
	if (!mine)
		return err_nomem(p->e);
	memcpy(mine, p->plan->patch + first, n * sizeof(*mine));
	p->plan->n = first;
	if (find_boxes(&k, bytes, mine, n) < 0 ||
	    prune_read_relocs(p, &k.t) < 0)
		goto out;
	find_pointers(&k);
	find_symbols(&k);
	if (k.nomem) {
		err_nomem(p->e);
		goto out;
	}
	if (k.refused) {
		for (size_t j = 0; j < k.nbox; j++) {
			struct box *b = &k.box[j];

			if (!b->pruned)
				continue;
			if (prune_add_patch(p->plan, &b->patch, p->e) < 0)
				goto out;
			memset(&b->patch, 0, sizeof(b->patch));
		}
		rc = 0;
		goto out;
	}
	packed = lay_out(&k);
	rc = rewrite(&k, buf, packed);
out:
	for (size_t j = 0; j < k.nbox; j++)
		prune_patch_free(&k.box[j].patch);
	for (size_t j = 0; j < n; j++)
		prune_patch_free(&mine[j]);
	free(mine);
	free(k.box);
	free(k.ptr);
	free(k.sym);
	free(k.t.rel);
	return rc;
}
