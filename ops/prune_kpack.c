/* prune_kpack: a kpack archive with the kept code objects alone, written
 * as rocm-kpack's PackedKernelArchive writes one (formats/kpack_write.c):
 * what the reference splitter would have written had it been given those
 * code objects alone, in the same order.
 *   - the kept entries in the order of their ordinals (the order the
 *     splitter added them), ordinals counted anew from 0; keys, targets
 *     and each entry's metadata as they were;
 *   - the same compression scheme; zstd-per-kernel frames made again at
 *     rocm-kpack's default level, 3 (a frame does not say its level);
 *   - group_name as it was; gfx_arches the listed ones some kept entry is
 *     for, in their order; gfx_arch_family as it was, unless it names a
 *     listed target none is kept for: then the first one left (the
 *     splitter names a per-GPU archive's family after its GPU).
 * An entry is shown to selection as the walk shows it (ops/inspect_kpack.c):
 * its TOC key as its ID, its target, amdgcn-amd-amdhsa. */
#include <stdlib.h>
#include <string.h>

#include "prune_containers.h"
#include "prune_kpack.h"
#include "../formats/kpack.h"
#include "../formats/kpack_write.h"

enum { ROCM_KPACK_ZSTD_LEVEL = 3 };

static const char amdgcn[] = "amdgcn-amd-amdhsa";

static int by_ordinal(const void *a, const void *b)
{
	const struct kpack_entry *x = *(const struct kpack_entry *const *)a;
	const struct kpack_entry *y = *(const struct kpack_entry *const *)b;

	return (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

static int sink(void *ctx, const void *src, size_t n, struct err *e)
{
	return prune_mem_put(ctx, src, n, e);
}

/* The archive of the kept entries (kept[i] for k->v[i]) into m. */
static int write_kept(struct pruner *p, const uint8_t *buf, size_t len,
		      const struct kpack *k, const bool *kept, size_t nkept,
		      struct membuf *m)
{
	const struct kpack_entry **order = NULL;
	struct kpack_new *v = NULL;
	const char **arches = NULL;
	struct kpack_write_opts wo = {
		.group_name = k->group_name ? k->group_name : "",
		.arch_family = k->arch_family ? k->arch_family : "",
		.scheme = k->scheme, .level = ROCM_KPACK_ZSTD_LEVEL,
	};
	bool family_gone = false;
	size_t n = 0;
	int rc = -1;

	order = calloc(nkept ? nkept : 1, sizeof(*order));
	v = calloc(nkept ? nkept : 1, sizeof(*v));
	arches = calloc(k->narches ? k->narches : 1, sizeof(*arches));
	if (!order || !v || !arches) {
		err_nomem(p->e);
		goto out;
	}
	for (size_t i = 0; i < k->n; i++)
		if (kept[i])
			order[n++] = &k->v[i];
	qsort(order, n, sizeof(*order), by_ordinal);
	for (size_t i = 0; i < n; i++) {
		uint8_t *code;
		uint64_t size;

		if (kpack_entry_code(buf, len, k, (size_t)(order[i] - k->v),
				     &p->o->limits, &code, &size, p->e) < 0)
			goto out;
		v[i] = (struct kpack_new){
			.key = order[i]->key, .arch = order[i]->target,
			.code = code, .size = size,
			.meta = order[i]->meta, .meta_len = order[i]->meta_len,
		};
	}
	for (size_t a = 0; a < k->narches; a++) {
		bool used = false;

		for (size_t i = 0; i < n && !used; i++)
			used = !strcmp(v[i].arch, k->arches[a]);
		if (used)
			arches[wo.narches++] = k->arches[a];
		else if (k->arch_family && !strcmp(k->arch_family, k->arches[a]))
			family_gone = true;
	}
	if (family_gone && wo.narches)
		wo.arch_family = arches[0];
	wo.arches = arches;
	rc = kpack_write(v, n, &wo, sink, m, p->e);
out:
	for (size_t i = 0; v && i < n; i++)
		free((void *)v[i].code);
	free(v);
	free(order);
	free(arches);
	return rc;
}

int prune_kpack(struct pruner *p, const uint8_t *buf, size_t len,
		struct prune_patch *pt)
{
	struct membuf m = { 0 };
	struct kpack k;
	bool *kept = NULL;
	size_t nkept = 0;
	int rc = -1;

	if (kpack_parse(buf, len, &k, p->e) < 0)
		return err_wrap(p->e, p->e->code, "kpack archive");
	/* Stored as they are: each whole, as the walk reads them. */
	for (size_t i = 0; k.scheme == KPACK_NONE && i < k.n; i++)
		if (kpack_entry_stored_whole(&k.v[i], p->e) < 0) {
			err_wrap(p->e, p->e->code, "kpack archive");
			goto out;
		}
	p->container = p->base;
	p->plan->containers++;
	if (!(kept = calloc(k.n ? k.n : 1, sizeof(*kept)))) {
		err_nomem(p->e);
		goto out;
	}
	for (size_t i = 0; i < k.n; i++) {
		const struct kpack_entry *en = &k.v[i];
		struct prune_entry pe = {
			.sel = {
				.id = en->key, .id_len = strlen(en->key),
				.arch = en->target,
				.arch_len = strlen(en->target),
				.triple = amdgcn, .triple_len = sizeof(amdgcn) - 1,
			},
			.size = en->size,
		};

		kept[i] = prune_decide(p, &pe);
		nkept += kept[i];
	}
	if (k.n && !nkept)
		p->plan->containers_emptied++;
	rc = 0;
	if (nkept == k.n || p->o->decide_only)
		goto out;
	rc = -1;
	if (write_kept(p, buf, len, &k, kept, nkept, &m) < 0)
		goto out;
	memset(pt, 0, sizeof(*pt));
	if (prune_patch_whole(pt, m.p, m.len, p->e) < 0)
		goto out;
	m.p = NULL;
	rc = 1;
out:
	free(m.p);
	free(kept);
	kpack_free(&k);
	return rc;
}
