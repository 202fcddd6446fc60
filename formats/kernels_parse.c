/* kernels_parse: the kernels of any code object, by its kind: an AMDGPU
 * code object (amdgpu_co.c), an NVIDIA cubin (cubin.c) or PTX text
 * (ptx.c).  See kernels_parse.h. */
#include <elf.h>
#include <string.h>

#include "amdgpu_co.h"
#include "cubin.h"
#include "kernels_parse.h"
#include "ptx.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

int kernels_parse(const uint8_t *buf, size_t len, struct kernel_list *l,
		  struct err *e)
{
	memset(l, 0, sizeof(*l));
	if (elfscan_is_elf(buf, len) && len >= 20) {
		unsigned machine = buf[5] == 2 ? get_endian(buf + 18, 2, true)
					       : get_le(buf + 18, 2);

		if (machine == EM_AMDGPU)
			return amdgpu_co_kernels(buf, len, l, e) < 0 ? -1 : 1;
		if (machine == EM_CUDA)
			return cubin_kernels(buf, len, l, e) < 0 ? -1 : 1;
		return 0;
	}
	if (ptx_looks(buf, len))
		return ptx_kernels(buf, len, l, e) < 0 ? -1 : 1;
	return 0;
}
