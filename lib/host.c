/* host: what an ELF, COFF or PE input's own headers say, as ls names it
 * (offcode_input_host), and where a container's section lies
 * (offcode_container_section_extent), from what the walk kept of them
 * (keep.c). */
#include <string.h>

#include "artifact_impl.h"
#include "../ops/inspect_names.h"

int offcode_input_host(const offcode_input *in, struct offcode_host *h)
{
	const struct inspect_host_header *hh;
	struct offcode_host out = { .size = sizeof(out) };

	if (!in || !h || h->size < sizeof(out))
		return OFFCODE_INVALID;
	hh = &in->host;
	switch (hh->format) {
	case INSPECT_ELF:
		out.bits = hh->is64 ? 64 : 32;
		out.big_endian = hh->big_endian;
		out.type = inspect_elf_type_name(hh->elf_type);
		out.type_number = hh->elf_type;
		out.machine = inspect_machine_name(hh->machine);
		break;
	case INSPECT_COFF:
		out.bigobj = hh->bigobj;
		out.machine = inspect_coff_machine_name(hh->machine);
		break;
	case INSPECT_PE:
		out.bits = hh->is64 ? 64 : 32;
		out.dll = hh->dll;
		out.machine = inspect_coff_machine_name(hh->machine);
		break;
	case INSPECT_ARCHIVE:
	case INSPECT_RAW:
	case INSPECT_THIN_MEMBER:
	case INSPECT_OTHER:
	case INSPECT_TEXT:
	case INSPECT_HOST:
		return OFFCODE_NOTHING;
	}
	out.format = in->format;
	out.machine_number = hh->machine;
	inspect_host_words(hh, out.description, sizeof(out.description));
	/* A caller built against a later header keeps its size. */
	out.size = h->size;
	memcpy(h, &out, sizeof(out));
	return 0;
}

bool offcode_container_section_extent(const offcode_container *c,
				      uint64_t *offset, uint64_t *size)
{
	if (!c || !c->in_section)
		return false;
	if (offset)
		*offset = c->section_offset;
	if (size)
		*size = c->section_size;
	return true;
}
