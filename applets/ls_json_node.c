/* ls_json_node: the kernels of a code object in ls's JSON output, read
 * through the public library (ls_json.c's entries and files, and a
 * kpack-split binary's code objects, ls_json_kpack.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_json_node.h"
#include "ls_json_put.h"
#include "ls_kernels.h"

/* A kernel's figure, null where the code object gives none. */
static void json_res(bool *first, const offcode_kernel *k,
		     enum offcode_resource r)
{
	uint64_t v;

	json_key(first, offcode_resource_name(r));
	if (offcode_kernel_resource(k, r, &v))
		json_put_u64(v);
	else
		fputs("null", stdout);
}

/* One kernel: its name as in the symbol table and as ls prints it, and
 * each figure the code object gives (null where it gives none), by the
 * library's keys (offcode_resource_name). */
static void json_kernel(const struct rows *rs, const char *source,
			const offcode_kernel *k)
{
	static const enum offcode_resource amd[] = {
		OFFCODE_RES_SGPRS, OFFCODE_RES_VGPRS, OFFCODE_RES_AGPRS,
		OFFCODE_RES_SGPR_SPILLS, OFFCODE_RES_VGPR_SPILLS,
		OFFCODE_RES_LDS_BYTES, OFFCODE_RES_SCRATCH_BYTES_PER_LANE,
		OFFCODE_RES_KERNARG_BYTES, OFFCODE_RES_WAVEFRONT_SIZE,
		OFFCODE_RES_MAX_FLAT_WORKGROUP_SIZE,
	};
	static const enum offcode_resource nv[] = {
		OFFCODE_RES_REGISTERS, OFFCODE_RES_STACK_BYTES,
		OFFCODE_RES_SHARED_BYTES, OFFCODE_RES_LOCAL_BYTES,
	};
	const char *symbol = offcode_kernel_symbol(k);
	const char *name = ls_kernel_name(rs, k);
	bool f = true;

	putchar('{');
	json_text(&f, "symbol", symbol, strlen(symbol));
	json_text(&f, "name", name, strlen(name));
	if (!strcmp(source, "amdgpu")) {
		struct offcode_kernel_descriptor d;
		uint64_t dyn;

		for (size_t i = 0; i < sizeof(amd) / sizeof(amd[0]); i++)
			json_res(&f, k, amd[i]);
		json_key(&f, offcode_resource_name(OFFCODE_RES_DYNAMIC_STACK));
		fputs(!offcode_kernel_resource(k, OFFCODE_RES_DYNAMIC_STACK,
					       &dyn) ? "null" : dyn ? "true"
			: "false", stdout);
		json_res(&f, k, OFFCODE_RES_OCCUPANCY_WAVES_PER_SIMD);
		json_key(&f, "descriptor");
		if (!offcode_kernel_descriptor(k, &d)) {
			fputs("null", stdout);
		} else {
			bool g = true;

			putchar('{');
			json_u64(&g, "offset", d.offset);
			json_u64(&g, "group_segment_fixed_size",
				 d.group_segment_fixed_size);
			json_u64(&g, "private_segment_fixed_size",
				 d.private_segment_fixed_size);
			json_u64(&g, "kernarg_size", d.kernarg_size);
			json_u64(&g, "compute_pgm_rsrc1", d.compute_pgm_rsrc1);
			json_u64(&g, "compute_pgm_rsrc2", d.compute_pgm_rsrc2);
			json_u64(&g, "compute_pgm_rsrc3", d.compute_pgm_rsrc3);
			json_u64(&g, "kernel_code_properties",
				 d.kernel_code_properties);
			putchar('}');
		}
	} else if (!strcmp(source, "cubin")) {
		uint64_t v;
		bool any = false;

		for (size_t i = 0; i < sizeof(nv) / sizeof(nv[0]); i++)
			json_res(&f, k, nv[i]);
		json_key(&f, "constant_bytes");
		putchar('{');
		for (unsigned b = 0; b < OFFCODE_CONSTANT_BANKS; b++)
			if (offcode_kernel_constant_bytes(k, b, &v)) {
				printf("%s\"%u\":%" PRIu64, any ? "," : "", b, v);
				any = true;
			}
		putchar('}');
		json_res(&f, k, OFFCODE_RES_MAX_THREADS);
	}
	putchar('}');
}

/* A text the kernels give, null where they give none. */
static void json_or_null(bool *first, const char *key, const char *s)
{
	json_text(first, key, s, s ? strlen(s) : 0);
}

void ls_json_kernels(bool *first, const struct rows *rs,
		     const struct code_kernels *k)
{
	const offcode_kernels *kl = k->list;
	const char *source = kl ? offcode_kernels_source(kl) : NULL;
	const char *why = ls_kernels_why(k);
	size_t n = kl ? offcode_kernels_count(kl) : 0;
	bool f = true;

	json_key(first, "kernels");
	if (!rs->kernels || (!kl && !why)) {
		fputs("null", stdout);
		return;
	}
	putchar('{');
	json_key(&f, "source");
	if (source)
		printf("\"%s\"", source);
	else
		fputs("null", stdout);
	json_or_null(&f, "error", why);
	json_key(&f, "error_code");
	if (why)
		printf("\"%s\"", offcode_code_name(offcode_error_code(k->error)));
	else
		fputs("null", stdout);
	json_key(&f, "code_object_version");
	if (source && !strcmp(source, "amdgpu"))
		printf("%u", offcode_kernels_code_object_version(kl));
	else
		fputs("null", stdout);
	json_or_null(&f, "target", kl ? offcode_kernels_target(kl) : NULL);
	json_or_null(&f, "processor", kl ? offcode_kernels_processor(kl)
					 : NULL);
	json_or_null(&f, "ptx_version", kl ? offcode_kernels_ptx_version(kl)
					   : NULL);
	json_key(&f, "list");
	putchar('[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			putchar(',');
		json_kernel(rs, source, offcode_kernels_at(kl, i));
	}
	fputs("]}", stdout);
}
