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
		const struct kpack_entry *en = &k.v[i];
		struct inspect_node n = {
			.kind = INSPECT_ENTRY, .depth = c->depth + 1,
			.container = FATBIN_KPACK, .number = c->number,
			.version = k.version, .index = (unsigned)i,
			.name = en->key, .name_len = strlen(en->key),
			.arch = en->target, .arch_len = strlen(en->target),
			.triple = amdgcn, .triple_len = sizeof(amdgcn) - 1,
			.size = en->size,
		};
		uint8_t *code = NULL;
		uint64_t got;

		if (k.scheme == KPACK_NONE) {
			if (en->size != en->stored) {
				rc = err_code_set(w->e, ERR_MALFORMED, "entry "
						  "'%.256s' for '%.64s': "
						  "original_size %llu, but its "
						  "blob has %llu bytes", en->key,
						  en->target,
						  (unsigned long long)en->size,
						  (unsigned long long)en->stored);
				break;
			}
			n.in_file = true;
			n.offset = c->offset + en->offset;
			n.data = p + en->offset;
		} else if (w->o->inflate) {
			if (kpack_entry_code(p, (size_t)size, &k, i,
					     &w->o->ccob, &code, &got,
					     w->e) < 0) {
				rc = -1;
				break;
			}
			n.data = code;
		}
		n.code_size = n.size;
		n.image_kind = inspect_sniff_image(n.data, n.size);
		rc = inspect_emit(w, &n);
		free(code);
	}
	kpack_free(&k);
	return rc;
}
