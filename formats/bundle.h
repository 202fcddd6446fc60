/* bundle: the __CLANG_OFFLOAD_BUNDLE__ formats: what their parts share, the
 * plan of a bundle to write and the reader (bundle.c); each layout in its
 * own file (bundle_binary.h, bundle_text.h, bundle_object.h), the reader's
 * calls in bundle_reader.h. */
#ifndef FORMATS_BUNDLE_H
#define FORMATS_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/strmap.h"

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
enum { BUNDLE_MAGIC_LEN = 24 };

/* A bundle to write, as pieces emitted in order: literal bytes, then zero
 * padding, then the whole of input number `input` (-1: none).  The format
 * decides every byte; the caller only moves them, so large inputs stream. */
struct bundle_piece {
	const uint8_t *lit;
	size_t lit_len;
	uint64_t pad;
	long input;
};

struct bundle_plan {
	struct bundle_piece *piece;
	size_t n;
	uint8_t *storage;	/* owns every lit */
	uint64_t total;		/* size of the whole bundle */
};

void bundle_plan_free(struct bundle_plan *plan);

/* Reading follows LLVM's reader step by step, because what it finds depends
 * on how it is driven: a binary bundle's entries come in StringMap order, a
 * text bundle is searched from a cursor that only moves past an entry's
 * content when that entry is read. */
struct bundle_reader {
	const uint8_t *buf;
	size_t len;
	bool text, object;
	/* binary */
	struct strmap entries;	/* id -> index into off/size */
	uint64_t *off, *size;
	uint32_t cur, processed;
	/* object: the bundle sections, in section order */
	const char **ids;
	size_t *id_len, nobj;
	/* text */
	char start[64], end[64];
	size_t start_len, end_len, pos;
	bool at_end;
};

struct bundle_entry {
	const char *id;
	size_t id_len;
};

void bundle_close(struct bundle_reader *r);

#endif
