/* triple: LLVM target triples, as far as the offload tools need them. */
#ifndef CORE_TRIPLE_H
#define CORE_TRIPLE_H

#include <stdbool.h>
#include <stddef.h>

#include "env.h"


/* The parsed enums of an llvm::Triple; 0 means unknown in every field. */
struct triple {
	int arch, subarch, vendor, os, env, objfmt;
};

/* Parse like llvm::Triple(string) of release r: split on '-', parse each
 * component in its own position (arch, vendor, os, env/object format), no
 * reordering.  From 23 on, every arch name starting "amdgpu" is amdgcn. */
void triple_parse(const char *s, size_t len, enum llvm_release r,
		  struct triple *t);

bool triple_arch_known(const struct triple *t);
bool triple_os_is_amdhsa(const struct triple *t);
bool triple_is_amdgcn(const struct triple *t);
bool triple_is_nvptx(const struct triple *t);
/* llvm::Triple::isCompatibleWith */
bool triple_compatible(const struct triple *a, const struct triple *b);

#endif
