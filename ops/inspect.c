/* inspect: walk a build artefact down to its code objects; see inspect.h. */
#include <stdio.h>
#include <string.h>

#include "../formats/fatbin.h"
#include "../formats/nvfatbin.h"
#include "../formats/package.h"
#include "hosts.h"
#include "inspect.h"
#include "inspect_hosts.h"
#include "inspect_walk.h"

/* The input at buf (the file, or an archive's member), through the
 * table of host formats. */
static int walk_input(struct walk *w, const uint8_t *buf, size_t len,
		      uint64_t base, unsigned depth, const char *name,
		      size_t name_len)
{
	struct inspect_node in = {
		.kind = INSPECT_INPUT, .depth = depth, .name = name ? name : "",
		.name_len = name_len, .offset = base, .size = len,
		.in_file = true,
	};
	enum host_format f;

	if (hosts_probe(buf, len, &f))
		return hosts_get(f)->walk(w, &in, buf, len, base);
	if (depth == 0 && !w->o->accept_other)
		return hosts_none(w->e);
	return inspect_walk_other(w, &in, buf, len);
}

static int visit_nothing(void *ctx, const struct inspect_node *n)
{
	(void)ctx;
	(void)n;
	return 0;
}

int inspect_diagnose(const uint8_t *buf, size_t len,
		     const struct inspect_opts *o, struct err *e)
{
	struct inspect_opts h = {
		.accept_other = true, .ccob = o->ccob, .package = o->package,
		.next_data = o->next_data, .data_ctx = o->data_ctx,
	};
	struct err found;
	struct walk w = { .o = &h, .visit = visit_nothing, .e = &found,
			  .input = walk_input };

	h.ccob.progress = NULL;
	if (walk_input(&w, buf, len, 0, 0, NULL, 0) == 0 ||
	    found.code == ERR_NOMEM)
		return 0;
	*e = found;
	return -1;
}

int inspect_walk(const uint8_t *buf, size_t len, const struct inspect_opts *o,
		 inspect_visit_fn visit, void *ctx, struct err *e)
{
	struct walk w = { .o = o, .visit = visit, .ctx = ctx, .e = e,
			  .input = walk_input };
	int rc = walk_input(&w, buf, len, 0, 0, NULL, 0);

	/* A visitor fails only when out of memory: said as such. */
	if (w.stop < 0)
		err_nomem(e);
	if (w.stop)
		return w.stop;
	/* What inflating found is said as the headers' walk says it, when
	 * they are wrong: the same diagnosis for every command. */
	if (rc < 0 && o->inflate && e->code != ERR_NOMEM)
		(void)inspect_diagnose(buf, len, o, e);
	return rc < 0 ? -1 : 0;
}

const char *inspect_machine_name(uint16_t machine)
{
	static const struct {
		uint16_t machine;
		const char *name;
	} names[] = {
		{ 2, "SPARC" }, { 3, "x86" }, { 8, "MIPS" }, { 20, "PowerPC" },
		{ 21, "PowerPC64" }, { 22, "S/390" }, { 40, "ARM" },
		{ 43, "SPARC V9" }, { 62, "x86-64" }, { 183, "AArch64" },
		{ 190, "CUDA" }, { 224, "AMDGPU" }, { 243, "RISC-V" },
		{ 258, "LoongArch" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].machine == machine)
			return names[i].name;
	return NULL;
}

const char *inspect_coff_machine_name(uint16_t machine)
{
	switch (machine) {
	case 0x14c: return "x86";
	case 0x8664: return "x86-64";
	case 0x1c4: return "ARM";
	case 0xaa64: return "ARM64";
	case 0xa641: return "ARM64EC";
	case 0xa64e: return "ARM64X";
	default: return NULL;
	}
}

static void set(const char **s, size_t *len, const char *v, size_t n)
{
	*s = n ? v : NULL;
	*len = n;
}

static void set_str(const char **s, size_t *len, const char *v)
{
	set(s, len, v, v ? strlen(v) : 0);
}

static const char *image_name(uint16_t kind)
{
	static const char *const names[] = {
		NULL, "elf", "bitcode", "cubin", "fatbin", "ptx", "spirv",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : NULL;
}

/* A bundle ID split at its dashes. */
static void target_from_id(const struct inspect_node *n,
			   struct inspect_target *t)
{
	/* <kind>-<arch>-<vendor>-<os>-<env>[-<target ID>] */
	const char *dash[5];
	size_t k = 0;

	for (size_t i = 0; i < n->name_len && k < 5; i++)
		if (n->name[i] == '-')
			dash[k++] = n->name + i;
	if (k < 4)
		return;
	set(&t->kind, &t->kind_len, n->name, (size_t)(dash[0] - n->name));
	if (k == 4) {
		set(&t->triple, &t->triple_len, dash[0] + 1,
		    (size_t)(n->name + n->name_len - dash[0] - 1));
		return;
	}
	set_str(&t->image, &t->image_len, image_name(n->image_kind));
	/* An empty environment ("amdgcn-amd-amdhsa-") is left out. */
	set(&t->triple, &t->triple_len, dash[0] + 1,
	    (size_t)(dash[4] - dash[0] - 1) -
	    (dash[4] - dash[3] == 1));
	set(&t->arch, &t->arch_len, dash[4] + 1,
	    (size_t)(n->name + n->name_len - dash[4] - 1));
}

void inspect_entry_target(const struct inspect_node *n,
			  struct inspect_target *t)
{
	memset(t, 0, sizeof(*t));
	switch (n->container) {
	case FATBIN_PACKAGE:
		if (n->offload_kind != PACKAGE_OFK_NONE)
			set_str(&t->kind, &t->kind_len,
				package_offload_kind_describe(n->offload_kind));
		set(&t->triple, &t->triple_len, n->triple, n->triple_len);
		set(&t->arch, &t->arch_len, n->arch, n->arch_len);
		set_str(&t->image, &t->image_len, image_name(n->image_kind));
		break;
	case FATBIN_KPACK:	/* the TOC's target, an AMDGPU code object */
		set(&t->triple, &t->triple_len, n->triple, n->triple_len);
		set(&t->arch, &t->arch_len, n->arch, n->arch_len);
		set_str(&t->image, &t->image_len, image_name(n->image_kind));
		break;
	case FATBIN_NV:
		set_str(&t->kind, &t->kind_len, "cuda");
		snprintf(t->arch_buf, sizeof(t->arch_buf), "sm_%u%s",
			 (unsigned)n->nv.arch, nvfatbin_arch_suffix(&n->nv));
		set_str(&t->arch, &t->arch_len, t->arch_buf);
		set_str(&t->image, &t->image_len, nvfatbin_kind_name(n->nv.kind));
		break;
	case FATBIN_BUNDLE:
	case FATBIN_OBJECT_BUNDLE:
	case FATBIN_CCOB:
		target_from_id(n, t);
		break;
	}
}
