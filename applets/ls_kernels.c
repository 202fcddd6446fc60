/* ls_kernels: the kernels ls --kernels reads from each code object
 * (offcode_code_kernels, include/offcode.h) and prints under it in text
 * (ls_json_node.c writes the same in JSON). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "ls_kernels.h"

/* What the code is, from the library's name for it. */
enum code_source { CODE_AMDGPU, CODE_CUBIN, CODE_PTX };
static enum code_source source_of(const offcode_kernels *kl)
{
	const char *s = offcode_kernels_source(kl);

	return !strcmp(s, "cubin") ? CODE_CUBIN : !strcmp(s, "ptx") ? CODE_PTX
								    : CODE_AMDGPU;
}

int ls_code_kernels(struct code_kernels *k, const void *code, size_t len)
{
	switch (offcode_code_kernels(code, len, &k->list, &k->error)) {
	case OFFCODE_NOMEM:
		/* Out of memory is the listing's failure, not damage in the
		 * code object. */
		offcode_error_free(k->error);
		k->error = NULL;
		return -1;
	default:	/* read; no code object; damaged (k->error) */
		return 0;
	}
}

void ls_code_kernels_free(struct code_kernels *k)
{
	offcode_code_kernels_free(k->list);
	offcode_error_free(k->error);
	k->list = NULL;
	k->error = NULL;
}

const char *ls_kernels_why(const struct code_kernels *k)
{
	return k->error ? offcode_error_reason(k->error) : NULL;
}

bool ls_wanted_entry(const struct rows *rs, const offcode_entry *e)
{
	struct select_entry en = { .id = NULL };
	size_t kind_len;
	const char *kind = offcode_entry_offload_kind(e, &kind_len);

	if (!rs->targets || !rs->targets->n)
		return true;
	/* As selection sees it (selection.h's applet_entry_of). */
	en.id = offcode_entry_rule_id(e, &en.id_len);
	en.arch = offcode_entry_rule_target(e, &en.arch_len);
	en.triple = offcode_entry_triple(e, &en.triple_len);
	en.host = kind && kind_len == 4 && !memcmp(kind, "host", 4);
	return !en.host && select_match(rs->targets, &en);
}

void ls_describe_code(const struct code_kernels *k)
{
	const offcode_kernels *kl = k->list;
	const char *target;

	if (!kl) {
		const char *reason = offcode_error_reason(k->error);
		char *why = applet_escape(reason, strlen(reason), false);

		printf(": a code object that cannot be read (%s)", why ? why : "?");
		free(why);
		return;
	}
	/* The target ID after the triple (the metadata's, with its xnack
	 * and sramecc settings). */
	if (!(target = offcode_kernels_target_id(kl)) &&
	    !(target = offcode_kernels_target(kl)) &&
	    !(target = offcode_kernels_processor(kl)))
		target = "?";
	switch (source_of(kl)) {
	case CODE_PTX:
		printf(": PTX %s for %s", offcode_kernels_ptx_version(kl) ?
		       offcode_kernels_ptx_version(kl) : "?", target);
		break;
	case CODE_CUBIN:
		printf(": a code object for %s (cubin)", target);
		break;
	case CODE_AMDGPU:
		printf(": a code object for %s (code object v%u)", target,
		       offcode_kernels_code_object_version(kl));
		break;
	}
}

/* Demangled by the library as c++filt does (libiberty's cplus_demangle
 * with c++filt's options), unless --no-demangle. */
const char *ls_kernel_name(const struct rows *rs, const offcode_kernel *k)
{
	return rs->demangle ? offcode_kernel_name(k) : offcode_kernel_symbol(k);
}

/* A resource's cell: its figure, "-" where the code object gives none
 * (in decimal by hand: snprintf was most of what a table cost). */
static char *cell_of(const offcode_kernel *k, enum offcode_resource r)
{
	char buf[24], *p = buf + sizeof(buf);
	uint64_t v;

	if (!offcode_kernel_resource(k, r, &v))
		return strdup("-");
	*--p = 0;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return strdup(p);
}

enum { AMD_COLS = 12, NV_COLS = 6 };

/* One kernel's cells: figures right-aligned, its name last. */
static void kernel_cells(const struct rows *rs, enum code_source source,
			 const offcode_kernel *k, char **cell)
{
	static const enum offcode_resource amd[] = {
		OFFCODE_RES_SGPRS, OFFCODE_RES_VGPRS, OFFCODE_RES_AGPRS,
		OFFCODE_RES_SGPR_SPILLS, OFFCODE_RES_VGPR_SPILLS,
		OFFCODE_RES_LDS_BYTES, OFFCODE_RES_SCRATCH_BYTES_PER_LANE,
		OFFCODE_RES_WAVEFRONT_SIZE, OFFCODE_RES_MAX_FLAT_WORKGROUP_SIZE,
	};
	static const enum offcode_resource nv[] = {
		OFFCODE_RES_REGISTERS, OFFCODE_RES_STACK_BYTES,
		OFFCODE_RES_SHARED_BYTES, OFFCODE_RES_LOCAL_BYTES,
	};
	const char *name = ls_kernel_name(rs, k);
	int c = 0;

	if (source == CODE_AMDGPU) {
		uint64_t dyn;

		for (size_t i = 0; i < sizeof(amd) / sizeof(amd[0]); i++)
			cell[c++] = cell_of(k, amd[i]);
		cell[c++] = strdup(!offcode_kernel_resource(k,
				   OFFCODE_RES_DYNAMIC_STACK, &dyn) ? "-" :
				   dyn ? "yes" : "no");
		cell[c++] = cell_of(k, OFFCODE_RES_OCCUPANCY_WAVES_PER_SIMD);
	} else {
		char banks[160] = "";
		size_t len = 0;
		uint64_t v;

		for (size_t i = 0; i < sizeof(nv) / sizeof(nv[0]); i++)
			cell[c++] = cell_of(k, nv[i]);
		for (unsigned b = 0; b < OFFCODE_CONSTANT_BANKS; b++)
			if (offcode_kernel_constant_bytes(k, b, &v) &&
			    len < sizeof(banks) - 24)
				len += (size_t)snprintf(banks + len,
					sizeof(banks) - len, "%s%u:%" PRIu64,
					len ? "," : "", b, v);
		cell[c++] = strdup(len ? banks : "-");
	}
	cell[c] = applet_escape(name, strlen(name), false);
}

void ls_print_code_kernels(FILE *out, const struct rows *rs,
			   const struct code_kernels *ck, int indent)
{
	static const char *const amd_head[AMD_COLS] = {
		"SGPR", "VGPR", "AGPR", "SSPILL", "VSPILL", "LDS", "SCRATCH",
		"WAVE", "MAXWG", "DYNSTACK", "OCC", "KERNEL",
	};
	static const char *const nv_head[NV_COLS] = {
		"REG", "STACK", "SHARED", "LOCAL", "CONST", "KERNEL",
	};
	const offcode_kernels *kl = ck->list;
	const char *const *head;
	size_t w[AMD_COLS] = { 0 }, n;
	enum code_source source;
	char **cells;
	int cols;

	if (!kl)
		return;
	n = offcode_kernels_count(kl);
	source = source_of(kl);
	if (source == CODE_PTX) {
		const char *version = offcode_kernels_ptx_version(kl);
		const char *target = offcode_kernels_target(kl);

		fprintf(out, "%*sPTX %s, target %s: %zu entr%s\n", indent, "",
			version ? version : "?", target ? target : "?", n,
			n == 1 ? "y" : "ies");
		for (size_t k = 0; k < n; k++) {
			const char *name = ls_kernel_name(rs,
						offcode_kernels_at(kl, k));
			char *esc = applet_escape(name, strlen(name), false);

			fprintf(out, "%*s%s\n", indent + 2, "", esc ? esc : "?");
			free(esc);
		}
		return;
	}
	if (source == CODE_AMDGPU) {
		const char *target = offcode_kernels_target(kl);

		fprintf(out, "%*s%zu kernel%s, code object v%u, %s\n", indent,
			"", n, n == 1 ? "" : "s",
			offcode_kernels_code_object_version(kl),
			target ? target : "no target");
	} else {
		const char *processor = offcode_kernels_processor(kl);

		fprintf(out, "%*s%zu kernel%s, %s\n", indent, "", n,
			n == 1 ? "" : "s", processor ? processor : "");
	}
	if (!n)
		return;
	head = source == CODE_AMDGPU ? amd_head : nv_head;
	cols = source == CODE_AMDGPU ? AMD_COLS : NV_COLS;
	cells = calloc(n * (size_t)cols, sizeof(*cells));
	if (!cells)
		return;
	for (int c = 0; c < cols; c++)
		w[c] = strlen(head[c]);
	for (size_t k = 0; k < n; k++) {
		kernel_cells(rs, source, offcode_kernels_at(kl, k),
			     cells + k * (size_t)cols);
		for (int c = 0; c < cols; c++)
			if (cells[k * cols + c] && strlen(cells[k * cols + c]) > w[c])
				w[c] = strlen(cells[k * cols + c]);
	}
	for (size_t k = 0; k <= n; k++) {
		fprintf(out, "%*s", indent + 2, "");
		for (int c = 0; c < cols; c++) {
			const char *s = !k ? head[c] : cells[(k - 1) * cols + c];

			if (!s)
				s = "?";
			if (c == cols - 1)
				fprintf(out, "%s\n", s);
			else
				fprintf(out, "%*s  ", (int)w[c], s);
		}
	}
	for (size_t k = 0; k < n * (size_t)cols; k++)
		free(cells[k]);
	free(cells);
}
