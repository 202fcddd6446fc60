/* Fuzz target: the offload data of a bitcode module (formats/bitcode_embed.c
 * over formats/bitstream.c): the module's values, constants, types and
 * metadata, two walks, the arrays !llvm.embedded.objects leads to.  Every
 * buffer handed out must be the caller's to free, and as long as it says.
 * libFuzzer: -max_len=16384
 */
#include "fuzz.h"
#include "../../formats/bitcode_embed.h"

static int take(void *ctx, uint8_t *data, size_t len)
{
	size_t *n = ctx;

	FUZZ_CHECK(data != NULL);
	fuzz_touch(data, len);
	free(data);
	/* Stop after a few, as a caller that fails would. */
	return ++*n == 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	size_t n = 0;
	int rc = bitcode_embedded_objects(data, size, take, &n, &e);

	FUZZ_CHECK(rc == -1 || rc == 0 || (rc == 1 && n == 64));
	return 0;
}
