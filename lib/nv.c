/* nv: an NVIDIA entry's header and a lone cubin's SM, as cuobjdump names
 * them (include/offcode.h, "NVIDIA entries"): the header's values, kept
 * with the entry's record when an open keeps it (keep.c: a few words), in
 * a streaming walk read from the entry's node when asked for (a listing
 * of thousands of entries that does not ask copies nothing), and the SM
 * the input's record keeps. */
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

/* A streaming walk's entry e, during its visit: its header from its node
 * (keep.c keeps none), its texts, seldom there, copied (NUL-terminated)
 * into the arena its visit gives back: 1; 0 for an entry of another
 * kind (or none visited now); -1 out of memory. */
static int live_header(const offcode_entry *e, struct offcode_nv_entry *nv)
{
	/* The record is the walk's, not const: the header's const says the
	 * listing does not change. */
	offcode_artifact *a = (offcode_artifact *)e->owner;
	bool oom = false;

	if (!a->live_entry || e != &a->entries[0] ||
	    !nv_header(a->live_entry, nv))
		return 0;
	if (nv->identifier)
		nv->identifier = artifact_keep(a, nv->identifier,
					       nv->identifier_len, &oom);
	if (nv->ptxas_options)
		nv->ptxas_options = artifact_keep(a, nv->ptxas_options,
						  nv->ptxas_options_len, &oom);
	return oom ? -1 : 1;
}

int offcode_entry_nv(const offcode_entry *e, struct offcode_nv_entry *nv)
{
	struct offcode_nv_entry out;
	int rc;

	if (!e || !nv || nv->size < sizeof(out))
		return OFFCODE_INVALID;
	if (e->nv)
		out = *e->nv;
	else if ((rc = live_header(e, &out)) <= 0)
		return rc ? OFFCODE_NOMEM : OFFCODE_NOTHING;
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
