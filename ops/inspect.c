/* inspect: walk a build artefact down to its code objects; see inspect.h. */
#include <stdio.h>
#include <string.h>

#include "../formats/fatbin.h"
#include "../formats/nvfatbin.h"
#include "../formats/package.h"
#include "hosts.h"
#include "inspect.h"
#include "inspect_names.h"
#include "inspect_hosts.h"
#include "inspect_walk.h"
#include "kinds.h"

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

	if (hosts_probe(buf, len, &f)) {
		in.host = hosts_get(f);
		return in.host->walk(w, &in, buf, len, base);
	}
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

static int below_top(void *ctx, const struct inspect_node *n)
{
	if (n->depth > 0)
		*(bool *)ctx = true;
	return 0;
}

bool inspect_worth_walking(const uint8_t *buf, size_t len,
			   const struct inspect_opts *o)
{
	struct err e;
	bool any = false;

	return inspect_walk(buf, len, o, below_top, &any, &e) < 0 || any;
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

void inspect_host_header(const struct inspect_node *n,
			 struct inspect_host_header *h)
{
	*h = (struct inspect_host_header){
		.format = n->format, .is64 = n->is64,
		.big_endian = n->big_endian, .bigobj = n->bigobj, .dll = n->dll,
		.elf_type = n->elf_type, .machine = n->machine,
	};
}

void inspect_host_words(const struct inspect_host_header *h, char *buf,
			size_t cap)
{
	char type[32], machine[32];
	const char *t, *m;

	if (!cap)
		return;
	buf[0] = 0;
	m = h->format == INSPECT_ELF ? inspect_machine_name(h->machine)
				     : inspect_coff_machine_name(h->machine);
	if (!m) {
		snprintf(machine, sizeof(machine), h->format == INSPECT_ELF ?
			 "machine %u" : "machine 0x%x", h->machine);
		m = machine;
	}
	switch (h->format) {
	case INSPECT_ELF:
		if (!(t = inspect_elf_type_name(h->elf_type))) {
			snprintf(type, sizeof(type), "type %u", h->elf_type);
			t = type;
		}
		snprintf(buf, cap, "ELF %d-bit %s %s, %s", h->is64 ? 64 : 32,
			 h->big_endian ? "MSB" : "LSB", t, m);
		break;
	case INSPECT_COFF:
		snprintf(buf, cap, "COFF %sobject, %s",
			 h->bigobj ? "bigobj " : "", m);
		break;
	case INSPECT_PE:
		snprintf(buf, cap, "PE%s %s, %s", h->is64 ? "32+" : "32",
			 h->dll ? "DLL" : "executable", m);
		break;
	case INSPECT_ARCHIVE:
	case INSPECT_RAW:
	case INSPECT_THIN_MEMBER:
	case INSPECT_OTHER:
	case INSPECT_TEXT:
	case INSPECT_HOST:
		break;
	}
}

void inspect_entry_target(const struct inspect_node *n,
			  struct inspect_target *t)
{
	kinds_entry_target(n, t);
}
