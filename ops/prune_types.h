/* prune_types: what prune (prune.h) takes and plans, the types alone,
 * for its parts (prune_impl.h) to share without a loop. */
#ifndef OPS_PRUNE_TYPES_H
#define OPS_PRUNE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/select.h"
#include "../formats/ccob.h"
#include "elf_shrink_types.h"

/* One entry looked at: the keep() callback's view and what was decided. */
struct prune_entry {
	struct select_entry sel;
	uint64_t size;		/* its code's bytes */
	uint64_t container;	/* file offset of the container holding it */
	const char *section;	/* the section it is in, or NULL */
};

/* How a linked file is made smaller.  GNU strip, objcopy and eu-strip
 * rewrite a file whose program headers sit in a cut (ELF_SHRINK_IN_CUT)
 * wrongly; after the ELF header they are safe, but there is rarely room.
 * A file with no symbol table (installed, stripped already) will not be
 * stripped again: by default it gets the cut, a file with one the safe
 * place. */
enum prune_shrink {
	PRUNE_SHRINK_AUTO,	/* by the symbol table, as above */
	PRUNE_SHRINK_ALWAYS,	/* in a cut where needed (--always-shrink) */
	PRUNE_SHRINK_STRIP_SAFE,	/* only after the ELF header */
};

struct prune_opts {
	/* Keep this entry?  Host entries are offered too. */
	bool (*keep)(void *ctx, const struct prune_entry *en);
	/* Told of every entry after the decision, for -v; may be NULL. */
	void (*seen)(void *ctx, const struct prune_entry *en, bool kept);
	void *ctx;
	int level;		/* compression level of recompressed CCOBs */
	/* That of compressed offload packages written again; 0: LLVM 24's
	 * default (zstd 5, zlib 6). */
	int package_level;
	bool keep_layout;	/* a linked file's freed bytes stay, zero */
	/* Where a linked file's new program headers go (elf_shrink.h). */
	enum prune_shrink shrink;
	struct ccob_limits limits;
	/* Only decide (keep() and seen() see every entry): CCOBs are not
	 * inflated past their bundle headers, and the plan is not for
	 * writing. */
	bool decide_only;
	/* Each uncompressed bundle becomes a CCOB of this method (CCOB_ZSTD,
	 * CCOB_ZLIB) at `level`, of ccob_version (2 or 3), or of the version
	 * the file's HIP runtime reads when 0 (libamdhip64.so.6: 2, .so.7:
	 * 3; .so.5 reads none: an error).  A file with no HIP runtime among
	 * the libraries it needs (an object, a bare bundle) takes 3, the
	 * version LLVM 22 writes, unless told. */
	bool compress;
	unsigned compress_method, ccob_version;
	/* Containers of a region compressed at once (--compress), each on
	 * a thread of its own; 0 or 1: one after another.  The output is
	 * the same either way. */
	unsigned threads;
};

struct io_in;

/* A piece of new bytes: literal bytes, zeros, then data.  The data lie in
 * the input at file offset src when from_file (the writer copies them in
 * the kernel), or at src in `file` when that is set (compressed bytes
 * spooled: prune_region.h), else in memory (an inflated CCOB's); data
 * points at them in every case. */
struct prune_piece {
	const uint8_t *lit;
	size_t lit_len;
	uint64_t pad;
	const uint8_t *data;
	uint64_t data_len;
	uint64_t src;
	bool from_file;
	const struct io_in *file;
};

/* Where --compress puts a container's compressed bytes: the spool file
 * (its fd, and as an input, view) from offset at, which they must not
 * reach past at + room (then the container stays as it is); a pruned
 * bundle is written out whole at raw_at first (the file's second half).  hash_later:
 * its CCOB hash is made elsewhere, and the header written after; head is
 * the header made (its hash 0 then). */
struct prune_spool {
	int fd;
	const struct io_in *view;
	uint64_t at, room;
	uint64_t raw_at;	/* where a pruned bundle is written out whole */
	bool hash_later;
	struct ccob_header head;
};

struct prune_spool_file;

/* A range of the input replaced by new bytes, made of pieces.  in_place:
 * the new bytes are no longer than the old and the rest of the range
 * becomes zeros (holes where whole pages are freed); otherwise the range
 * is replaced by the new bytes alone. */
struct prune_patch {
	uint64_t offset, old_size;
	uint64_t new_size;
	bool in_place;
	struct prune_piece *piece;
	size_t npieces;
	uint8_t *storage;	/* owns every lit */
};

struct prune_member;

struct prune_trim {
	size_t section;
	uint64_t size_off;	/* file offset of its sh_size */
	bool end_pointer;	/* something points at its new end */
};

/* A section written again: its name, type, flags and alignment kept, its
 * bytes what the patch makes (as llvm-objcopy --remove-section then
 * --add-section with them). */
struct prune_section {
	char *name;
	uint32_t type;
	uint64_t flags, align;
	struct prune_patch content;
};

struct prune_plan {
	struct prune_patch *patch;	/* in offset order, not overlapping */
	size_t n;
	/* An archive whose members change size: written again, every member
	 * with its own plan (patches or dropped sections), the symbol table
	 * made anew.  Exclusive with patches (an archive whose members keep
	 * their sizes is patched in place). */
	struct prune_member *member;
	size_t nmember;
	uint64_t symtab_mtime;
	bool symtab;
	/* An ELF object rewritten without these sections (object bundles),
	 * and with these added in their place (a .llvm.offloading without
	 * the dropped packages); exclusive with patches. */
	char **drop_sections;
	size_t ndrop;
	struct prune_section *add;
	size_t nadd;
	/* What was found. */
	uint64_t containers;		/* bundles and CCOBs walked */
	uint64_t entries_kept, entries_dropped;
	uint64_t device_kept;		/* kept entries that are device code */
	uint64_t code_dropped;		/* bytes of code in dropped entries */
	uint64_t size_before, size_after;	/* of the file */
	/* Bytes freed where they were and left as zeros (the layout of a
	 * linked file cannot move: its runtime points into it). */
	uint64_t zeroed;
	/* Containers that kept no device code at all. */
	uint64_t containers_emptied;
	/* Bundles made CCOBs (--compress), and the CCOB version written. */
	uint64_t compressed;
	unsigned ccob_version;
	/* NVIDIA fatbin entries compressed (--compress; LZ4, as fatbinary
	 * -compress-all). */
	uint64_t entries_compressed;
	/* A linked file made smaller: the freed ranges cut out, the
	 * headers written anew (shrink.n edits); or why not (shrink.why). */
	struct elf_shrink shrink;
	/* Sections made shorter (a linked OpenMP program's .llvm.offloading,
	 * its kept packages packed at its start): their headers' sh_size is
	 * a patch, left to the shrink when it writes the headers anew. */
	struct prune_trim *trim;
	size_t ntrim;
	/* Why a linked file's packages stay where they are (zeroed), or
	 * NULL. */
	const char *unpacked;
	/* Why the containers of a linked file's .hip_fatbin or .nv_fatbin
	 * stay where they are (each one's freed tail zeroed), or "". */
	char unpacked_fatbin[160];
	/* A PE image whose CheckSum is set: its offset, recomputed once
	 * written (0: none). */
	uint64_t pe_checksum;
	/* An archive written again: LLVM's COFF format (AR_COFF) or GNU. */
	int ar_kind;
	/* The compressed containers' bytes, until written (prune_region.h);
	 * the top plan's, or NULL. */
	struct prune_spool_file *spool;
};

struct prune_member {
	const char *name;	/* inside the archive's bytes */
	size_t name_len;
	uint64_t offset, size;	/* its data in the archive */
	uint32_t uid, gid, mode;
	int64_t mtime;
	struct prune_plan plan;
};

#endif
