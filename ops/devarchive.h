/* devarchive: heterogeneous device archives, as LLVM 22's bundler reads
 * and writes them: an archive whose members are bundles (object, binary or
 * compressed) is read entry by entry, and the entries for one target are
 * written as a GNU archive with LLVM's member names and symbol table.
 * Archives of objects carrying offload packages (OpenMP, and HIP
 * -fgpu-rdc since LLVM 23) are read image by image as LLVM 23's
 * llvm-offload-binary reads them. */
#ifndef FORMATS_DEVARCHIVE_H
#define FORMATS_DEVARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../formats/ar.h"
#include "../formats/bundle.h"
#include "../formats/ccob.h"
#include "../formats/package.h"
#include "../core/env.h"
#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"

/* One bundle entry of one member. */
struct devarchive_entry {
	const char *file;	/* the member's file name (no directory) */
	size_t file_len;
	const char *id;		/* the entry's bundle ID, as stored */
	size_t id_len;
	const uint8_t *data;	/* its content */
	size_t len;
	/* An object member's host section (one zero byte): the entry stands
	 * for the member without its bundle sections (devarchive_bytes). */
	bool host_object;
	/* An object member's bundle section that runs past the member's
	 * end: listed by its name, an error only when devarchive_bytes
	 * takes it (LLVM reads only the entries it unbundles). */
	bool past_end;
	const uint8_t *member;	/* the (decompressed) member */
	size_t member_len;
};

struct devarchive_reader {
	struct ar_reader ar;
	const struct ccob_limits *limits;
	enum llvm_release llvm;	/* whose words and reading of CCOBs */
	const char *file;
	size_t file_len;
	const uint8_t *member;
	size_t member_len;
	struct bundle_reader bundle;
	bool in_member;
	/* Bytes that must live until devarchive_close: decompressed members,
	 * stripped host objects (scratch files, mapped). */
	uint8_t **heap;
	size_t nheap;
	struct io_out *scratch;
	struct io_in *views;
	size_t nscratch;
	const char *path;	/* the archive's, for thin members */
	struct io_in *thin;
	size_t nthin;
};

/* Open an archive (LLVM's messages for what is not one). */
int devarchive_open(struct devarchive_reader *r, const uint8_t *buf,
		    size_t len, const struct ccob_limits *limits,
		    enum llvm_release llvm, struct err *e);
/* A thin archive's members are files named relative to the archive's
 * directory: set it (the archive's path as given) to read them. */
void devarchive_set_path(struct devarchive_reader *r, const char *path);
/* The next entry, members in archive order, entries in each member's
 * order (object: section order; binary: LLVM's hash order); members that
 * hold no bundle are skipped.  1, 0 at the end, -1 on a damaged archive or
 * member ("Failed to decompress code object: ..." for a bad CCOB, whose
 * hash is checked), or a thin member that cannot be read. */
int devarchive_next(struct devarchive_reader *r, struct devarchive_entry *ent,
		    struct err *e);
/* The bytes an entry stands for: its content, or for a host_object entry
 * the member stripped of its bundle sections (made once per entry; valid
 * until devarchive_close). */
int devarchive_bytes(struct devarchive_reader *r, struct devarchive_entry *ent,
		     const uint8_t **data, size_t *len, struct err *e);
void devarchive_close(struct devarchive_reader *r);

/* LLVM's name for an entry in a device archive: "<stem>-<id><stem><ext>",
 * ext .bc when the entry's target ID (tid) names an AMD GPU, .cubin an
 * NVIDIA one, else the member's extension; every ':' made '_'.  malloc'd,
 * NULL when out of memory. */
char *devarchive_member_name(const char *file, size_t file_len, const char *id,
			     size_t id_len, const char *tid);

/* Each member's bundle IDs as stored, without decompressing CCOB members
 * (which are never checked): each(ctx, file, file_len, ids, n) is called
 * per member that holds bundles; it returns 0 to go on.  llvm: the
 * release whose words a damaged archive is reported in. */
int devarchive_member_ids(const uint8_t *buf, size_t len,
			  int (*each)(void *ctx, const char *file,
				      size_t file_len, char **ids, size_t n),
			  void *ctx, enum llvm_release llvm, struct err *e);

/* One image of an offload package in a member, as LLVM 23's
 * llvm-offload-binary reads an archive's: the packages of an ELF member's
 * SHT_LLVM_OFFLOADING sections, or of a member that is packages. */
struct devarchive_image {
	const char *file;	/* the member's file name (no directory) */
	size_t file_len;
	const struct package_image *img;	/* its metadata */
	const uint8_t *data;	/* its bytes, inflated: valid until */
	size_t len;		/* devarchive_close */
};

/* Each image of the packages of the archive r was opened on (a reader of
 * its own: not one devarchive_next reads), members in order, images in
 * package order; each returns 0 to go on, or -1 (its error in e).  A
 * member whose packages are damaged is an error naming it. */
int devarchive_images(struct devarchive_reader *r,
		      int (*each)(void *ctx, const struct devarchive_image *im,
				  struct err *e),
		      void *ctx, struct err *e);

/* A member of a device archive to write. */
struct devarchive_member {
	char *name;
	const uint8_t *data;
	size_t len;
};

/* The archive LLVM's bundler writes: GNU, deterministic, with a "/"
 * symbol table of the ELF and bitcode members' global symbols; no members:
 * just "!<arch>\n".  Written to o, which the caller commits. */
int devarchive_write(struct io_out *o, const struct devarchive_member *m,
		     size_t n, struct err *e);

#endif
