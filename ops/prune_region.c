/* prune_region: the containers of a section or a file, one after
 * another, each pruned as its kind's row (kinds.c) says. */
#include "../formats/fatbin.h"
#include "kinds.h"
#include "prune_containers.h"
#include "prune_impl.h"
#include "prune_region.h"

int prune_region(struct pruner *p, const uint8_t *buf, size_t len,
			uint64_t base, bool in_place)
{
	struct fatbin_item it;
	const struct kind *k;
	uint64_t pos = 0;
	int rc;

	while ((rc = fatbin_next(buf, len, &pos, &p->o->limits, &it,
				 p->e)) > 0) {
		struct prune_patch pt = { 0 };

		p->container = p->base + base + it.offset;
		p->plan->containers++;
		k = kinds_get(it.kind);
		rc = k->prune ? k->prune(p, buf + it.offset, it.size,
					 base + it.offset, &pt)
			      : err_set(p->e, "%ss are not pruned yet",
					fatbin_item_name(&it));
		if (rc < 0)
			goto fail;
		if (rc == 0)
			continue;
		/* Fewer entries never need more room, but for a layout the
		 * bundler would not make, or a CCOB compressed worse. */
		if (pt.new_size > it.size) {
			err_set(p->e, "pruned, it would take %llu bytes, more "
				"than its %llu (%s)",
				(unsigned long long)pt.new_size,
				(unsigned long long)it.size,
				k->grown);
			prune_patch_free(&pt);
			goto fail;
		}
		pt.offset = base + it.offset;
		pt.old_size = it.size;
		pt.in_place = in_place;
		if (prune_add_patch(p->plan, &pt, p->e) < 0) {
			prune_patch_free(&pt);
			return -1;
		}
	}
	if (rc == 0)
		return 0;
fail:
	err_wrap(p->e, p->e->code, "%s at offset %llu", fatbin_item_name(&it),
		 (unsigned long long)(base + it.offset));
	return err_at(p->e, p->base + base + it.offset);
}

