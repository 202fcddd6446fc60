/* inspect_names: the words for what inspect reports, as ls prints them. */
#include "inspect_names.h"

const char *inspect_section_kind_name(enum elfscan_kind k)
{
	switch (k) {
	case ELFSCAN_OFFLOADING: return "llvm-offloading";
	case ELFSCAN_HIP_FATBIN: return "hip-fatbin";
	case ELFSCAN_NV_FATBIN: return "nv-fatbin";
	case ELFSCAN_NV_RELFATBIN: return "nv-relfatbin";
	default: return "other";
	}
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
