/* elfcopy_symbols: elfcopy's symbol renumbering (see elfcopy_impl.h). */
#ifndef CORE_ELFCOPY_SYMBOLS_H
#define CORE_ELFCOPY_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "elfcopy_add.h"
#include "elfcopy_impl.h"
#include "err.h"

/* Symbol renumbering (elfcopy_symbols.c). */
int elfcopy_plan_symbols(struct copy *c, struct err *e);
int elfcopy_rewrite_symbols(struct copy *c, uint32_t *info, uint64_t *size,
			    struct err *e);
int elfcopy_rewrite_relocations(struct copy *c, size_t i, struct err *e);
int elfcopy_check_relocation_symbols(const struct copy *c, struct err *e);
int elfcopy_rewrite_group(struct copy *c, size_t i, struct err *e);

#endif
