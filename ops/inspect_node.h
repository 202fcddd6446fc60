/* inspect_node: what the walk (inspect.h) hands its visitor, and the
 * options it takes: the node of an input, a section, a container or an
 * entry.  Types only; the walk's parts (inspect_walk.h), the entry bytes
 * (entry.h) and the applets share them. */
#ifndef OPS_INSPECT_NODE_H
#define OPS_INSPECT_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/elfscan.h"
#include "../core/err.h"
#include "../formats/ccob.h"
#include "../formats/fatbin.h"
#include "../formats/nvfatbin.h"
#include "../formats/package.h"

struct host;			/* host.h */

enum inspect_kind {
	INSPECT_INPUT,		/* the file, or an archive member */
	INSPECT_SECTION,	/* an ELF section that holds offload code */
	INSPECT_CONTAINER,	/* a bundle, CCOB, package or NVIDIA fatbin */
	INSPECT_ENTRY,		/* one code object */
};

enum inspect_format {
	INSPECT_ELF,
	INSPECT_ARCHIVE,
	INSPECT_RAW,		/* bundles, CCOBs, packages or NVIDIA fatbins */
	INSPECT_THIN_MEMBER,	/* a thin archive's member: not read */
	INSPECT_OTHER,		/* none of these (see accept_other) */
	INSPECT_COFF,		/* a COFF object, plain or bigobj */
	INSPECT_TEXT,		/* as OTHER, text (a linker script...) */
	INSPECT_PE,		/* a PE image: executable or DLL */
	/* A host format whose row (host) says how ls names it: its words,
	 * and containers under it (bitcode, a new format). */
	INSPECT_HOST,
};
enum { INSPECT_FORMATS = INSPECT_HOST + 1 };

enum inspect_hash {
	INSPECT_HASH_UNCHECKED,	/* only the header was read */
	INSPECT_HASH_OK,
	INSPECT_HASH_BAD,
};

struct inspect_node {
	enum inspect_kind kind;
	unsigned depth;		/* 0 for the file */
	/* Where its bytes are in the file: in_file is false for what sits
	 * inside a compressed container (offset is then from the start of
	 * the inflated bundle). */
	uint64_t offset, size;
	bool in_file;
	/* INPUT: member name (empty for the file itself); SECTION: section
	 * name; ENTRY: bundle ID (bundles only).  Not NUL-terminated. */
	const char *name;
	size_t name_len;

	/* INPUT */
	enum inspect_format format;
	const struct host *host;	/* its row, when one probed it */
	bool is64, big_endian;		/* ELF; is64 also PE32+ */
	uint16_t elf_type;		/* ELF */
	uint16_t machine;		/* ELF or COFF */
	bool bigobj;			/* COFF */
	bool dll;			/* PE */
	bool ld_script;			/* TEXT: GNU ld's commands */

	/* SECTION */
	uint32_t section_index;
	enum section_kind section_kind;

	/* CONTAINER (and ENTRY: its container's number and format) */
	enum fatbin_kind container;
	unsigned number;	/* from 0 in each file, in walk order */
	unsigned version;	/* CCOB, package, NVIDIA fatbin or kpack version */
	unsigned kpack_scheme;	/* kpack: enum kpack_scheme */
	size_t entries;		/* how many ENTRY nodes follow */
	struct ccob_header ccob;
	uint64_t ccob_compressed;	/* bytes of compressed stream */
	enum inspect_hash hash;
	uint64_t computed_hash;	/* when checked */
	/* A streamed CCOB's second visit, after its entries: the same node,
	 * its hash now checked (see inspect_opts.stream). */
	bool update;
	/* CONTAINER and ENTRY: a package a bitcode module embeds (its bytes
	 * are bits of the module's array, not the file's: not in_file). */
	bool in_bitcode;

	/* ENTRY */
	unsigned index;		/* within its container */
	uint32_t entry_section;	/* object bundles: the section's index */
	const char *triple, *arch;	/* packages (NUL-terminated or NULL) */
	size_t triple_len, arch_len;
	/* Packages: as stored; bundles: from the code's first bytes when
	 * they are at hand (enum package_image_kind; PACKAGE_IMG_NONE when
	 * not, or when they are none of these). */
	uint16_t image_kind, offload_kind;
	struct nvfatbin_entry nv;	/* NVIDIA fatbins */
	const uint8_t *nv_base;		/* its fatbin's first byte */
	/* The code, when at hand: always for bytes in the file; inside a
	 * CCOB or a compressed package only when the walk inflates.  For an
	 * NVIDIA entry, only when the walk inflates: its code as
	 * nvfatbin_code gives it, code_size bytes (inflated, PTX without its
	 * padding); or, for one that cannot be decoded, NULL, with hash
	 * INSPECT_HASH_BAD and decode_err saying why. */
	const uint8_t *data;
	uint64_t code_size;
	/* A kpack archive's entry: the bytes it takes in the file (its zstd
	 * frame, or its code stored as it is). */
	uint64_t kpack_stored;
	const struct err *decode_err;
	/* ENTRY of a CCOB walked with stream_ccob: data is NULL, and head
	 * holds the code's first min(size, INSPECT_HEAD) bytes.  The CCOB's
	 * CONTAINER node then has its compressed bytes in data (size of
	 * them), to be decompressed again by whoever wants the code. */
	const uint8_t *head;
};

/* Return 0 to go on; anything else stops the walk and is returned: -1
 * when out of memory (the walk's error record then says so, ERR_NOMEM),
 * another value with the record untouched. */
typedef int (*inspect_visit_fn)(void *ctx, const struct inspect_node *n);

struct inspect_opts {
	/* Inflate every CCOB whole (checking its hash), every compressed
	 * package and every NVIDIA entry, so entries inside them have their
	 * data.  Otherwise a CCOB is inflated only as far as the bundle
	 * header inside it, and no NVIDIA entry has data. */
	bool inflate;
	/* With inflate: a CCOB whose code objects lie in order is inflated as
	 * a stream, each entry visited as soon as it is whole and freed after
	 * (memory is the largest code object, not the bundle); the CCOB is
	 * visited before its entries with its hash unchecked, and again after
	 * them with update set and its hash checked. */
	bool stream;
	/* With inflate, a CCOB is not held: it is decompressed once to check
	 * it, keeping only what ENTRY nodes need to describe their code (see
	 * head above), and visited once, its hash checked, before them (what
	 * extract needs; stream above is what ls --kernels needs: each
	 * entry's code).  It wins over stream. */
	bool stream_ccob;
	/* With inflate (not stream_ccob): CCOBs are inflated without their
	 * hash being computed, which stays INSPECT_HASH_UNCHECKED.  LLVM 22
	 * never checks it either (only its -verbose report recomputes it),
	 * and MD5 costs more than inflating. */
	bool no_hash;
	/* A file that is none of the formats above is an INPUT node of
	 * format OTHER or TEXT (as archive members are), not an error. */
	bool accept_other;
	/* Bundle entries whose code lies in the file get their image_kind
	 * from its first bytes: a page of the file read for each entry, which
	 * a listing of headers does without (inside a CCOB or a package the
	 * code is in memory and always looked at). */
	bool image_kinds;
	struct ccob_limits ccob;
	struct package_limits package;
	/* Where the file's data go on at or after offset off, past a hole
	 * of a sparse file (lseek's SEEK_DATA; the file's length when only a
	 * hole is left).  Zero padding in a hole is skipped without being
	 * read.  NULL: every byte is looked at. */
	uint64_t (*next_data)(const void *ctx, uint64_t off);
	const void *data_ctx;
	/* The walk is about to read all of the file's bytes [off, off + len)
	 * in order (a CCOB or an NVIDIA entry it inflates; start true), or is
	 * done with them (start false): the file can be read ahead there, and
	 * let go of after.  NULL: nothing is said.  For NVIDIA entries the
	 * start may be said from the walk's decoding thread (a hint, such as
	 * madvise, needs nothing more). */
	void (*reading)(const void *ctx, uint64_t off, uint64_t len,
			bool start);
};

/* What an entry is for, as far as its container says: offload kind
 * ("hipv4", "openmp", "cuda"...), triple, target ID or arch ("gfx90a:xnack+",
 * "sm_80") and image kind ("elf", "bitcode", "ptx"...).  A bundle ID is
 * split at its dashes (kind, four triple parts, target ID); a package's
 * come from its strings; an NVIDIA entry's from its header.  Strings are
 * not NUL-terminated; NULL where the container does not say. */
struct inspect_target {
	const char *kind, *triple, *arch, *image;
	size_t kind_len, triple_len, arch_len, image_len;
	char arch_buf[16];	/* "sm_NN" for NVIDIA entries */
	/* A bundle ID with a target ID field (five dashes, even with the
	 * field empty): its image kind shows once one is known
	 * (kind_present_target_from_id). */
	bool id_has_target;
};

#endif
