/* prune_containers: NVIDIA fatbins, packages and text bundles pruned one
 * container at a time (see prune.h; binary bundles and CCOBs:
 * prune_bundle.c), the entries decided, the patches; the files that hold
 * them are ops/prune.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/bundle_text.h"
#include "../formats/nvfatbin.h"
#include "../formats/package.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "../core/bytes.h"

/* ---- entries ---- */

/* An ID split as the bundler splits it: <kind>-<four triple parts>[-<id>]. */
void prune_entry_from_id(struct prune_entry *pe, const char *id, size_t len)
{
	select_entry_from_id(&pe->sel, id, len);
}

bool prune_ask(struct pruner *p, struct prune_entry *pe)
{
	pe->container = p->container;
	pe->section = p->section;
	return p->o->keep(p->o->ctx, pe);
}

void prune_tell(struct pruner *p, const struct prune_entry *pe, bool keep)
{
	if (p->o->seen)
		p->o->seen(p->o->ctx, pe, keep);
	if (keep) {
		p->plan->entries_kept++;
		if (!pe->sel.host)
			p->plan->device_kept++;
	} else {
		p->plan->entries_dropped++;
		p->plan->code_dropped += pe->size;
	}
}

bool prune_decide(struct pruner *p, struct prune_entry *pe)
{
	bool keep = prune_ask(p, pe);

	prune_tell(p, pe, keep);
	return keep;
}


/* ---- patches ---- */

int prune_mem_put(void *ctx, const void *src, size_t n, struct err *e)
{
	struct membuf *m = ctx;

	if (!n)
		return 0;
	if (n > m->cap - m->len) {
		size_t cap = m->cap ? m->cap : 4096;
		uint8_t *grown;

		while (cap - m->len < n) {
			if (cap > SIZE_MAX / 2)
				return err_code_set(e, ERR_NOMEM,
						    "out of memory");
			cap *= 2;
		}
		grown = realloc(m->p, cap);
		if (!grown)
			return err_nomem(e);
		m->p = grown;
		m->cap = cap;
	}
	memcpy(m->p + m->len, src, n);
	m->len += n;
	return 0;
}

/* Write a patch's pieces into memory (to compress them, or to make an
 * archive member). */
int prune_materialize(const struct prune_patch *pt, struct membuf *m,
		       struct err *e)
{
	static const uint8_t zeros[4096];

	for (size_t i = 0; i < pt->npieces; i++) {
		const struct prune_piece *pc = &pt->piece[i];

		if (prune_mem_put(m, pc->lit, pc->lit_len, e) < 0)
			return -1;
		for (uint64_t z = pc->pad; z;) {
			size_t step = z < sizeof(zeros) ? (size_t)z
							 : sizeof(zeros);

			if (prune_mem_put(m, zeros, step, e) < 0)
				return -1;
			z -= step;
		}
		if (prune_mem_put(m, pc->data, (size_t)pc->data_len, e) < 0)
			return -1;
	}
	return 0;
}

void prune_patch_free(struct prune_patch *pt)
{
	free(pt->piece);
	free(pt->storage);
	memset(pt, 0, sizeof(*pt));
}

int prune_patch_whole(struct prune_patch *pt, uint8_t *bytes, size_t len,
		      struct err *e)
{
	struct prune_piece *piece = calloc(1, sizeof(*piece));

	if (!piece)
		return err_nomem(e);
	prune_patch_free(pt);
	*piece = (struct prune_piece){ .lit = bytes, .lit_len = len };
	pt->piece = piece;
	pt->npieces = 1;
	pt->new_size = len;
	pt->storage = bytes;
	return 0;
}

/* ---- NVIDIA fatbins compressed (--compress) ---- */

/* The fatbin buf[0, size) (pruned: as *pt's pieces) with each entry
 * stored uncompressed compressed as fatbinary -compress-all does
 * (formats/nvfatbin.c), where that makes it smaller: the number of
 * entries compressed, with the container as *pt's one piece, or 0 when
 * none was.  Reads nothing of the walk: prune_region runs it on threads. */
int prune_compress_nv(const struct prune_opts *o, unsigned version,
		      const uint8_t *buf, uint64_t size,
		      struct prune_patch *pt, struct prune_spool *sp,
		      struct err *e)
{
	struct membuf copy = { 0 }, out = { 0 };
	const uint8_t *fb = buf;
	size_t len = (size_t)size;
	struct nvfatbin_header h;
	struct nvfatbin_entry ent;
	uint64_t pos;
	int rc = -1, n = 0, r;

	(void)o;
	(void)version;
	(void)sp;	/* small: in memory */
	if (pt->npieces) {
		if (prune_materialize(pt, &copy, e) < 0)
			goto out;
		fb = copy.p;
		len = copy.len;
	}
	if (nvfatbin_open(fb, len, &h, e) < 0 ||
	    prune_mem_put(&out, fb, h.header_size, e) < 0)
		goto out;
	for (pos = h.header_size; (r = nvfatbin_next(fb, &h, &pos, &ent, e)) > 0;) {
		uint8_t *packed;
		size_t packed_len;
		int c = nvfatbin_compress_entry(fb, &ent, &packed, &packed_len,
						e);

		if (c < 0)
			goto out;
		if (c > 0) {
			n++;
			c = prune_mem_put(&out, packed, packed_len, e);
			free(packed);
		} else {
			c = prune_mem_put(&out, fb + ent.offset,
					  (size_t)(pos - ent.offset), e);
		}
		if (c < 0)
			goto out;
	}
	if (r < 0)
		goto out;
	rc = 0;
	if (!n)
		goto out;
	/* The header's size of what follows it. */
	put_le(out.p + 8, out.len - h.header_size, 8);
	if ((rc = prune_patch_whole(pt, out.p, out.len, e)) < 0)
		goto out;
	out.p = NULL;
	rc = n;
out:
	free(copy.p);
	free(out.p);
	return rc;
}

/* ---- NVIDIA fatbins ---- */

/* The fatbin at buf[0, size), file offset file_off: 1 with the kept
 * entries as pieces in *pt (its header with the new size, then each kept
 * entry's header and payload as they are), 0 when all stay.  Entries are
 * named as nvcc's -gencode code= and nvprune -arch name them: sm_XX for
 * SASS, compute_XX for PTX (cuobjdump and ls show PTX as sm_XX too). */
static int prune_nv(struct pruner *p, const uint8_t *buf, uint64_t size,
		    uint64_t file_off, struct prune_patch *pt)
{
	struct nvfatbin_header h;
	struct nvfatbin_entry ent;
	uint64_t pos, start, kept_bytes = 0;
	size_t n = 0, nkept = 0, k = 0;
	bool *kept = NULL;
	int rc;

	if (nvfatbin_open(buf, (size_t)size, &h, p->e) < 0)
		return -1;
	/* Two passes: prune_decide, then lay out what was kept. */
	for (int pass = 0; pass < 2; pass++) {
		for (pos = h.header_size, start = pos, n = 0;
		     (rc = nvfatbin_next(buf, &h, &pos, &ent, p->e)) > 0;
		     start = pos, n++) {
			struct prune_entry pe = { .size = ent.payload_size };
			char arch[32];
			bool keep;

			snprintf(arch, sizeof(arch), "%s_%u%s",
				 ent.kind == NVFATBIN_PTX ? "compute" : "sm",
				 ent.arch, nvfatbin_arch_suffix(&ent));
			pe.sel.id = pe.sel.arch = arch;
			pe.sel.id_len = pe.sel.arch_len = strlen(arch);
			if (pass == 0) {
				bool *grown = realloc(kept, (n + 1) *
						      sizeof(*kept));

				if (!grown) {
					free(kept);
					return err_code_set(p->e, ERR_NOMEM,
							    "out of memory");
				}
				kept = grown;
				keep = kept[n] = prune_decide(p, &pe);
				nkept += keep;
				if (keep)
					kept_bytes += pos - start;
				continue;
			}
			if (!kept[n])
				continue;
			pt->piece[k++] = (struct prune_piece){
				.data = buf + start, .data_len = pos - start,
				.from_file = true, .src = file_off + start,
			};
		}
		if (rc < 0) {
			free(kept);
			return -1;
		}
		if (pass == 0) {
			if (n && !nkept)
				p->plan->containers_emptied++;
			if (nkept == n) {
				free(kept);
				return 0;
			}
			pt->storage = malloc(h.header_size);
			pt->piece = calloc(nkept + 1, sizeof(*pt->piece));
			if (!pt->storage || !pt->piece) {
				free(kept);
				prune_patch_free(pt);
				return err_code_set(p->e, ERR_NOMEM,
						    "out of memory");
			}
			memcpy(pt->storage, buf, h.header_size);
			for (int b = 0; b < 8; b++)
				pt->storage[8 + b] = (uint8_t)(kept_bytes >> (8 * b));
			pt->piece[0] = (struct prune_piece){
				.lit = pt->storage, .lit_len = h.header_size };
			k = 1;
		}
	}
	free(kept);
	pt->npieces = k;
	pt->new_size = h.header_size + kept_bytes;
	return 1;
}

/* ---- offload packages ---- */

/* Whether the image of a package whose bytes start at file offset base
 * is kept: 1 kept, 0 dropped, -1 (p->e set) when out of memory. */
int prune_decide_image(struct pruner *p, const struct package_image *img,
		       uint64_t base)
{
	const char *kind = package_offload_kind_describe(img->offload_kind);
	struct prune_entry pe = { .size = img->image_size };
	char id[256];

	pe.sel.triple = package_get(img, "triple", 6, &pe.sel.triple_len);
	pe.sel.arch = package_get(img, "arch", 4, &pe.sel.arch_len);
	snprintf(id, sizeof(id), "%s-%.*s-%.*s", kind,
		 (int)(pe.sel.triple_len > 100 ? 100 : pe.sel.triple_len),
		 pe.sel.triple ? pe.sel.triple : "",
		 (int)(pe.sel.arch_len > 100 ? 100 : pe.sel.arch_len),
		 pe.sel.arch ? pe.sel.arch : "");
	pe.sel.id = id;
	pe.sel.id_len = strlen(id);
	p->container = p->base + base + img->binary_offset;
	p->plan->containers++;
	return prune_decide(p, &pe);
}

size_t prune_package_span(const uint8_t *bin, size_t rem)
{
	uint64_t size = get_le(bin + 8, 8);

	/* A compressed binary's size leaves out its padding to 8. */
	if (get_le(bin + 4, 4) != 1)
		size = (size + PACKAGE_ALIGN - 1) & ~(uint64_t)(PACKAGE_ALIGN - 1);
	return size < rem ? (size_t)size : rem;
}

/* Pieces of a patch being built, their literal bytes in one buffer (lit
 * holds an offset into it until the end). */
struct pieces {
	struct prune_piece *v;
	size_t n, cap;
	struct membuf lits;
};

static int add_piece(struct pieces *ps, const struct prune_piece *pc,
		     struct err *e)
{
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 8;
		struct prune_piece *v = realloc(ps->v, cap * sizeof(*v));

		if (!v)
			return err_nomem(e);
		ps->v = v;
		ps->cap = cap;
	}
	ps->v[ps->n++] = *pc;
	return 0;
}

/* The binary bin[0, span) (its images l[0, n), file offsets from base)
 * written again with the kept of its images, as the LLVM that
 * writes that version would write them: a version 2 or 3 binary's head
 * made anew, the images copied from the file; a compressed one inflated,
 * rebuilt and compressed again (LLVM's codec and default level, or
 * level when not 0). */
static int rewrite_binary(struct pruner *p, struct pieces *ps,
			  const uint8_t *bin, size_t span,
			  const struct package_image *l, const bool *kept,
			  size_t n, uint64_t base, int level)
{
	struct package_meta *m = calloc(n, sizeof(*m));
	uint64_t *sizes = calloc(n, sizeof(*sizes));
	uint64_t *offs = calloc(n, sizeof(*offs));
	uint32_t *flags = calloc(n, sizeof(*flags));
	uint8_t *head = NULL, *packed = NULL;
	size_t k = 0, head_len, tail, packed_len;
	struct membuf whole = { 0 };
	int rc = -1;

	if (!m || !sizes || !offs || !flags) {
		err_nomem(p->e);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!kept[i])
			continue;
		m[k] = (struct package_meta){ l[i].image_kind, l[i].offload_kind,
					      l[i].strings, l[i].nstrings };
		flags[k] = l[i].flags;
		sizes[k++] = l[i].image_size;
	}
	if (package_write_multi_head(l[0].version, m, flags, sizes, k, &head,
				     &head_len, offs, &tail, p->e) < 0)
		goto out;
	if (!l[0].inflated) {
		struct prune_piece pc = { .lit = (const uint8_t *)(uintptr_t)
						 ps->lits.len,
					  .lit_len = head_len };

		if (prune_mem_put(&ps->lits, head, head_len, p->e) < 0 ||
		    add_piece(ps, &pc, p->e) < 0)
			goto out;
		for (size_t i = 0; i < n; i++) {
			if (!kept[i])
				continue;
			pc = (struct prune_piece){
				.data = l[i].image, .data_len = l[i].image_size,
				.from_file = true,
				.src = base + l[i].image_offset,
			};
			if (add_piece(ps, &pc, p->e) < 0)
				goto out;
		}
		pc = (struct prune_piece){ .pad = tail };
		rc = tail ? add_piece(ps, &pc, p->e) : 0;
		goto out;
	}
	/* Compressed: the whole binary in memory, then compressed. */
	if (prune_mem_put(&whole, head, head_len, p->e) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (kept[i] && prune_mem_put(&whole, l[i].image,
					     (size_t)l[i].image_size, p->e) < 0)
			goto out;
	{
		static const uint8_t zeros[8];

		if (prune_mem_put(&whole, zeros, tail, p->e) < 0)
			goto out;
	}
	{
		enum package_codec codec = package_codec_of(bin, span);
		struct prune_piece pc;

		if (!level)
			level = codec == PACKAGE_ZSTD ? PACKAGE_ZSTD_LEVEL
						      : PACKAGE_ZLIB_LEVEL;
		if (codec == PACKAGE_ZLIB && level > 9)
			level = 9;	/* zlib's highest */
		if (package_compress(whole.p, whole.len, codec, level, &packed,
				     &packed_len, p->e) < 0)
			goto out;
		pc = (struct prune_piece){ .lit = (const uint8_t *)(uintptr_t)
						  ps->lits.len,
					   .lit_len = packed_len };
		if (prune_mem_put(&ps->lits, packed, packed_len, p->e) < 0 ||
		    add_piece(ps, &pc, p->e) < 0)
			goto out;
	}
	rc = 0;
out:
	free(m);
	free(sizes);
	free(offs);
	free(flags);
	free(head);
	free(packed);
	free(whole.p);
	return rc;
}

int prune_package_rewrite(struct pruner *p, const uint8_t *bin, size_t span,
			  const struct package_image *l, const bool *kept,
			  size_t n, uint64_t base, struct membuf *out)
{
	struct pieces ps = { 0 };
	struct prune_patch pt = { 0 };
	int rc = -1;

	if (rewrite_binary(p, &ps, bin, span, l, kept, n, base,
			   p->o->package_level) < 0)
		goto out;
	for (size_t i = 0; i < ps.n; i++)
		ps.v[i].lit = ps.v[i].lit_len ? ps.lits.p + (uintptr_t)ps.v[i].lit
					      : NULL;
	pt.piece = ps.v;
	pt.npieces = ps.n;
	rc = prune_materialize(&pt, out, p->e);
out:
	free(ps.v);
	free(ps.lits.p);
	return rc;
}

/* The packages that fill buf[0, len), at file offset base: 1 with the
 * kept ones as pieces in *pt, 0 when all stay.  A binary whose images all
 * stay is copied, one whose images all go is left out, and one of several
 * images (version 2 or 3) that keeps some is written again with them. */
int prune_packages(struct pruner *p, const uint8_t *buf, size_t len,
		   uint64_t base, struct prune_patch *pt)
{
	const struct package_limits lim = {
		.max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
		.max_size = PACKAGE_DEFAULT_MAX_SIZE };
	struct package_list l = { 0 };
	struct pieces ps = { 0 };
	size_t nkept = 0, first = 0;
	bool *kept = NULL;
	int rc = -1;

	if (package_scan(buf, len, &lim, &l, p->e) < 0) {
		package_list_free(&l);	/* what it found before the damage */
		return -1;
	}
	kept = calloc(l.n ? l.n : 1, sizeof(*kept));
	if (!kept) {
		err_nomem(p->e);
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		int keep = prune_decide_image(p, &l.v[i], base);

		if (keep < 0)
			goto out;
		kept[i] = keep;
		nkept += kept[i];
	}
	if (l.n && !nkept)
		p->plan->containers_emptied++;
	rc = 0;
	if (nkept == l.n)
		goto out;
	rc = -1;
	/* Binary by binary (package_scan read them all). */
	for (size_t pos = 0; pos < len;) {
		size_t span = prune_package_span(buf + pos, len - pos);
		size_t n = 0, nk = 0;

		while (first + n < l.n && l.v[first + n].binary_offset == pos) {
			nk += kept[first + n];
			n++;
		}
		if (nk == n) {
			struct prune_piece pc = {
				.data = buf + pos, .data_len = span,
				.from_file = true, .src = base + pos,
			};

			if (add_piece(&ps, &pc, p->e) < 0)
				goto out;
		} else if (nk && rewrite_binary(p, &ps, buf + pos, span,
						l.v + first, kept + first, n,
						base, p->o->package_level) < 0) {
			goto out;
		}
		first += n;
		pos += span;
	}
	for (size_t i = 0; i < ps.n; i++) {
		if (ps.v[i].lit_len)
			ps.v[i].lit = ps.lits.p + (uintptr_t)ps.v[i].lit;
		else
			ps.v[i].lit = NULL;
		pt->new_size += ps.v[i].lit_len + ps.v[i].pad + ps.v[i].data_len;
	}
	pt->piece = ps.v;
	pt->npieces = ps.n;
	pt->storage = ps.lits.p;
	ps.v = NULL;
	ps.lits.p = NULL;
	rc = 1;
out:
	free(ps.v);
	free(ps.lits.p);
	free(kept);
	package_list_free(&l);
	return rc;
}

/* ---- text bundles ---- */

/* Each entry is a block from its START line's newline to the end of its
 * END line; LLVM writes the blocks back to back, so dropping whole blocks
 * leaves what it writes for the kept entries. */
int prune_text(struct pruner *p, const uint8_t *buf, size_t len,
	       const char *comment, struct prune_patch *pt)
{
	struct bundle_reader r;
	struct bundle_entry ent;
	struct prune_piece *grown;
	uint64_t pos = 0, off, size;
	size_t nkept = 0, n = 0, device_before = 0, device_after = 0;

	bundle_open_text(&r, comment, buf, len);
	while (bundle_next_text(&r, &ent) == 1) {
		uint64_t block = (uint64_t)((const uint8_t *)ent.id - buf) -
				 r.start_len;
		struct prune_entry pe = { 0 };
		bool keep;

		if (bundle_content_text(&r, &off, &size, p->e) < 0)
			goto fail;
		pe.size = size;
		prune_entry_from_id(&pe, ent.id, ent.id_len);
		p->container = p->base;
		keep = prune_decide(p, &pe);
		n++;
		nkept += keep;
		device_before += !pe.sel.host;
		device_after += keep && !pe.sel.host;
		if (keep)
			continue;
		/* An END line without its newline ends the file. */
		if (r.at_end && r.pos < len && buf[r.pos] == '\n')
			r.pos = len;
		/* What comes before the dropped block stays. */
		if (block > pos) {
			grown = realloc(pt->piece, (pt->npieces + 1) *
					sizeof(*grown));
			if (!grown) {
				err_nomem(p->e);
				goto fail;
			}
			pt->piece = grown;
			pt->piece[pt->npieces++] = (struct prune_piece){
				.data = buf + pos, .data_len = block - pos,
				.from_file = true, .src = pos };
			pt->new_size += block - pos;
		}
		pos = r.pos;
	}
	if (device_before && !device_after)
		p->plan->containers_emptied++;
	p->plan->containers++;
	if (nkept == n) {
		prune_patch_free(pt);
		return 0;
	}
	grown = realloc(pt->piece, (pt->npieces + 1) * sizeof(*grown));
	if (!grown) {
		err_nomem(p->e);
		goto fail;
	}
	pt->piece = grown;
	pt->piece[pt->npieces++] = (struct prune_piece){
		.data = buf + pos, .data_len = len - pos, .from_file = true,
		.src = pos };
	pt->new_size += len - pos;
	return 1;
fail:
	prune_patch_free(pt);
	return -1;
}

/* ---- the plan's patches and dropped sections ---- */

int prune_add_patch(struct prune_plan *plan, const struct prune_patch *pt,
		     struct err *e)
{
	struct prune_patch *grown = realloc(plan->patch,
					    (plan->n + 1) * sizeof(*grown));

	if (!grown)
		return err_nomem(e);
	plan->patch = grown;
	plan->patch[plan->n++] = *pt;
	return 0;
}

/* The NVIDIA fatbins of a region, as ops/kinds.c calls them. */
int prune_kind_nv(struct pruner *p, const uint8_t *buf, uint64_t size,
		  uint64_t file_off, struct prune_patch *pt)
{
	return prune_nv(p, buf, size, file_off, pt);
}

/* Shared by ELF and COFF objects (prune.c, prune_coff.c). */
int prune_drop_section(struct prune_plan *plan, const char *name, size_t len,
		       struct err *e)
{
	char **grown = realloc(plan->drop_sections,
			       (plan->ndrop + 1) * sizeof(*grown));

	if (!grown)
		return err_nomem(e);
	plan->drop_sections = grown;
	grown[plan->ndrop] = strndup(name, len);
	if (!grown[plan->ndrop])
		return err_nomem(e);
	plan->ndrop++;
	return 0;
}
