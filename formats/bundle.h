/* bundle: the __CLANG_OFFLOAD_BUNDLE__ formats, binary and text. */
#ifndef FORMATS_BUNDLE_H
#define FORMATS_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"
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

/* Binary layout: header in ids order, each input at the next multiple of
 * align after the previous one. */
int bundle_plan_binary(const char *const *ids, const uint64_t *sizes, size_t n,
		       uint64_t align, struct bundle_plan *plan, struct err *e);
/* Text layout: "\n<comment> __CLANG_OFFLOAD_BUNDLE____START__ <id>\n",
 * the input, "\n<comment> __CLANG_OFFLOAD_BUNDLE____END__ <id>\n". */
int bundle_plan_text(const char *comment, const char *const *ids,
		     const uint64_t *sizes, size_t n, struct bundle_plan *plan,
		     struct err *e);
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

/* Starts like a binary bundle (the magic and one byte more, as LLVM asks). */
bool bundle_is_binary(const uint8_t *buf, size_t len);
/* Parse a binary bundle's header.  A buffer that is not a bundle, or whose
 * first entry is unreadable, holds no entries (as LLVM reads it); a header
 * that breaks off after a good entry is an error (LLVM 22 crashes there). */
int bundle_open_binary(struct bundle_reader *r, const uint8_t *buf, size_t len,
		       struct err *e);
/* The same from the first got bytes of a bundle of len bytes, as they
 * arrive: 1 and *need (at most len) when they are too few to tell. */
int bundle_open_binary_part(struct bundle_reader *r, const uint8_t *buf,
			    size_t got, size_t len, size_t *need, struct err *e);
void bundle_open_text(struct bundle_reader *r, const char *comment,
		      const uint8_t *buf, size_t len);
/* Next entry's ID: 1 found, 0 no more. */
int bundle_next(struct bundle_reader *r, struct bundle_entry *ent);
/* The current entry's content, consuming it.  A text entry with no END
 * marker is an error. */
int bundle_content(struct bundle_reader *r, uint64_t *off, uint64_t *size,
		   struct err *e);
/* Step over the current entry's end without reading its content, as LLVM's
 * --list does (for text: past the next END line). */
void bundle_skip(struct bundle_reader *r);
void bundle_close(struct bundle_reader *r);
/* Where an open binary bundle ends: after its header and every entry's
 * data (what follows may be another bundle). */
size_t bundle_binary_extent(const struct bundle_reader *r);

/* Object layout: one section per entry, named BUNDLE_MAGIC<id>, in the
 * host object (an ELF relocatable file).  Reading finds the sections in
 * section order; a file that is an object but not ELF holds no entries
 * (Mach-O names cannot be that long).  A damaged ELF file is an error. */
int bundle_open_object(struct bundle_reader *r, const uint8_t *buf, size_t len,
		       struct err *e);
/* An entry of exactly one zero byte stands for the host object itself. */
bool bundle_object_is_host(const uint8_t *buf, uint64_t off, uint64_t size);
/* Write host with one section per entry appended, in ids order: flags
 * SHF_EXCLUDE, alignment 1, all of inputs[i] (the host's entry: one zero
 * byte), as llvm-objcopy --add-section/--set-section-flags=readonly,exclude does. */
int bundle_write_object(const uint8_t *host, size_t host_len,
			const char *const *ids, const struct io_in *inputs,
			size_t n, long host_index, struct io_out *out,
			struct err *e);
/* Write the object without its bundle sections (llvm-objcopy --regex
 * --remove-section=__CLANG_OFFLOAD_BUNDLE__.*). */
int bundle_strip_object(const uint8_t *buf, size_t len, struct io_out *out,
			struct err *e);

/* The two layouts' halves of the calls above (formats/bundle.c dispatches). */
int bundle_next_binary(struct bundle_reader *r, struct bundle_entry *ent);
int bundle_content_binary(const struct bundle_reader *r, uint64_t *off,
			  uint64_t *size, struct err *e);
int bundle_next_text(struct bundle_reader *r, struct bundle_entry *ent);
int bundle_content_text(struct bundle_reader *r, uint64_t *off, uint64_t *size,
			struct err *e);
void bundle_skip_text(struct bundle_reader *r);
int bundle_next_object(struct bundle_reader *r, struct bundle_entry *ent);
int bundle_content_object(const struct bundle_reader *r, uint64_t *off,
			  uint64_t *size, struct err *e);

#endif
