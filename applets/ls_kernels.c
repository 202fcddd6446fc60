/* ls_kernels: the kernels ls --kernels reads from each code object and
 * prints under it in text (ls_json.c writes the same in JSON). */
#include <inttypes.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "ls_kernels.h"
#include "ls_rows.h"
#include "selection.h"
#include "../ops/amdgpu_occupancy.h"
#include "../ops/kinds.h"
#include "../formats/kernels_parse.h"

int ls_file_kernels(struct row *r, const uint8_t *data, size_t len)
{
	struct kernel_list l;
	struct err e;

	switch (kernels_parse(data, len, &l, &e)) {
	case 1:
		amdgpu_occupancy_fill(&l);
		if (!(r->kernels = malloc(sizeof(*r->kernels)))) {
			kernels_free(&l);
			return -1;
		}
		*r->kernels = l;
		return 0;
	case -1:
		/* Out of memory is the listing's failure, not damage in the
		 * code object. */
		if (e.code == ERR_NOMEM)
			return -1;
		r->kernels_code = e.code;
		return (r->kernels_why = strdup(e.why)) ? 0 : -1;
	default:
		return 0;
	}
}

/* The kernels of an entry's code, when it is a code object the readers
 * of formats/kernels.h know. */
int ls_entry_kernels(struct row *r, const struct inspect_node *n)
{
	struct entry_bytes b;

	/* ls describes what is there, a damaged CCOB's code too. */
	if (kinds_entry_bytes(n, INSPECT_HASH_UNCHECKED, &b) != ENTRY_WHOLE)
		return 0;
	return ls_file_kernels(r, b.data, (size_t)b.size);
}

/* Whether -t takes the entry (all do without -t; host entries never
 * with it).  Out of memory, it is left out. */
bool ls_wanted(const struct rows *rs, const struct inspect_node *n)
{
	struct applet_entry ae;
	bool take;

	if (!rs->targets || !rs->targets->n)
		return true;
	if (applet_entry_of(&ae, n) < 0)
		return false;
	take = !ae.en.host && select_match(rs->targets, &ae.en);
	applet_entry_free(&ae);
	return take;
}

bool ls_wanted_entry(const struct rows *rs, const offcode_entry *e)
{
	struct select_entry en = { .id = NULL };
	size_t kind_len;
	const char *kind;

	if (!rs->targets || !rs->targets->n)
		return true;
	kind = offcode_entry_offload_kind(e, &kind_len);
	/* As selection sees it (selection.h's applet_entry_of). */
	en.id = offcode_entry_rule_id(e, &en.id_len);
	en.arch = offcode_entry_rule_target(e, &en.arch_len);
	en.triple = offcode_entry_triple(e, &en.triple_len);
	en.host = kind && kind_len == 4 && !memcmp(kind, "host", 4);
	return !en.host && select_match(rs->targets, &en);
}

void ls_describe_code(const struct row *r)
{
	const struct kernel_list *kl = r->kernels;
	const char *target;

	if (!kl) {
		char *why = applet_escape(r->kernels_why, strlen(r->kernels_why),
					  false);

		printf(": a code object that cannot be read (%s)", why ? why : "?");
		free(why);
		return;
	}
	/* The target ID after the triple (the metadata's, with its xnack
	 * and sramecc settings). */
	target = kl->target_id[0] ? kl->target_id : kl->target[0] ? kl->target
		 : kl->processor[0] ? kl->processor : "?";
	if (kl->source == KERNELS_PTX)
		printf(": PTX %s for %s", kl->ptx_version[0] ? kl->ptx_version
							    : "?", target);
	else if (kl->source == KERNELS_CUBIN)
		printf(": a code object for %s (cubin)", target);
	else
		printf(": a code object for %s (code object v%u)", target,
		       kl->co_version);
}

/* libiberty's cplus_demangle, the demangler c++filt itself calls, with
 * c++filt's default options: names come out exactly as c++filt prints
 * them, and no C++ runtime is linked for __cxa_demangle. */
char *ls_kernel_name(const struct rows *rs, const char *name)
{
	char *d = rs->demangle ? cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI |
						DMGL_VERBOSE) : NULL;

	return d ? d : strdup(name);
}



static char *cell_u32(uint32_t v)
{
	char buf[16];

	if (v == KERNEL_NONE)
		return strdup("-");
	snprintf(buf, sizeof(buf), "%" PRIu32, v);
	return strdup(buf);
}

enum { AMD_COLS = 12, NV_COLS = 6 };

/* One kernel's cells: figures right-aligned, its name last. */
static int kernel_cells(const struct rows *rs, const struct kernel_list *kl,
			const struct kernel *k, char **cell)
{
	char *name = ls_kernel_name(rs, k->name);
	char *esc = name ? applet_escape(name, strlen(name), false) : NULL;
	int c = 0;

	free(name);
	if (kl->source == KERNELS_AMDGPU) {
		cell[c++] = cell_u32(k->sgprs);
		cell[c++] = cell_u32(k->vgprs);
		cell[c++] = cell_u32(k->agprs);
		cell[c++] = cell_u32(k->sgpr_spills);
		cell[c++] = cell_u32(k->vgpr_spills);
		cell[c++] = cell_u32(k->lds);
		cell[c++] = cell_u32(k->scratch);
		cell[c++] = cell_u32(k->wavefront);
		cell[c++] = cell_u32(k->max_flat_wg);
		cell[c++] = strdup(k->dynamic_stack < 0 ? "-" :
				   k->dynamic_stack ? "yes" : "no");
		cell[c++] = cell_u32(k->occupancy ? k->occupancy : KERNEL_NONE);
	} else {
		char banks[160] = "";
		size_t len = 0;

		cell[c++] = cell_u32(k->regs);
		cell[c++] = cell_u32(k->stack);
		cell[c++] = cell_u32(k->shared);
		cell[c++] = cell_u32(k->local);
		for (size_t b = 0; b < sizeof(k->constant) / sizeof(k->constant[0]);
		     b++)
			if (k->constant[b] != KERNEL_NONE && len < sizeof(banks) - 24)
				len += (size_t)snprintf(banks + len,
					sizeof(banks) - len, "%s%zu:%" PRIu32,
					len ? "," : "", b, k->constant[b]);
		cell[c++] = strdup(len ? banks : "-");
	}
	cell[c++] = esc;
	return c;
}

/* Under an entry line: its kernels, a table for a code object, the entry
 * names for PTX. */
void ls_print_kernels(FILE *out, const struct rows *rs, const struct row *r,
		      int indent)
{
	static const char *const amd_head[AMD_COLS] = {
		"SGPR", "VGPR", "AGPR", "SSPILL", "VSPILL", "LDS", "SCRATCH",
		"WAVE", "MAXWG", "DYNSTACK", "OCC", "KERNEL",
	};
	static const char *const nv_head[NV_COLS] = {
		"REG", "STACK", "SHARED", "LOCAL", "CONST", "KERNEL",
	};
	const struct kernel_list *kl = r->kernels;
	const char *const *head;
	size_t w[AMD_COLS] = { 0 };
	char **cells;
	int cols;

	if (!kl)
		return;
	if (kl->source == KERNELS_PTX) {
		fprintf(out, "%*sPTX %s, target %s: %zu entr%s\n", indent, "",
		       kl->ptx_version[0] ? kl->ptx_version : "?",
		       kl->target[0] ? kl->target : "?", kl->n,
		       kl->n == 1 ? "y" : "ies");
		for (size_t k = 0; k < kl->n; k++) {
			char *name = ls_kernel_name(rs, kl->v[k].name);
			char *esc = name ? applet_escape(name, strlen(name), false)
					 : NULL;

			fprintf(out, "%*s%s\n", indent + 2, "", esc ? esc : "?");
			free(name);
			free(esc);
		}
		return;
	}
	if (kl->source == KERNELS_AMDGPU)
		fprintf(out, "%*s%zu kernel%s, code object v%u, %s\n", indent, "",
		       kl->n, kl->n == 1 ? "" : "s", kl->co_version,
		       kl->target[0] ? kl->target : "no target");
	else
		fprintf(out, "%*s%zu kernel%s, %s\n", indent, "", kl->n,
		       kl->n == 1 ? "" : "s", kl->processor);
	if (!kl->n)
		return;
	head = kl->source == KERNELS_AMDGPU ? amd_head : nv_head;
	cols = kl->source == KERNELS_AMDGPU ? AMD_COLS : NV_COLS;
	cells = calloc(kl->n * (size_t)cols, sizeof(*cells));
	if (!cells)
		return;
	for (int c = 0; c < cols; c++)
		w[c] = strlen(head[c]);
	for (size_t k = 0; k < kl->n; k++) {
		kernel_cells(rs, kl, &kl->v[k], cells + k * (size_t)cols);
		for (int c = 0; c < cols; c++)
			if (cells[k * cols + c] && strlen(cells[k * cols + c]) > w[c])
				w[c] = strlen(cells[k * cols + c]);
	}
	for (size_t k = 0; k <= kl->n; k++) {
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
	for (size_t k = 0; k < kl->n * (size_t)cols; k++)
		free(cells[k]);
	free(cells);
}
