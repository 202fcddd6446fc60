/* inspect_kpack: an AMD kpack archive (formats/kpack.h), a whole file, as
 * the walk of inspect.c sees it (its row in kinds.c): one container, an entry per TOC entry,
 * named by its TOC key, its target the TOC's ("gfx90a"), its triple
 * amdgcn-amd-amdhsa (the archives hold AMDGPU code objects, "hsaco").
 * "none": the code is in the file; zstd-per-kernel: each entry inflated
 * on its own when the walk inflates, freed after its visit. */
#include <stdlib.h>
#include <string.h>

#include "inspect_containers.h"
#include "inspect_kpack.h"
#include "../formats/kpack.h"

static const char amdgcn[] = "amdgcn-amd-amdhsa";

int inspect_kpack_entry(const struct kpack *k, const uint8_t *p,
			uint64_t size, size_t i, const struct inspect_node *c,
			bool inflate, const struct ccob_limits *lim,
			struct inspect_node *n, uint8_t **code, struct err *e)
{
	const struct kpack_entry *en = &k->v[i];
	uint64_t got;

	*code = NULL;
	*n = (struct inspect_node){
		.kind = INSPECT_ENTRY, .depth = c->depth + 1,
		.container = FATBIN_KPACK, .number = c->number,
		.version = k->version, .index = (unsigned)i,
		.name = en->key, .name_len = strlen(en->key),
		.arch = en->target, .arch_len = strlen(en->target),
		.triple = amdgcn, .triple_len = sizeof(amdgcn) - 1,
		.size = en->size, .kpack_stored = en->stored,
	};
	if (k->scheme == KPACK_NONE) {
		if (kpack_entry_stored_whole(en, e) < 0)
			return -1;
		n->in_file = true;
		n->offset = c->offset + en->offset;
		n->data = p + en->offset;
	} else if (inflate) {
		if (kpack_entry_code(p, (size_t)size, k, i, lim, code, &got,
				     e) < 0)
			return -1;
		n->data = *code;
	}
	n->code_size = n->size;
	n->image_kind = inspect_sniff_image(n->data, n->size);
	return 0;
}

int inspect_walk_kpack(struct walk *w, struct inspect_node *c,
		       const uint8_t *p, uint64_t size)
{
	struct kpack k;
	int rc = 0;

	if (kpack_parse(p, (size_t)size, &k, w->e) < 0)
		return -1;
	c->version = k.version;
	c->entries = k.n;
	c->kpack_scheme = k.scheme;
	if (inspect_emit(w, c) < 0) {
		kpack_free(&k);
		return -1;
	}
	for (size_t i = 0; i < k.n && !rc; i++) {
		struct inspect_node n;
		uint8_t *code;

		if (inspect_kpack_entry(&k, p, size, i, c, w->o->inflate,
					&w->o->ccob, &n, &code, w->e) < 0) {
			rc = -1;
			break;
		}
		rc = inspect_emit(w, &n);
		free(code);
	}
	kpack_free(&k);
	return rc;
}
