/* prune_coff: device code taken out of COFF objects and PE images (see
 * prune.h).  An object's bundle sections go as llvm-objcopy removes them
 * (written by coffcopy); fat-binary sections are pruned in place, their
 * freed bytes zeroed: in a linked image nothing may move, since its
 * runtime registration points into them. */
#include <stdio.h>
#include <string.h>

#include "../formats/bundle.h"
#include "../formats/coff.h"
#include "prune_coff.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_region.h"
#include "../core/bytes.h"

struct walk {
	struct pruner *p;
	const uint8_t *buf;
	bool image, fatbin, bundles, packages;
	size_t device_before, device_after;
};

/* Fat-binary sections by their names, whole in objects and cut to eight
 * bytes in images (as ls reads them). */
static bool is_fatbin(const char *name, size_t len)
{
	static const char *const names[] = {
		".hip_fatbin", ".nv_fatbin", ".hip_fat", ".nv_fatb",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return true;
	return false;
}

static bool is_bundle(const char *name, size_t len)
{
	return len > BUNDLE_MAGIC_LEN &&
	       !memcmp(name, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN);
}

static bool is_packages(const char *name, size_t len)
{
	size_t pre = strlen(COFF_OFFLOADING_PREFIX);

	return len >= pre && !memcmp(name, COFF_OFFLOADING_PREFIX, pre);
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
	w->fatbin |= is_fatbin(s->name, s->name_len);
	w->bundles |= is_bundle(s->name, s->name_len);
	w->packages |= is_packages(s->name, s->name_len);
	return 0;
}

/* Second pass: each fat-binary section pruned in place, each bundle
 * section kept or dropped. */
static int prune_section(void *ctx, const struct coff_section *s,
			 struct err *e)
{
	struct walk *w = ctx;
	struct pruner *p = w->p;

	if (is_fatbin(s->name, s->name_len)) {
		char name[16];

		snprintf(name, sizeof(name), "%.*s", (int)s->name_len, s->name);
		p->section = name;
		if (prune_region(p, w->buf + s->offset, (size_t)s->size,
				 s->offset, true) < 0) {
			return err_wrap(e, e->code, "section %s", name);
		}
		p->section = NULL;
		return 0;
	}
	if (is_bundle(s->name, s->name_len)) {
		struct prune_entry pe = { .size = s->size };

		p->container = p->base + s->offset;
		prune_entry_from_id(&pe, s->name + BUNDLE_MAGIC_LEN,
				    s->name_len - BUNDLE_MAGIC_LEN);
		w->device_before += !pe.sel.host;
		if (prune_decide(p, &pe)) {
			w->device_after += !pe.sel.host;
			return 0;
		}
		if (prune_drop_section(p->plan, s->name, s->name_len, e) < 0)
			return -1;
		p->plan->size_after -= s->size;
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
	if (!w.fatbin && !w.bundles && !w.packages)
		return err_code_set(p->e, ERR_NOTHING,
				    "no offload code to prune");
	if (w.packages)
		return err_set(p->e, "offload packages in COFF files are not "
			       "pruned yet");
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
