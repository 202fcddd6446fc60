/* prune: device code taken out of a build artefact; see prune.h.  The
 * files: ELF objects, executables and libraries, archives, files that are
 * containers or text bundles (each a row of hosts.c, called by
 * prune_plan.c), and the writing (containers: prune_containers.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../formats/ar.h"
#include "../formats/ar_write.h"
#include "../formats/ar_symbols.h"
#include "../formats/bundle_text.h"
#include "../formats/coff.h"
#include "../formats/coffcopy.h"
#include "../formats/fatbin.h"
#include "../formats/magic.h"
#include "../formats/package.h"
#include "elf_shrink.h"
#include "kinds.h"
#include "prune.h"
#include "prune_bitcode.h"
#include "prune_coff.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_kpack.h"
#include "prune_omp.h"
#include "prune_pack.h"
#include "prune_region.h"
#include "prune_shrink.h"
#include "../formats/nvfatbin.h"
#include "../core/bytes.h"
#include "../core/elfcopy.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/io_scratch.h"

/* ---- ELF files ---- */

static bool is_dropped_section(void *ctx, const char *name, size_t len)
{
	const struct prune_plan *plan = ctx;

	for (size_t i = 0; i < plan->ndrop; i++)
		if (strlen(plan->drop_sections[i]) == len &&
		    !memcmp(plan->drop_sections[i], name, len))
			return true;
	return false;
}

/* A .llvm.offloading that is not loaded (an object's), written again
 * with the kept packages.  In a linked program the OpenMP runtime's image
 * table points into the loaded section: the table is rewritten and the
 * kept packages move to its start (prune_omp.c). */
static int prune_offloading(struct pruner *p, const struct elfscan *s,
			    const uint8_t *buf, size_t i)
{
	const struct elfscan_section *sec = &s->sec[i];
	struct prune_section *grown, add = { 0 };
	uint64_t size;
	const uint8_t *bytes = elfscan_bytes(s, buf, i, &size);
	int rc;

	if ((s->e_type == 2 || s->e_type == 3) && (sec->flags & 2)) {
		p->section = sec->name;
		return prune_linked_packages(p, s, buf, i);
	}
	/* Not loaded (an object's, or one a linked file was given
	 * afterwards): nothing points at its packages. */
	if (s->e_type < 1 || s->e_type > 3 || (sec->flags & 2 /* SHF_ALLOC */))
		return err_set(p->e, "packages in this kind of file are not "
			       "pruned");
	/* The section is dropped and added again by name: another of that
	 * name would go with it. */
	for (size_t j = 1; j < s->n; j++)
		if (j != i && s->sec[j].name_len == sec->name_len &&
		    !memcmp(s->sec[j].name, sec->name, sec->name_len))
			return err_set(p->e, "two sections have this name: not "
				       "pruned");
	p->section = sec->name;
	rc = prune_packages(p, bytes, (size_t)size, sec->offset, &add.content);
	if (rc <= 0)
		return rc;
	add.name = strndup(sec->name, sec->name_len);
	grown = realloc(p->plan->add, (p->plan->nadd + 1) * sizeof(*grown));
	if (!add.name || !grown) {
		free(add.name);
		prune_patch_free(&add.content);
		return err_nomem(p->e);
	}
	p->plan->add = grown;
	add.type = sec->type;
	add.flags = sec->flags;
	add.align = sec->align;
	add.content.old_size = size;
	p->plan->size_after -= size - add.content.new_size;
	grown[p->plan->nadd++] = add;
	return prune_drop_section(p->plan, sec->name, sec->name_len, p->e);
}

/* An object bundle: one __CLANG_OFFLOAD_BUNDLE__<id> section per entry. */
static int prune_object_bundle(struct pruner *p, const struct elfscan *s,
			       size_t *device_before, size_t *device_after)
{
	for (size_t i = 1; i < s->n; i++) {
		const struct elfscan_section *sec = &s->sec[i];
		struct prune_entry pe = { .size = sec->size };
		const char *id;
		size_t id_len;

		if (!sections_id(sec->kind, sec->name, sec->name_len, &id,
				 &id_len))
			continue;
		p->container = p->base + sec->offset;
		prune_entry_from_id(&pe, id, id_len);
		*device_before += !pe.sel.host;
		if (prune_decide(p, &pe)) {
			*device_after += !pe.sel.host;
			continue;
		}
		if (prune_drop_section(p->plan, sec->name, sec->name_len,
				       p->e) < 0)
			return -1;
		p->plan->size_after -= sec->size;
	}
	return 0;
}

/* The major version N of the HIP runtime, libamdhip64.so.N, among the
 * libraries the file needs (DT_NEEDED); 0 when none is. */
static unsigned hip_runtime(const struct elfscan *s, const uint8_t *buf)
{
	static const char name[] = "libamdhip64.so.";
	size_t w = s->is64 ? 8 : 4;

	for (size_t i = 1; i < s->n; i++) {
		const struct elfscan_section *d = &s->sec[i];

		if (d->type != 6 /* SHT_DYNAMIC */ || d->link >= s->n)
			continue;
		for (uint64_t o = 0; o + 2 * w <= d->size; o += 2 * w) {
			const uint8_t *ent = buf + d->offset + o;
			uint64_t tag = get_endian(ent, (int)w, s->big_endian);
			const char *lib;
			size_t len;

			if (tag == 0)
				break;
			if (tag != 1 /* DT_NEEDED */)
				continue;
			lib = elfscan_string(buf, &s->sec[d->link],
					     get_endian(ent + w, (int)w,
							s->big_endian), &len);
			if (lib && len > sizeof(name) - 1 &&
			    !strncmp(lib, name, sizeof(name) - 1))
				return (unsigned)strtoul(lib + sizeof(name) - 1,
							 NULL, 10);
		}
	}
	return 0;
}

/* The CCOB version --compress writes in this file: the one its HIP
 * runtime reads (see prune.h). */
static int ccob_version_for(struct pruner *p, const struct elfscan *s,
			    const uint8_t *buf)
{
	unsigned rt;

	p->ccob_version = 0;
	if (!p->o->compress)
		return 0;
	p->ccob_version = p->o->ccob_version ? p->o->ccob_version : 3;
	if (p->o->ccob_version || (s->e_type != 2 && s->e_type != 3))
		return 0;
	rt = hip_runtime(s, buf);
	if (rt && rt < 6)
		return err_set(p->e, "its HIP runtime, libamdhip64.so.%u "
			       "(ROCm %u), reads no compressed offload bundles: "
			       "not compressed", rt, rt);
	if (!rt)
		return err_set(p->e, "it needs no HIP runtime "
			       "(libamdhip64.so.N) to say which CCOB version "
			       "it reads: --ccob-version");
	p->ccob_version = rt == 6 ? 2 : 3;
	return 0;
}

int prune_elf(struct pruner *p, const uint8_t *buf, size_t len)
{
	struct elfscan s;
	size_t device_before = 0, device_after = 0;
	bool bundles = false, any = false;
	int rc = -1;

	if (elfscan_open(&s, buf, len, p->e) < 0)
		return -1;
	p->ccob_version = 0;
	for (size_t i = 1; i < s.n && p->o->compress; i++)
		if (s.sec[i].kind == SECTION_HIP_FATBIN) {
			if (ccob_version_for(p, &s, buf) < 0)
				goto out;
			if (p->ccob_version > p->plan->ccob_version)
				p->plan->ccob_version = p->ccob_version;
			break;
		}
	for (size_t i = 1; i < s.n; i++) {
		const struct elfscan_section *sec = &s.sec[i];

		switch (sec->kind) {
		case SECTION_HIP_FATBIN:
		case SECTION_NV_FATBIN:
		case SECTION_NV_RELFATBIN:
			p->section = sec->name;
			any = true;
			if (prune_fatbin_section(p, &s, buf, i) < 0) {
				err_wrap(p->e, p->e->code, "section %s",
					 sec->name);
				goto out;
			}
			break;
		case SECTION_BUNDLE:
			bundles = any = true;
			break;
		case SECTION_OFFLOADING:
			any = true;
			if (prune_offloading(p, &s, buf, i) < 0) {
				err_wrap(p->e, p->e->code, "section %s",
					 sec->name);
				goto out;
			}
			break;
		case SECTION_OTHER:
		case SECTION_HIP_WRAPPERS:	/* point at code, hold none */
		case SECTION_NV_WRAPPERS:
		case SECTION_KPACK_REF:
			break;
		}
	}
	if (!any) {
		err_code_set(p->e, ERR_NOTHING, "no offload code to prune");
		goto out;
	}
	if (p->plan->n && (bundles || p->plan->nadd)) {
		err_set(p->e, "a .hip_fatbin beside an object bundle or "
			"packages in one object is not pruned");
		goto out;
	}
	if (bundles) {
		p->section = NULL;
		p->plan->containers++;
		if (prune_object_bundle(p, &s, &device_before,
					&device_after) < 0)
			goto out;
		if (device_before && !device_after)
			p->plan->containers_emptied++;
	}
	rc = 0;
out:
	elfscan_free(&s);
	return rc;
}

/* ---- archives ---- */

/* Whether a member's plan changes its size. */
static bool resizes(const struct prune_plan *plan)
{
	if (plan->ndrop || plan->nadd)
		return true;
	for (size_t i = 0; i < plan->n; i++)
		if (!plan->patch[i].in_place &&
		    plan->patch[i].new_size != plan->patch[i].old_size)
			return true;
	return false;
}

static void add_counts(struct prune_plan *to, const struct prune_plan *from)
{
	to->containers += from->containers;
	to->entries_kept += from->entries_kept;
	to->entries_dropped += from->entries_dropped;
	to->device_kept += from->device_kept;
	to->code_dropped += from->code_dropped;
	to->containers_emptied += from->containers_emptied;
	to->compressed += from->compressed;
	to->entries_compressed += from->entries_compressed;
	if (from->ccob_version > to->ccob_version)
		to->ccob_version = from->ccob_version;
}

/* The symbol table's date, as its header records it (LLVM writes it
 * again; deterministic archives have 0). */
static uint64_t symtab_date(const struct ar_reader *r)
{
	uint64_t v = 0;

	if (!r->symtab_len || r->symtab_off < AR_HEADER_LEN)
		return 0;
	for (size_t i = 16; i < 28; i++) {
		uint8_t c = r->buf[r->symtab_off - AR_HEADER_LEN + i];

		if (c < '0' || c > '9')
			break;
		v = v * 10 + (c - '0');
	}
	return v;
}

/* Every member pruned as a file.  When none changes size, their patches
 * become the archive's (the layout and the symbol table stay valid);
 * otherwise the archive is written again (prune_write). */
int prune_archive(struct pruner *p, const uint8_t *buf, size_t len)
{
	struct prune_plan *top = p->plan;
	struct ar_reader r;
	struct ar_member m;
	bool resize = false;
	int more;

	if (p->member)
		return err_set(p->e, "an archive inside an archive is not "
			       "pruned");
	if (ar_open(&r, buf, len, p->e) < 0)
		return -1;
	if (r.thin)
		return err_set(p->e, "a thin archive's members are other "
			       "files: prune those");
	if (r.kind != AR_GNU && r.kind != AR_GNU64 && r.kind != AR_COFF)
		return err_set(p->e, "only GNU and COFF archives are pruned "
			       "(this one is BSD or Darwin)");
	/* Written again as llvm-ar writes an archive of its kind. */
	top->ar_kind = r.kind == AR_COFF ? AR_COFF : AR_GNU;
	top->symtab = r.symtab_len > 0;
	top->symtab_mtime = symtab_date(&r);
	while ((more = ar_next(&r, &m, p->e)) == 1) {
		struct prune_member *grown, *pm;
		struct ar_attrs a;

		if (ar_member_attrs(&r, &m, &a, p->e) < 0)
			return -1;
		grown = realloc(top->member, (top->nmember + 1) *
			sizeof(*grown));
		if (!grown)
			return err_nomem(p->e);
		top->member = grown;
		pm = &top->member[top->nmember++];
		*pm = (struct prune_member){
			.name = m.name, .name_len = m.name_len,
			.offset = m.offset, .size = m.size,
			.uid = a.uid, .gid = a.gid, .mode = a.mode,
			.mtime = (int64_t)a.mtime,
		};
		pm->plan.size_before = pm->plan.size_after = m.size;
		p->plan = &pm->plan;
		p->base = m.offset;
		p->member = true;
		if (p->plan_member(p, buf + m.offset, (size_t)m.size) < 0) {
			p->plan = top;
			p->base = 0;
			p->member = false;
			return err_wrap(p->e, p->e->code, "member %.*s",
					(int)m.name_len, m.name);
		}
		p->plan = top;
		p->base = 0;
		p->member = false;
		add_counts(top, &pm->plan);
		resize = resize || resizes(&pm->plan);
	}
	if (more < 0)
		return -1;
	if (resize) {
		/* An estimate until written: padding and tables aside. */
		for (size_t i = 0; i < top->nmember; i++) {
			const struct prune_plan *mp = &top->member[i].plan;
			uint64_t after = mp->size_after;

			for (size_t j = 0; j < mp->n; j++)
				if (!mp->patch[j].in_place)
					after -= mp->patch[j].old_size -
						 mp->patch[j].new_size;
			top->size_after -= mp->size_before - after;
		}
		return 0;
	}
	/* The same sizes: patch the archive where its members are. */
	for (size_t i = 0; i < top->nmember; i++) {
		struct prune_plan *mp = &top->member[i].plan;

		for (size_t j = 0; j < mp->n; j++) {
			struct prune_patch pt = mp->patch[j];

			pt.offset += top->member[i].offset;
			for (size_t k = 0; k < pt.npieces; k++)
				if (!pt.piece[k].file)	/* the spool's */
					pt.piece[k].src +=
						top->member[i].offset;
			if (prune_add_patch(top, &pt, p->e) < 0)
				return -1;
			memset(&mp->patch[j], 0, sizeof(mp->patch[j]));
		}
	}
	for (size_t i = 0; i < top->nmember; i++)
		prune_plan_free(&top->member[i].plan);
	free(top->member);
	top->member = NULL;
	top->nmember = 0;
	return 0;
}

/* A whole file rewritten as one patch (rc from what made it: 1 with the
 * patch in *pt, 0 when all stays). */
static int plan_patch(struct pruner *p, size_t len, int rc,
		      struct prune_patch *pt)
{
	if (rc <= 0)
		return rc;
	pt->offset = 0;
	pt->old_size = len;
	if (prune_add_patch(p->plan, pt, p->e) < 0) {
		prune_patch_free(pt);
		return -1;
	}
	return 0;
}

/* ---- files that are containers ---- */

int prune_bare(struct pruner *p, const uint8_t *buf, size_t len)
{
	struct prune_patch pt = { 0 };
	const struct kind *k;
	enum fatbin_kind kind;
	size_t end;
	int rc;

	if (!fatbin_probe_file(buf, len, &kind))
		return err_code_set(p->e, ERR_NOTHING, "no offload code to "
				    "prune");
	k = kinds_get(kind);
	if (k->prune_file) {
		rc = k->prune_file(p, buf, len, &pt, &end);
		return plan_patch(p, end, rc, &pt);
	}
	if (!k->prune)		/* sections, not bytes */
		return err_code_set(p->e, ERR_NOTHING, "no offload code to "
				    "prune");
	p->ccob_version = !p->o->compress ? 0
			  : p->o->ccob_version ? p->o->ccob_version : 3;
	if (p->ccob_version > p->plan->ccob_version)
		p->plan->ccob_version = p->ccob_version;
	return prune_region(p, buf, len, 0, false);
}

int prune_text_bundle(struct pruner *p, const uint8_t *buf, size_t len)
{
	struct prune_patch pt = { 0 };
	char comment[BUNDLE_TEXT_COMMENT_MAX];

	if (!bundle_text_comment(buf, len, comment, sizeof(comment)))
		return err_code_set(p->e, ERR_NOTHING, "no offload code to "
				    "prune");
	return plan_patch(p, len, prune_text(p, buf, len, comment, &pt), &pt);
}

/* ---- the writing ---- */

/* An object without the dropped sections and with the rewritten ones
 * added: in ELF dropped and added again at the end (llvm-objcopy
 * --remove-section, --add-section), in COFF their bytes replaced where
 * they are (llvm-objcopy --update-section).  Their bytes are made in
 * memory: packages are small. */
static int write_sections(const uint8_t *buf, size_t len,
			  const struct prune_plan *plan, struct io_out *out,
			  struct err *e)
{
	struct elfcopy_add *add = calloc(plan->nadd ? plan->nadd : 1,
					 sizeof(*add));
	struct membuf *bytes = calloc(plan->nadd ? plan->nadd : 1,
				      sizeof(*bytes));
	struct coffcopy_add *cadd = NULL;
	int rc = -1;

	if (!add || !bytes) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < plan->nadd; i++) {
		const struct prune_section *ps = &plan->add[i];

		if (prune_materialize(&ps->content, &bytes[i], e) < 0)
			goto out;
		add[i] = (struct elfcopy_add){
			.name = ps->name, .data = bytes[i].p,
			.size = bytes[i].len, .type = ps->type,
			.flags = ps->flags, .align = ps->align,
		};
	}
	if (elfscan_is_elf(buf, len)) {
		rc = elfcopy_write(buf, len, is_dropped_section, (void *)plan,
				   add, plan->nadd, out, e);
		goto out;
	}
	/* COFF objects: sections of packages updated in place. */
	cadd = calloc(plan->nadd ? plan->nadd : 1, sizeof(*cadd));
	if (!cadd) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < plan->nadd; i++)
		cadd[i] = (struct coffcopy_add){ .name = add[i].name,
			.data = add[i].data, .size = add[i].size,
			.update = true };
	rc = coffcopy_write(buf, len, is_dropped_section, (void *)plan, cadd,
			    plan->nadd, out, e);
out:
	for (size_t i = 0; bytes && i < plan->nadd; i++)
		free(bytes[i].p);
	free(bytes);
	free(add);
	free(cadd);
	return rc;
}

/* A member's new bytes, in memory (ar_write takes buffers). */
static int member_bytes(const uint8_t *buf, const struct prune_member *pm,
			struct membuf *m, struct err *e)
{
	const uint8_t *data = buf + pm->offset;
	const struct prune_plan *plan = &pm->plan;
	uint64_t pos = 0;

	if (plan->ndrop || plan->nadd) {
		struct io_out scratch = { .fd = -1 };
		struct io_in view;
		int rc = -1;

		if (io_scratch_open(&scratch, e) == 0 &&
		    write_sections(data, (size_t)pm->size, plan, &scratch,
				   e) == 0 &&
		    io_scratch_map(&scratch, &view, e) == 0)
			rc = prune_mem_put(m, view.data, view.len, e);
		io_out_discard(&scratch);
		return rc;
	}
	for (size_t i = 0; i < plan->n; i++) {
		const struct prune_patch *pt = &plan->patch[i];
		static const uint8_t zeros[4096];

		if (prune_mem_put(m, data + pos, (size_t)(pt->offset - pos), e) < 0 ||
		    prune_materialize(pt, m, e) < 0)
			return -1;
		for (uint64_t z = pt->in_place ? pt->old_size - pt->new_size
					       : 0; z;) {
			size_t step = z < sizeof(zeros) ? (size_t)z
							 : sizeof(zeros);

			if (prune_mem_put(m, zeros, step, e) < 0)
				return -1;
			z -= step;
		}
		pos = pt->offset + pt->old_size;
	}
	return prune_mem_put(m, data + pos, (size_t)(pm->size - pos), e);
}

/* The archive again, each member as its plan makes it, and its symbol
 * table from the new members (GNU, as llvm-ar writes it). */
static int write_archive(const struct io_in *in, struct prune_plan *plan,
			 struct io_out *out, struct err *e)
{
	size_t n = plan->nmember;
	struct membuf *data = calloc(n ? n : 1, sizeof(*data));
	struct ar_symlist *syms = calloc(n ? n : 1, sizeof(*syms));
	struct ar_piece *pieces = calloc(n ? n : 1, sizeof(*pieces));
	struct ar_new_member *nm = calloc(n ? n : 1, sizeof(*nm));
	struct ar_write_opts opt = {
		.flags = plan->symtab ? AR_WRITE_SYMTAB : 0,
		.sym64_threshold = AR_SYM64_THRESHOLD,
		.now = (int64_t)plan->symtab_mtime,
		.kind = (enum ar_kind)plan->ar_kind,
	};
	int rc = -1;

	if (!data || !syms || !pieces || !nm) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct prune_member *pm = &plan->member[i];

		if (member_bytes(in->data, pm, &data[i], e) < 0)
			goto out;
		if (ar_member_symbols(data[i].p, data[i].len, &syms[i], e) < 0) {
			err_wrap(e, e->code, "member %.*s",
				 (int)pm->name_len, pm->name);
			goto out;
		}
		pieces[i] = (struct ar_piece){ data[i].p, data[i].len };
		nm[i] = (struct ar_new_member){
			.name = pm->name, .name_len = pm->name_len,
			.piece = &pieces[i], .npieces = 1,
			.symbolic = syms[i].symbolic, .syms = syms[i].syms,
			.syms_len = syms[i].len, .nsyms = syms[i].n,
			.mtime = pm->mtime, .uid = pm->uid, .gid = pm->gid,
			.mode = pm->mode, .ec = syms[i].ec,
		};
	}
	rc = ar_write(out, nm, n, &opt, e);
out:
	for (size_t i = 0; data && syms && i < n; i++) {
		free(data[i].p);
		ar_symlist_free(&syms[i]);
	}
	free(data);
	free(syms);
	free(pieces);
	free(nm);
	return rc;
}

/* The pruned bytes of the input range [from, to): patches applied, freed
 * bytes as holes.  A range may start or end inside freed bytes, never
 * inside new ones. */
static int write_range(const struct io_in *in, const struct prune_plan *plan,
		       uint64_t from, uint64_t to, struct io_out *out,
		       struct err *e)
{
	uint64_t pos = from;

	for (size_t i = 0; i < plan->n && pos < to; i++) {
		const struct prune_patch *pt = &plan->patch[i];
		uint64_t old_end = pt->offset + pt->old_size;
		uint64_t fresh = pt->in_place ? pt->offset + pt->new_size
					      : old_end;

		if (old_end <= pos)
			continue;
		if (pt->offset >= to)
			break;
		if (io_out_copy(out, in, pos, pt->offset > pos ?
				pt->offset - pos : 0, e) < 0)
			return -1;
		if (pos < pt->offset)
			pos = pt->offset;
		if (pos == pt->offset && fresh <= to) {
			for (size_t j = 0; j < pt->npieces; j++) {
				const struct prune_piece *pc = &pt->piece[j];

				if (io_out_write(out, pc->lit, pc->lit_len,
						 e) < 0 ||
				    io_out_zeros(out, pc->pad, e) < 0 ||
				    (pc->from_file
				     ? io_out_copy(out, pc->file ? pc->file
							       : in, pc->src,
						   pc->data_len, e)
				     : io_out_write(out, pc->data,
						    (size_t)pc->data_len,
						    e)) < 0)
					return -1;
			}
			pos = fresh;
		} else if (pos < fresh) {
			return err_set(e, "internal error: a header written "
				       "anew falls on offload code");
		}
		if ((old_end < to ? old_end : to) > pos) {
			uint64_t hi = old_end < to ? old_end : to;

			if (io_out_hole(out, hi - pos, e) < 0)
				return -1;
			pos = hi;
		}
	}
	return io_out_copy(out, in, pos, to - pos, e);
}

static int write_plan(const struct io_in *in, struct prune_plan *plan,
		      struct io_out *out, struct err *e)
{
	uint64_t pos = 0;

	if (plan->nmember)
		return write_archive(in, plan, out, e);
	if (plan->ndrop || plan->nadd)
		return write_sections(in->data, in->len, plan, out, e);
	for (size_t i = 0; i < plan->shrink.n; i++) {
		const struct elf_shrink_edit *ed = &plan->shrink.edit[i];

		if (write_range(in, plan, pos, ed->offset, out, e) < 0)
			return -1;
		if ((ed->kind == ELF_SHRINK_ZERO &&
		     io_out_zeros(out, ed->len, e) < 0) ||
		    (ed->kind == ELF_SHRINK_BYTES &&
		     io_out_write(out, ed->bytes, ed->bytes_len, e) < 0))
			return -1;
		pos = ed->offset + ed->len;
	}
	return write_range(in, plan, pos, in->len, out, e);
}

/* The PE checksum of what was written (16-bit words summed with their
 * carries folded, the field itself left out, plus the file's length),
 * put in its field. */
static int pe_checksum(struct io_out *out, uint64_t at, struct err *e)
{
	uint8_t b[1 << 16], word[4];
	uint64_t sum = 0, pos = 0;
	ssize_t got;

	while ((got = pread(out->fd, b, sizeof(b), (off_t)pos)) > 0) {
		for (ssize_t i = 0; i < got; i += 2) {
			uint64_t off = pos + (uint64_t)i;
			uint32_t w = b[i] | (i + 1 < got ? b[i + 1] << 8 : 0);

			if (off >= at && off < at + 4)
				continue;
			sum += w;
			sum = (sum & 0xffff) + (sum >> 16);
		}
		pos += (uint64_t)got;
	}
	if (got < 0)
		return err_set(e, "cannot read back '%s' for its "
				    "PE checksum: %s", out->path,
				    strerror(errno));
	sum = (sum & 0xffff) + (sum >> 16);
	put_le(word, (uint32_t)(sum + pos), 4);
	if (pwrite(out->fd, word, 4, (off_t)at) != 4)
		return err_set(e, "cannot write the PE checksum "
				    "of '%s': %s", out->path, strerror(errno));
	return 0;
}

int prune_write(const struct io_in *in, struct prune_plan *plan,
		struct io_out *out, struct err *e)
{
	struct stat st;

	if (write_plan(in, plan, out, e) < 0 || io_out_flush(out, e) < 0 ||
	    (plan->pe_checksum && pe_checksum(out, plan->pe_checksum, e) < 0))
		return -1;
	/* What was written, where it can be seen (not on a pipe). */
	if (fstat(out->fd, &st) == 0 && S_ISREG(st.st_mode))
		plan->size_after = (uint64_t)st.st_size;
	return 0;
}

void prune_plan_free(struct prune_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++)
		prune_patch_free(&plan->patch[i]);
	free(plan->patch);
	for (size_t i = 0; i < plan->ndrop; i++)
		free(plan->drop_sections[i]);
	free(plan->drop_sections);
	for (size_t i = 0; i < plan->nmember; i++)
		prune_plan_free(&plan->member[i].plan);
	free(plan->member);
	for (size_t i = 0; i < plan->nadd; i++) {
		free(plan->add[i].name);
		prune_patch_free(&plan->add[i].content);
	}
	free(plan->add);
	elf_shrink_free(&plan->shrink);
	free(plan->trim);
	prune_spool_free(plan->spool);
	memset(plan, 0, sizeof(*plan));
}
