/* bitcode_embed: the offload data a bitcode module embeds
 * (bitcode_embed.c, its blocks read by bitcode_blocks.c). */
#ifndef FORMATS_BITCODE_EMBED_H
#define FORMATS_BITCODE_EMBED_H

#include <stdbool.h>
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

/* As bitcode_embedded_objects, with where each object's bytes lie in
 * buf: when fixed8, byte i is the 8-bit field at bit (at->bit + 8 * i) of
 * the file (bit k is bit k % 8 of byte k / 8, as the bitstream is laid
 * out), every one of them (a STRING record through an abbreviation of
 * Fixed(8) array elements, as LLVM writes an array of bytes): bytes
 * written there keep the bitcode's every other bit. */
struct bitcode_place {
	uint64_t bit;
	bool fixed8;
};
int bitcode_embedded_places(const uint8_t *buf, size_t len,
			    int (*each)(void *ctx, uint8_t *data, size_t len,
					const struct bitcode_place *at),
			    void *ctx, struct err *e);

#endif
