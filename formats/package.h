/* package: LLVM's offload binary (OffloadBinary, magic 10 FF 10 AD), what
 * llvm-offload-binary writes and clang embeds in .llvm.offloading sections. */
#ifndef FORMATS_PACKAGE_H
#define FORMATS_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/env.h"
#include "../core/err.h"

/* Version 1, the only one LLVM 15-22 write and read (all little endian,
 * offsets from the start of the binary):
 *   header  0  magic 10 FF 10 AD, u32 version, u64 size (whole binary,
 *              a multiple of 8), u64 entry offset, u64 entry size
 *   entry  32  u16 image kind, u16 offload kind, u32 flags,
 *              u64 string offset, u64 string count, u64 image offset,
 *              u64 image size
 *   records 72 per string: u64 key offset, u64 value offset (NUL-ended)
 *   then the string table, zeros to a multiple of 8, the image, zeros to
 *   a multiple of 8.  Packages from the tool are such binaries end to end.
 * Version 2 (LLVM 23) has many entries behind one header (the u64 at 24 is
 * their count), 24-byte records (value size added) and one string table.
 * Version 3 (later) has a 40-byte header whose u64 at 32, when not 0, is
 * the size of the binary inflated: everything after the header is then
 * one zstd or zlib stream, and the size field counts the compressed
 * binary, which is padded with zeros to a multiple of 8. */
enum {
	PACKAGE_ALIGN = 8,
	PACKAGE_V1_HEADER = 32,
	PACKAGE_ENTRY = 40,
	PACKAGE_V1_RECORD = 16,
};

/* Image kinds, numbered as in LLVM 15-22. */
enum package_image_kind {
	PACKAGE_IMG_NONE,
	PACKAGE_IMG_OBJECT,
	PACKAGE_IMG_BITCODE,
	PACKAGE_IMG_CUBIN,
	PACKAGE_IMG_FATBINARY,
	PACKAGE_IMG_PTX,
	PACKAGE_IMG_SPIRV,	/* named "spv" from LLVM 23 on */
};

/* Offload kinds, numbered as in LLVM 21+ (a bit mask).  LLVM 15-20 wrote
 * HIP as 3, which LLVM 22 reads as "none": kept apart here so it can be
 * told for what it is. */
enum package_offload_kind {
	PACKAGE_OFK_NONE = 0,
	PACKAGE_OFK_OPENMP = 1,
	PACKAGE_OFK_CUDA = 2,
	PACKAGE_OFK_HIP_LLVM20 = 3,
	PACKAGE_OFK_HIP = 4,
	PACKAGE_OFK_SYCL = 8,
};

/* LLVM 22's getImageKind: "o", "bc", "cubin", "fatbin", "s"; else none;
 * LLVM 23's (spirv true) also "spv". */
uint16_t package_image_kind_from_ext(const char *ext, size_t len, bool spirv);
/* LLVM 22's getImageKindName: the extension, "" for none and unknown;
 * LLVM 23's (spirv true) also "spv". */
const char *package_image_kind_ext(uint16_t kind, bool spirv);
/* LLVM 22's getOffloadKind: "openmp", "cuda", "hip", "sycl"; else none. */
uint16_t package_offload_kind_from_name(const char *name, size_t len);
/* What an offload kind is, for people: LLVM 22's names, and for 3 "hip
 * (LLVM 15-20 numbering)"; "none" for anything else. */
const char *package_offload_kind_describe(uint16_t kind);

struct package_string {
	const char *key, *value;
	size_t key_len, value_len;
};

/* ---- writing (version 1, byte for byte as LLVM 22) ---- */

/* One image's metadata, strings in the order their records are written. */
struct package_meta {
	uint16_t image_kind, offload_kind;
	const struct package_string *strings;
	size_t nstrings;
};

/* The bytes of a version-1 binary that come before its image of
 * image_size bytes (header, entry, records, string table, padding), in
 * *head (malloc'd), and how many zero bytes follow the image.  The caller
 * moves the image itself, so large images stream. */
int package_write_head(const struct package_meta *m, uint64_t image_size,
		       uint8_t **head, size_t *head_len, size_t *tail_pad,
		       struct err *e);

/* ---- writing versions 2 and 3 (many images in one binary) ---- */

/* The bytes of a version 2 (LLVM 23) or uncompressed version 3 (LLVM 24)
 * binary of n images that come before the images, as those LLVMs'
 * OffloadBinary::write lays them out: the header (32 bytes, or 40 with a
 * zero inflated size), n entries, every image's 24-byte string records
 * in turn, one string table of them all, zeros to a multiple of 8; then
 * the images back to back (sizes[i] bytes each, unaligned) and *tail_pad
 * zeros to a multiple of 8.  The image offsets are in *image_off (n of
 * them, the caller's).  flags: each entry's, or NULL for zeros. */
int package_write_multi_head(unsigned version, const struct package_meta *m,
			     const uint32_t *flags, const uint64_t *sizes,
			     size_t n, uint8_t **head,
			     size_t *head_len, uint64_t *image_off,
			     size_t *tail_pad, struct err *e);

enum package_codec { PACKAGE_ZSTD, PACKAGE_ZLIB };
/* The codec of a compressed version-3 binary: what its stream after the
 * header starts with (zstd's magic, else zlib), as LLVM 24 tells. */
enum package_codec package_codec_of(const uint8_t *bin, size_t len);
/* A whole uncompressed version-3 binary bin[0, len) compressed as LLVM
 * 24's OffloadBinary::write does: its 40-byte header, the header's size
 * the compressed binary's and its inflated size len, then everything past
 * the header in one zstd frame (no checksum) or zlib stream at level,
 * then zeros to a multiple of 8 (not counted in the size).  LLVM's
 * default levels: zstd 5, zlib 6.  *out malloc'd. */
int package_compress(const uint8_t *bin, size_t len, enum package_codec codec,
		     int level, uint8_t **out, size_t *out_len, struct err *e);
enum { PACKAGE_ZSTD_LEVEL = 5, PACKAGE_ZLIB_LEVEL = 6 };

/* ---- reading (versions 1, 2 and 3) ---- */

/* One image found by package_scan. */
struct package_image {
	unsigned version;		/* of the binary holding it */
	uint16_t image_kind, offload_kind;
	uint32_t flags;
	struct package_string *strings; /* in record order */
	size_t nstrings;
	const uint8_t *image;
	uint64_t image_size;
	/* Where the image is in the scanned bytes, unless it came out of a
	 * compressed binary (inflated: then only `image` holds it). */
	bool inflated;
	uint64_t image_offset;
	uint64_t binary_offset;		/* its binary, in the scanned bytes */
};

struct package_list {
	struct package_image *v;
	size_t n, cap;
	uint8_t **bodies;		/* inflated binaries, owned */
	size_t nbodies;
};

/* How far the inflated size of a compressed binary is believed before
 * anything is allocated (as for CCOBs, see ccob.h). */
struct package_limits {
	uint64_t max_ratio;
	uint64_t max_size;
	/* Reject what LLVM 23 rejects, in its words (else LLVM 22's rules). */
	bool llvm23;
	/* With llvm23: as LLVM 24, which takes a version 2 or 3 binary of
	 * a header and no entry. */
	bool llvm24;
};
#define PACKAGE_DEFAULT_MAX_RATIO 65536
/* Half the physical memory, at most 32 GiB (see env_memory_cap). */
#define PACKAGE_DEFAULT_MAX_SIZE env_memory_cap()

/* The errors LLVM 22 and 23 report for binaries they reject themselves,
 * word for word (they name no file); every other error here is ours. */
#define PACKAGE_ERR_PARSE "Invalid data was encountered while parsing the file"
#define PACKAGE_ERR_EOF "The end of the file was unexpectedly encountered"
bool package_err_is_llvm(const struct err *e);

bool package_is(const uint8_t *buf, size_t len);	/* starts with the magic */
/* The version field of the binary at buf (0 when buf is shorter than it),
 * for a binary that holds no image to name it by. */
unsigned package_version(const uint8_t *buf, size_t len);
/* How many bytes from buf's start are binaries back to back, by their
 * size fields (each with the magic, at least a header, inside buf; the
 * last one's padding to 8 may be cut), with words of zeros between them
 * (what prune leaves of a dropped one): 0 when there are none.  For
 * sections that hold packages and then other bytes (a MinGW image's
 * .llvm, where lld-link merged .llvm.offloading with its neighbours). */
size_t package_run(const uint8_t *buf, size_t len);
/* Append to out every image of the binaries that fill buf[0, len) back to
 * back, as a section holds them.  Stricter than LLVM 22 (which crashes on
 * or reads past some of these): a size not a multiple of 8, an image, a
 * string record or a string outside its binary, a string without its NUL
 * are errors, and nothing outside buf is ever read.  Where LLVM 22 rejects
 * a version-1 binary, the error is LLVM's (PACKAGE_ERR_*). */
int package_scan(const uint8_t *buf, size_t len,
		 const struct package_limits *lim, struct package_list *out,
		 struct err *e);
/* The value of key in img (the last record wins, as in LLVM), or NULL. */
const char *package_get(const struct package_image *img, const char *key,
			size_t key_len, size_t *value_len);
void package_list_free(struct package_list *l);

#endif
