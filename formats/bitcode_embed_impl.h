/* bitcode_embed_impl: what formats/bitcode_embed.c (the module block,
 * the walk of the file, resolving !llvm.embedded.objects) and
 * formats/bitcode_blocks.c (the blocks inside a module: types, constants,
 * metadata) share.  Not for other modules. */
#ifndef FORMATS_BITCODE_EMBED_IMPL_H
#define FORMATS_BITCODE_EMBED_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitstream.h"
#include "../core/err.h"

enum {
	BLOCK_MODULE = 8,
	BLOCK_CONSTANTS = 11,
	BLOCK_IDENTIFICATION = 13,
	BLOCK_METADATA = 15,
	BLOCK_TYPE = 17,

	MODULE_VERSION = 1,
	MODULE_GLOBALVAR = 7,
	MODULE_FUNCTION = 8,
	MODULE_ALIAS_OLD = 9,
	MODULE_ALIAS = 14,
	MODULE_IFUNC = 18,

	CST_SETTYPE = 1,
	CST_STRING = 8,
	CST_CSTRING = 9,
	CST_DATA = 22,

	MD_STRING_OLD = 1,
	MD_VALUE = 2,
	MD_NODE = 3,
	MD_NAME = 4,
	MD_DISTINCT_NODE = 5,
	MD_NAMED_NODE = 10,
	MD_STRINGS = 35,

	TYPE_NUMENTRY = 1,
	TYPE_FLOAT = 3,
	TYPE_DOUBLE = 4,
	TYPE_INTEGER = 7,
	TYPE_HALF = 10,
	TYPE_ARRAY = 11,
	TYPE_VECTOR = 12,
	TYPE_STRUCT_NAME = 19,
	TYPE_BFLOAT = 23,
};

static const char NAMED[] = "llvm.embedded.objects";

enum value_kind { VAL_GLOBALVAR, VAL_GLOBAL, VAL_CONSTANT };

struct value {
	uint8_t kind;
	uint64_t code;		/* a constant's record code */
	uint64_t type;		/* a constant's type (the last SETTYPE) */
	uint64_t init;		/* a GLOBALVAR's initializer ID + 1 (0: none);
				   a constant's operand count */
};

enum md_kind { MD_OTHER, MD_K_STRING, MD_K_VALUE, MD_K_NODE };

struct md {
	uint8_t kind;
	bool section;		/* a string: ".llvm.offloading" */
	uint64_t nops;		/* a node: its operands */
	uint64_t a, b;		/* a node: operands 0 and 1 (IDs + 1);
				   a value: type and value ID */
};

struct type {
	uint64_t code, op0, op1;
};

/* A constant asked for and, after the second walk, its bytes; uses
 * counts down as they are handed out. */
struct want {
	uint64_t value;
	uint8_t *data;
	size_t len;
	size_t uses;
	/* Where its bytes are in the stream: each an 8-bit field from bit
	 * `bit` on, back to back (fixed8), or encoded otherwise. */
	uint64_t bit;
	bool fixed8;
};

struct reader {
	struct bitstream b;
	struct bs_blockinfo *info;
	int pass;
	uint64_t version;
	struct value *val;
	size_t nval, capval;
	struct md *md;
	size_t nmd, capmd;
	struct type *ty;
	size_t nty, capty;
	uint64_t *named;	/* !llvm.embedded.objects' node IDs */
	size_t nnamed, capnamed;
	struct want *want;	/* sorted by value */
	size_t nwant;
	uint64_t *order;	/* value IDs of wanted, in LLVM's order */
	size_t norder;
	uint64_t next_value;	/* pass 2: value numbering */
	struct err *e;
};

/* A block being read: its abbreviation width and definitions, and where
 * its length word says it ends. */
struct block {
	unsigned width;
	uint64_t end;
	struct bs_abbrevs *a;
};


#endif
