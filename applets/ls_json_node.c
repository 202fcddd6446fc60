/* ls_json_node: the fields of a row's entry in ls's JSON output (a
 * kpack-split binary's code objects, ls_json_kpack.c), and the kernels
 * of a row (ls_json.c's entries and files too). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_json_node.h"
#include "ls_json_put.h"
#include "ls_kernels.h"
#include "ls_rows.h"
#include "../ops/inspect.h"
#include "../ops/kinds.h"
#include "../core/uri.h"

/* A kernel's figure, null where the code object gives none. */
static void json_u32(bool *first, const char *key, uint32_t v)
{
	json_key(first, key);
	if (v == KERNEL_NONE)
		fputs("null", stdout);
	else
		printf("%" PRIu32, v);
}

/* One kernel: its name as in the symbol table and as ls prints it, and
 * each figure the code object gives (null where it gives none). */
static void json_kernel(const struct rows *rs, const struct kernel_list *kl,
			const struct kernel *k)
{
	char *name = ls_kernel_name(rs, k->name);
	bool f = true;

	putchar('{');
	json_text(&f, "symbol", k->name, strlen(k->name));
	json_text(&f, "name", name, name ? strlen(name) : 0);
	free(name);
	if (kl->source == KERNELS_AMDGPU) {
		json_u32(&f, "sgprs", k->sgprs);
		json_u32(&f, "vgprs", k->vgprs);
		json_u32(&f, "agprs", k->agprs);
		json_u32(&f, "sgpr_spills", k->sgpr_spills);
		json_u32(&f, "vgpr_spills", k->vgpr_spills);
		json_u32(&f, "lds_bytes", k->lds);
		json_u32(&f, "scratch_bytes_per_lane", k->scratch);
		json_u32(&f, "kernarg_bytes", k->kernarg_size);
		json_u32(&f, "wavefront_size", k->wavefront);
		json_u32(&f, "max_flat_workgroup_size", k->max_flat_wg);
		json_key(&f, "dynamic_stack");
		fputs(k->dynamic_stack < 0 ? "null" : k->dynamic_stack ? "true"
			: "false", stdout);
		json_u32(&f, "occupancy_waves_per_simd",
			 k->occupancy ? k->occupancy : KERNEL_NONE);
		json_key(&f, "descriptor");
		if (!k->has_kd) {
			fputs("null", stdout);
		} else {
			bool g = true;

			putchar('{');
			json_u64(&g, "offset", k->kd.offset);
			json_u64(&g, "group_segment_fixed_size",
				 k->kd.group_segment_fixed_size);
			json_u64(&g, "private_segment_fixed_size",
				 k->kd.private_segment_fixed_size);
			json_u64(&g, "kernarg_size", k->kd.kernarg_size);
			json_u64(&g, "compute_pgm_rsrc1", k->kd.rsrc1);
			json_u64(&g, "compute_pgm_rsrc2", k->kd.rsrc2);
			json_u64(&g, "compute_pgm_rsrc3", k->kd.rsrc3);
			json_u64(&g, "kernel_code_properties", k->kd.properties);
			putchar('}');
		}
	} else if (kl->source == KERNELS_CUBIN) {
		json_u32(&f, "registers", k->regs);
		json_u32(&f, "stack_bytes", k->stack);
		json_u32(&f, "shared_bytes", k->shared);
		json_u32(&f, "local_bytes", k->local);
		json_key(&f, "constant_bytes");
		putchar('{');
		for (size_t b = 0, any = 0;
		     b < sizeof(k->constant) / sizeof(k->constant[0]); b++)
			if (k->constant[b] != KERNEL_NONE)
				printf("%s\"%zu\":%" PRIu32, any++ ? "," : "", b,
				       k->constant[b]);
		putchar('}');
		json_u32(&f, "max_threads", k->max_threads);
	}
	putchar('}');
}

void ls_json_kernels(bool *first, const struct rows *rs, const struct row *r)
{
	const struct kernel_list *kl = r->kernels;
	bool f = true;

	json_key(first, "kernels");
	if (!rs->kernels || (!kl && !r->kernels_why)) {
		fputs("null", stdout);
		return;
	}
	putchar('{');
	json_key(&f, "source");
	if (kl)
		printf("\"%s\"", kernels_source_name(kl->source));
	else
		fputs("null", stdout);
	json_key(&f, "error");
	json_put_str(stdout, r->kernels_why,
		     r->kernels_why ? strlen(r->kernels_why) : 0);
	json_key(&f, "error_code");
	if (r->kernels_why)
		printf("\"%s\"", err_code_name(r->kernels_code));
	else
		fputs("null", stdout);
	json_key(&f, "code_object_version");
	if (kl && kl->source == KERNELS_AMDGPU)
		printf("%u", kl->co_version);
	else
		fputs("null", stdout);
	json_text(&f, "target", kl && kl->target[0] ? kl->target : NULL,
		  kl ? strlen(kl->target) : 0);
	json_text(&f, "processor", kl && kl->processor[0] ? kl->processor
		  : NULL, kl ? strlen(kl->processor) : 0);
	json_text(&f, "ptx_version", kl && kl->ptx_version[0] ?
		  kl->ptx_version : NULL, kl ? strlen(kl->ptx_version) : 0);
	json_key(&f, "list");
	putchar('[');
	for (size_t k = 0; kl && k < kl->n; k++) {
		if (k)
			putchar(',');
		json_kernel(rs, kl, &kl->v[k]);
	}
	fputs("]}", stdout);
}

/* A kind's own fields (kind.h), as its row made them. */
static void json_fields(bool *first, const struct kind_fields *kf)
{
	bool inner[4], *f = first;
	size_t depth = 0;

	for (size_t i = 0; i < kf->n; i++) {
		const struct kind_field *k = &kf->v[i];

		switch (k->type) {
		case KIND_FIELD_U64:
			json_u64(f, k->key, k->u);
			break;
		case KIND_FIELD_HEX:
			json_hex(f, k->key, k->u);
			break;
		case KIND_FIELD_BOOL:
			json_key(f, k->key);
			fputs(k->u ? "true" : "false", stdout);
			break;
		case KIND_FIELD_TEXT:
			json_text(f, k->key, k->t.s, k->t.len);
			break;
		case KIND_FIELD_OPEN:
			if (depth == sizeof(inner) / sizeof(inner[0]))
				break;
			json_key(f, k->key);
			putchar('{');
			inner[depth] = true;
			f = &inner[depth++];
			break;
		case KIND_FIELD_CLOSE:
			if (!depth)
				break;
			putchar('}');
			f = --depth ? &inner[depth - 1] : first;
			break;
		}
	}
	for (; depth; depth--)
		putchar('}');
}

/* An entry of a container of path; a kpack-split binary's code object
 * (in the archive path) also names its wrapper's index (else -1). */
void ls_json_entry(const struct rows *rs, const struct row *r,
		   const struct inspect_node *c, const char *path,
		   int64_t wrapper)
{
	const struct inspect_node *n = &r->n;
	struct inspect_target t;
	bool f = true;
	char *uri;

	inspect_entry_target(n, &t);
	putchar('{');
	json_u64(&f, "index", n->index);
	json_text(&f, "id", kinds_get(n->container)->ids ? n->name : NULL,
		  n->name_len);
	json_text(&f, "offload_kind", t.kind, t.kind_len);
	json_text(&f, "triple", t.triple, t.triple_len);
	json_text(&f, "arch", t.arch, t.arch_len);
	json_text(&f, "image_kind", t.image, t.image_len);
	json_u64(&f, "size", n->size);
	json_key(&f, "offset");
	if (n->in_file)
		printf("%" PRIu64, n->offset);
	else
		fputs("null", stdout);
	uri = n->in_file ? uri_file(path, n->offset, n->size) : NULL;
	json_text(&f, "uri", uri, uri ? strlen(uri) : 0);
	free(uri);
	json_key(&f, "compressed");
	fputs(n->in_file || n->in_bitcode ? "false" : "true", stdout);
	if (wrapper >= 0)	/* a kpack-split binary's code object */
		json_u64(&f, "wrapper", (uint64_t)wrapper);
	if (kinds_get(n->container)->entry_json) {
		struct kind_fields kf = { .n = 0 };

		kinds_get(n->container)->entry_json(n, c, r->detail, &kf);
		json_fields(&f, &kf);
	}
	ls_json_kernels(&f, rs, r);
	putchar('}');
}
