/* prune_coff: device code taken out of COFF objects and PE images (see
 * prune.h).  An object's bundle sections go as llvm-objcopy removes them
 * (written by coffcopy); fat-binary sections are pruned in place, their
 * freed bytes zeroed: in a linked image nothing may move, since its
 * runtime registration points into them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/coff.h"
#include "../formats/package.h"
#include "prune_coff.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_omp.h"
#include "prune_region.h"
#include "../core/bytes.h"
#include "../core/sections.h"

struct walk {
	struct pruner *p;
	const uint8_t *buf;
	bool image, fatbin, bundles, packages;
	size_t device_before, device_after;
	size_t len;
	uint16_t machine;
	char name[64];		/* the section of packages being pruned */
	/* The names of the sections of packages (each written again by
	 * name: two of one name are refused). */
	const char *pkg_name[8];
	size_t pkg_len[8], npkg;
	bool pkg_twice;
};

/* The bytes of a section of packages that are packages: in a PE image's
 * .llvm (lld-link for MinGW merges .llvm.offloading into it) those it
 * starts with, as ls reads it (0: none). */
static uint64_t packages_size(const uint8_t *buf, const struct coff_section *s)
{
	if (sections_image_merged(s->name, s->name_len))
		return package_run(buf + s->offset, (size_t)s->size);
	return s->size;
}

static bool want_all(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	(void)name;
	(void)len;
	return true;
}

/* First pass: what the file holds. */
static int survey(void *ctx, const struct coff_section *s, struct err *e)
{
	struct walk *w = ctx;

	(void)e;
	switch (sections_coff_kind(s->name, s->name_len, w->image)) {
	case SECTION_HIP_FATBIN:
	case SECTION_NV_FATBIN:
	case SECTION_NV_RELFATBIN:
		w->fatbin = true;
		break;
	case SECTION_BUNDLE:
		w->bundles = true;
		break;
	case SECTION_OFFLOADING:
		if (w->image && !packages_size(w->buf, s))
			break;
		for (size_t i = 0; i < w->npkg; i++)
			w->pkg_twice |= w->pkg_len[i] == s->name_len &&
					!memcmp(w->pkg_name[i], s->name,
						s->name_len);
		if (w->npkg < sizeof(w->pkg_name) / sizeof(w->pkg_name[0])) {
			w->pkg_name[w->npkg] = s->name;
			w->pkg_len[w->npkg++] = s->name_len;
		} else {
			w->pkg_twice = true;	/* too many to tell */
		}
		w->packages = true;
		break;
	case SECTION_OTHER:
	case SECTION_HIP_WRAPPERS:
	case SECTION_NV_WRAPPERS:
	case SECTION_KPACK_REF:
		break;
	}
	return 0;
}

/* The packages of an object's .llvm.offloading* section: the section's
 * bytes replaced by the kept ones (as llvm-objcopy --update-section
 * replaces them: nothing in the object points into them). */
static int prune_section_packages(struct walk *w, const struct coff_section *s,
				  struct err *e)
{
	struct pruner *p = w->p;
	struct prune_section *grown, add = { 0 };
	int rc;

	p->section = w->name;
	snprintf(w->name, sizeof(w->name), "%.*s", (int)s->name_len, s->name);
	rc = prune_packages(p, w->buf + s->offset, (size_t)s->size, s->offset,
			    &add.content);
	if (rc <= 0)
		return rc < 0 ? err_wrap(e, e->code, "section %s", w->name) : 0;
	add.name = strndup(s->name, s->name_len);
	grown = realloc(p->plan->add, (p->plan->nadd + 1) * sizeof(*grown));
	if (!add.name || !grown) {
		free(add.name);
		prune_patch_free(&add.content);
		return err_nomem(e);
	}
	p->plan->add = grown;
	add.content.old_size = s->size;
	p->plan->size_after -= s->size - add.content.new_size;
	grown[p->plan->nadd++] = add;
	p->section = NULL;
	return 0;
}

/* The packages of a PE image's section: pruned in place, the OpenMP
 * runtime's image table made to list the kept images (prune_omp.c). */
static int prune_image_packages(struct walk *w, const struct coff_section *s,
				struct err *e)
{
	struct pruner *p = w->p;
	struct coff_image_section *v = NULL;
	uint64_t base;
	size_t n;
	int rc;

	if (coff_image_layout(w->buf, w->len, &base, &v, &n, e) < 0)
		return err_wrap(e, e->code, "section %.*s", (int)s->name_len,
				s->name);
	snprintf(w->name, sizeof(w->name), "%.*s", (int)s->name_len, s->name);
	p->section = w->name;
	rc = s->index >= 1 && s->index <= n
	     ? prune_pe_linked_packages(p, w->machine, v, n, w->buf,
					s->index - 1, packages_size(w->buf, s))
	     : err_set(e, "no section %u", s->index);
	p->section = NULL;
	free(v);
	return rc < 0 ? err_wrap(e, e->code, "section %s", w->name) : 0;
}

/* Second pass: each fat-binary section pruned in place, each bundle
 * section kept or dropped, each section of packages written again. */
static int prune_section(void *ctx, const struct coff_section *s,
			 struct err *e)
{
	struct walk *w = ctx;
	struct pruner *p = w->p;
	enum section_kind k = sections_coff_kind(s->name, s->name_len,
						 w->image);
	struct prune_entry pe = { .size = s->size };
	const char *id;
	size_t id_len;
	char name[16];

	switch (k) {
	case SECTION_HIP_FATBIN:
	case SECTION_NV_FATBIN:
	case SECTION_NV_RELFATBIN:
		snprintf(name, sizeof(name), "%.*s", (int)s->name_len, s->name);
		p->section = name;
		if (prune_region(p, w->buf + s->offset, (size_t)s->size,
				 s->offset, true) < 0)
			return err_wrap(e, e->code, "section %s", name);
		p->section = NULL;
		return 0;
	case SECTION_OFFLOADING:
		if (!w->image)
			return prune_section_packages(w, s, e);
		return packages_size(w->buf, s) ? prune_image_packages(w, s, e)
						: 0;
	case SECTION_BUNDLE:
		p->container = p->base + s->offset;
		(void)sections_id(k, s->name, s->name_len, &id, &id_len);
		prune_entry_from_id(&pe, id, id_len);
		w->device_before += !pe.sel.host;
		if (prune_decide(p, &pe)) {
			w->device_after += !pe.sel.host;
			return 0;
		}
		if (prune_drop_section(p->plan, s->name, s->name_len, e) < 0)
			return -1;
		p->plan->size_after -= s->size;
		return 0;
	case SECTION_OTHER:
	case SECTION_HIP_WRAPPERS:
	case SECTION_NV_WRAPPERS:
	case SECTION_KPACK_REF:
		return 0;
	}
	return 0;
}

/* The optional header's CheckSum field: its offset when set, else 0. */
static uint64_t checksum_at(const uint8_t *buf, size_t len)
{
	uint64_t at = get_le(buf + 60, 4) + 4 + 20 + 64;

	return at <= len && len - at >= 4 && get_le(buf + at, 4) ? at : 0;
}

int prune_coff(struct pruner *p, const uint8_t *buf, size_t len)
{
	struct walk w = { .p = p, .buf = buf, .image = coff_is_image(buf, len) };
	uint16_t machine;
	bool bigobj;

	if (coff_sections(buf, len, want_all, survey, &w, &machine, &bigobj,
			  p->e) < 0)
		return -1;
	w.len = len;
	w.machine = machine;
	if (!w.fatbin && !w.bundles && !w.packages)
		return err_code_set(p->e, ERR_NOTHING,
				    "no offload code to prune");
	if (w.pkg_twice)
		return err_set(p->e, "two sections of offload packages have "
			       "one name (or more than 8 such sections): not "
			       "pruned");
	if (w.packages && w.fatbin && !w.image)
		return err_set(p->e, "a .hip_fatbin beside offload packages "
			       "in one object is not pruned");
	if (w.bundles && (w.image || w.fatbin))
		return err_set(p->e, w.image ? "object bundle sections in a PE "
			       "image are not pruned" : "a .hip_fatbin beside "
			       "an object bundle in one object is not pruned");
	if (w.bundles)
		p->plan->containers++;
	if (coff_sections(buf, len, want_all, prune_section, &w, &machine,
			  &bigobj, p->e) < 0)
		return -1;
	if (w.device_before && !w.device_after)
		p->plan->containers_emptied++;
	if (w.image && p->plan->n)
		p->plan->pe_checksum = checksum_at(buf, len);
	return 0;
}
