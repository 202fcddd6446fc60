/* bitstream: LLVM's bitstream container, the layer under bitcode.
 *
 * A stream is a sequence of abbreviation IDs of the current width: 0 ends
 * a block, 1 enters one (block ID vbr8, new width vbr4, align to 32 bits,
 * length in 32-bit words), 2 defines an abbreviation, 3 is a record
 * spelled out in vbr6, 4 and up are records laid out by an abbreviation.
 * Every read is bounded by the stream and every count checked against the
 * bits left before it is used. */
#ifndef FORMATS_BITSTREAM_H
#define FORMATS_BITSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

enum { BS_END_BLOCK, BS_ENTER_SUBBLOCK, BS_DEFINE_ABBREV, BS_UNABBREV_RECORD };
enum { BS_BLOCKINFO = 0 };	/* the block of abbreviations for others */

struct bitstream {
	const uint8_t *p;
	uint64_t len;		/* in bits */
	uint64_t pos;
};

/* Abbreviations kept per block: LLVM's writers define a handful; more is
 * refused. */
enum { BS_MAX_ABBREVS = 64, BS_MAX_OPS = 16 };

struct bs_op {
	uint8_t kind;
	uint64_t value;		/* literal value or bit width */
};

struct bs_abbrevs {
	unsigned n;
	uint8_t nops[BS_MAX_ABBREVS];
	struct bs_op op[BS_MAX_ABBREVS][BS_MAX_OPS];
};

int bs_read(struct bitstream *b, unsigned n, uint64_t *v, struct err *e);
/* Variable-width: chunks of n bits (1 to 32), the top bit of each says
 * more follow. */
int bs_vbr(struct bitstream *b, unsigned n, uint64_t *v, struct err *e);
void bs_align32(struct bitstream *b);

/* After DEFINE_ABBREV: read the definition into a (NULL: read and drop
 * it). */
int bs_define_abbrev(struct bitstream *b, struct bs_abbrevs *a, struct err *e);

/* One record.  code and the first BS_KEPT operands are kept; every operand
 * (array elements included, Char6 decoded) also goes to each when it is
 * given, which returns 0 to go on.  A blob operand is left in blob, or
 * given to each byte by byte as LLVM gives it to readers that take no
 * blob, when blob_ops is set before the call. */
enum { BS_KEPT = 8 };
struct bs_record {
	bool blob_ops;		/* in: blob bytes are operands */
	bool skim;		/* in: fixed-width array elements are only
				   counted, not read (no each, op[] not
				   filled from them) */
	uint64_t code;
	uint64_t nops;		/* operands after the code */
	uint64_t op[BS_KEPT];
	const uint8_t *blob;
	size_t blob_len;
};
typedef int bs_op_fn(void *ctx, uint64_t index, uint64_t value);
int bs_read_record(struct bitstream *b, const struct bs_abbrevs *a,
		   uint64_t id, struct bs_record *r, bs_op_fn *each, void *ctx,
		   struct err *e);

/* After ENTER_SUBBLOCK and the block ID: skip the block by its length. */
int bs_skip_block(struct bitstream *b, struct err *e);
/* After ENTER_SUBBLOCK and the block ID: enter it; its abbreviation width
 * in *width and the bit where it ends, by its length word, in *end. */
int bs_enter_block(struct bitstream *b, unsigned *width, uint64_t *end,
		   struct err *e);

/* The abbreviations a BLOCKINFO block gives other blocks, kept for the
 * block IDs asked for (want, terminated by UINT64_MAX; others are read and
 * dropped). */
enum { BS_MAX_INFO = 4 };
struct bs_blockinfo {
	unsigned n;
	uint64_t block[BS_MAX_INFO];
	struct bs_abbrevs abbrevs[BS_MAX_INFO];
};
/* After ENTER_SUBBLOCK and block ID 0. */
int bs_read_blockinfo(struct bitstream *b, struct bs_blockinfo *info,
		      const uint64_t *want, struct err *e);
/* What a block with this ID starts with: its BLOCKINFO abbreviations. */
void bs_block_abbrevs(const struct bs_blockinfo *info, uint64_t block,
		      struct bs_abbrevs *a);

#endif
