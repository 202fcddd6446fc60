/* kernels: the kernel list every code object reader fills; see kernels.h.
 * Lower than the readers, which free a list they fail to fill. */
#include <stdlib.h>

#include "kernels.h"

void kernels_free(struct kernel_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const char *kernels_source_name(enum kernel_source s)
{
	return s == KERNELS_AMDGPU ? "amdgpu" : s == KERNELS_CUBIN ? "cubin"
								    : "ptx";
}
