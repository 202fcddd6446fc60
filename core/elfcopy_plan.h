/* elfcopy_plan: elfcopy's section planning (see elfcopy_impl.h). */
#ifndef CORE_ELFCOPY_PLAN_H
#define CORE_ELFCOPY_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "elfcopy_add.h"
#include "elfcopy_impl.h"
#include "err.h"

/* Section planning (elfcopy_plan.c), in the order elfcopy_write calls it. */
int elfcopy_check_tables(const struct copy *c, struct err *e);
int elfcopy_number_sections(struct copy *c,
			    bool (*drop)(void *, const char *, size_t),
			    void *drop_ctx, size_t nadd, struct err *e);
int elfcopy_plan_strings(struct copy *c, const struct elfcopy_add *add,
			 size_t nadd, struct err *e);
int elfcopy_fill_sections(struct copy *c, const struct elfcopy_add *add,
			  size_t nadd, struct err *e);
int elfcopy_check_segments(const struct copy *c, struct err *e);

#endif
