/* ls_text: ls's text listing. */
#ifndef APPLETS_LS_TEXT_H
#define APPLETS_LS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../ops/inspect_node.h"

/* Format the entry n into the text of the container last
 * kept in rs (see struct entry_text): -1 only when out of memory; one
 * file's tree as text. */
int ls_entry_as_text(struct rows *rs, const struct inspect_node *n);
void ls_text(const struct rows *rs, const char *path);

#endif
