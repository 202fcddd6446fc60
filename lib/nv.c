/* nv: an NVIDIA entry's header and a lone cubin's SM, as cuobjdump names
 * them (include/offcode.h, "NVIDIA entries"): the header's values, kept
 * with the entry's record when the walk keeps it (artifact.c: a few words,
 * so that a listing of thousands of entries reads them for nothing), and
 * the SM the input's record keeps. */
#include <string.h>

#include "nv.h"
#include "../formats/fatbin.h"
#include "../formats/nvfatbin.h"

bool nv_header(const struct inspect_node *n, struct offcode_nv_entry *nv)
{
	const struct nvfatbin_entry *h = &n->nv;

	if (n->container != FATBIN_NV)
		return false;
	*nv = (struct offcode_nv_entry){
		.size = sizeof(*nv), .kind = h->kind, .arch = h->arch,
		.variant = nvfatbin_arch_suffix(h), .flags = h->flags,
	};
	/* (where the parser found them in the container; none: length 0) */
	if (h->ident_len) {
		nv->identifier = (const char *)n->nv_base + h->ident_offset;
		nv->identifier_len = h->ident_len;
	}
	if (h->options_len) {
		nv->ptxas_options = (const char *)n->nv_base +
				    h->options_offset;
		nv->ptxas_options_len = h->options_len;
	}
	return true;
}

int offcode_entry_nv(const offcode_entry *e, struct offcode_nv_entry *nv)
{
	struct offcode_nv_entry out;

	if (!e || !nv || nv->size < sizeof(out))
		return OFFCODE_INVALID;
	if (!e->nv)
		return OFFCODE_NOTHING;
	out = *e->nv;
	/* A caller built against a later header keeps its size. */
	out.size = nv->size;
	memcpy(nv, &out, sizeof(out));
	return 0;
}

bool offcode_input_cubin_arch(const offcode_input *in, unsigned *arch)
{
	if (!in || !in->cubin_arch)
		return false;
	if (arch)
		*arch = in->cubin_arch;
	return true;
}
