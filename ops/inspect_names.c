/* inspect_names: the words for what inspect reports, as ls prints them. */
#include "inspect_names.h"

const char *inspect_section_kind_name(enum section_kind k)
{
	return sections_get(k)->ls_name;
}

const char *inspect_elf_type_name(uint16_t t)
{
	switch (t) {
	case 1: return "relocatable";
	case 2: return "executable";
	case 3: return "shared object";
	case 4: return "core file";
	default: return NULL;
	}
}

const char *inspect_hash_name(enum inspect_hash h)
{
	return h == INSPECT_HASH_OK ? "ok" : h == INSPECT_HASH_BAD ? "mismatch"
								   : "unchecked";
}
