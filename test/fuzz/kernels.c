/* Fuzz target: a code object's kernels (formats/amdgpu_co.c with
 * libmsgpack, formats/cubin.c, formats/ptx.c, ops/amdgpu_occupancy.c)
 * and the target its ELF header names (formats/amdgpu_target.c):
 * the input as any code object, and as each format alone.  Every kernel
 * has a name; every string is NUL-terminated inside its own block; a
 * failure leaves an empty list and a message.
 * libFuzzer: -max_len=16384
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/amdgpu_target.h"
#include "../../formats/kernels.h"
#include "../../formats/kernels_parse.h"
#include "../../formats/amdgpu_co.h"
#include "../../formats/cubin.h"
#include "../../formats/ptx.h"
#include "../../ops/amdgpu_occupancy.h"

static void check(const struct kernel_list *l, int rc, const struct err *e)
{
	if (rc < 0) {
		FUZZ_CHECK(l->n == 0 && l->v == NULL);
		FUZZ_CHECK(e->why[0] != 0);
		return;
	}
	FUZZ_CHECK(memchr(l->target, 0, sizeof(l->target)) != NULL);
	FUZZ_CHECK(memchr(l->processor, 0, sizeof(l->processor)) != NULL);
	for (size_t i = 0; i < l->n; i++) {
		FUZZ_CHECK(l->v[i].name != NULL);
		fuzz_touch(l->v[i].name, strlen(l->v[i].name) + 1);
		FUZZ_CHECK(l->v[i].occupancy <= 20);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_list l;
	struct err e;
	char target[64];
	int rc;

	memset(&e, 0, sizeof(e));
	if (amdgpu_target_of(data, size, target, sizeof(target)) == 1)
		FUZZ_CHECK(memchr(target, 0, sizeof(target)) != NULL);
	rc = kernels_parse(data, size, &l, &e);
	if (rc > 0)
		amdgpu_occupancy_fill(&l);
	check(&l, rc, &e);
	kernels_free(&l);
	rc = amdgpu_co_kernels(data, size, &l, &e);
	if (rc > 0)
		amdgpu_occupancy_fill(&l);
	check(&l, rc, &e);
	kernels_free(&l);
	rc = cubin_kernels(data, size, &l, &e);
	check(&l, rc, &e);
	kernels_free(&l);
	rc = ptx_kernels(data, size, &l, &e);
	check(&l, rc, &e);
	kernels_free(&l);
	return 0;
}
