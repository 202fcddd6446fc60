/* ls: what the ls applet's text and JSON printers share (ls.c, ls_json.c). */
#ifndef APPLETS_LS_H
#define APPLETS_LS_H

#include <stdbool.h>
#include <stddef.h>

#include "../formats/inspect.h"

/* A node as the walk reported it, with its strings copied. */
struct row {
	struct inspect_node n;
	char *strings;
	char *why;		/* n.decode_err's message, or NULL */
};

struct rows {
	struct row *v;
	size_t n, cap;
};

bool has_children(const struct rows *rs, size_t i);
/* Archive members without device code are left out. */
bool shown(const struct rows *rs, size_t i);
const char *container_name(enum inspect_container c);
const char *section_kind_name(enum elfscan_kind k);
const char *elf_type_name(uint16_t t);
const char *hash_word(enum inspect_hash h);

/* One file's tree as a JSON object (see man/offload-ls.1). */
void ls_json(const struct rows *rs, const char *path);

#endif
