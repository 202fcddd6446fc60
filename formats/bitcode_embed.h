/* bitcode_embed: the offload data a bitcode module embeds
 * (bitcode_embed.c, its blocks read by bitcode_blocks.c). */
#ifndef FORMATS_BITCODE_EMBED_H
#define FORMATS_BITCODE_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* The offload data a module embeds for llvm-offload-binary and the
 * linker wrapper (clang -flto puts each in @llvm.embedded.object), as LLVM
 * 22's extractFromBitcode finds them: every node of the named metadata
 * !llvm.embedded.objects whose second operand is the string
 * ".llvm.offloading" names a global variable; its initializer's bytes, if
 * it is an array of data, are given to each, in a malloc'd buffer that
 * each then owns.  each returns 0 to go on; anything else stops and is
 * returned.  -1 with e filled for what is not (sound) bitcode. */
int bitcode_embedded_objects(const uint8_t *buf, size_t len,
			     int (*each)(void *ctx, uint8_t *data, size_t len),
			     void *ctx, struct err *e);

#endif
