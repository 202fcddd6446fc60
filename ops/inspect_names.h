/* inspect_names: the words for a node's fields, as ls prints them. */
#ifndef OPS_INSPECT_NAMES_H
#define OPS_INSPECT_NAMES_H

#include <stdint.h>

#include "../core/elfscan.h"
#include "inspect_node.h"

/* A section's kind, an ELF type, a hash check (a container's name is in
 * kinds.h): "llvm-offloading", "hip-fatbin", ...; "relocatable", ...
 * (NULL for an ELF type not named); "ok", "mismatch", "unchecked". */
const char *inspect_section_kind_name(enum section_kind k);
const char *inspect_elf_type_name(uint16_t t);
const char *inspect_hash_name(enum inspect_hash h);

#endif
