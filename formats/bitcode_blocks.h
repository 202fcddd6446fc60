/* bitcode_blocks: the blocks of a module that bitcode_embed.c walks:
 * types, constants, metadata (bitcode_blocks.c). */
#ifndef FORMATS_BITCODE_BLOCKS_H
#define FORMATS_BITCODE_BLOCKS_H

#include <stdint.h>

#include "bitcode_embed_impl.h"

/* A value ID more (pass 1). */
int bce_add_value(struct reader *r, struct value v);
/* Bytes per element of a DATA constant of type t, 0 when LLVM would not
 * make one of it. */
unsigned bce_element_size(const struct reader *r, uint64_t t);
/* Enter a block; leave it where its length word says it ends. */
int bce_enter(struct reader *r, uint64_t id, struct block *blk);
int bce_leave(struct reader *r, const struct block *blk);
/* The constant of ID value asked for, or NULL (want is sorted). */
struct want *bce_wanted(struct reader *r, uint64_t value);
/* The blocks of a module, each entered already by its ID. */
int bce_read_types(struct reader *r);
int bce_read_constants(struct reader *r);
int bce_read_metadata(struct reader *r);

#endif
