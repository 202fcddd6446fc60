/* extract_impl: what extract.c shares with its part extract_kpack.c
 * (kpack-split binaries): the options, one input's job, and the helpers
 * both write entries with. */
#ifndef APPLETS_EXTRACT_IMPL_H
#define APPLETS_EXTRACT_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../core/err.h"
#include "../core/io_out.h"
#include "../core/select.h"
#include "../include/offcode.h"

/* A kpack archive's entry that a split binary named in the same command
 * resolves to: written under the binary's name, not again as the
 * archive's. */
struct claim {
	dev_t dev;
	ino_t ino;
	size_t entry;
};

struct options {
	const char *dir;		/* NULL: standard output */
	int dirfd;			/* dir, opened once */
	struct select targets;	/* -t */
	bool all, verbose, quiet;
	/* OFFLOAD_CCOB_MAX_* (opts.h's ccob_offcode): the limits of each
	 * walk and of each CCOB inflated again (0: the library's). */
	struct offcode_open_options open;
	offcode_names *names;	/* written in this run */
	struct claim *claims;	/* sorted */
	size_t nclaims;
};

struct pending;

enum { MAX_DEPTH = 16 };

/* The bytes one walk reads (offcode_source_bytes, or a layer file's):
 * fd is the descriptor of the file they are mapped from (its ID, and
 * outputs copied from it in the kernel), -1 for bytes in memory; path
 * names them in messages. */
struct extract_input {
	const uint8_t *data;
	size_t len;
	int fd;
	const char *path;
};

struct job {
	struct options *o;
	const struct extract_input *in;
	const char *path;
	/* path is a name from inside a package or an image: its file name
	 * is made safe too, not kept as the user typed it. */
	bool inner;
	bool in_ccob;			/* the container walked is a CCOB: */
	uint64_t ccob_offset;		/* where in its member or file, */
	bool ccob_bad;			/* whether its hash failed, */
	bool ccob_reported;		/* and whether that was said */
	/* Whether the first walk met anything below the file itself (an
	 * archive member, a section, a container): a file from inside a
	 * package or an image that has none is passed over in silence. */
	bool below;
	char section[64];		/* the section the walk is in, or "" */
	/* NVIDIA entries that cannot be decoded, said once per container
	 * (a library has thousands): which container, how many entries it
	 * has, which of them failed, and why the first did. */
	unsigned nv_number;
	size_t nv_entries, nv_failed;
	char nv_list[64];
	char *nv_first;			/* (malloc'd) */
	char nv_first_what[48];
	size_t count;			/* entries selected */
	size_t total;			/* of them, in this file */
	bool counting;			/* only count them */
	int rc;
	/* The archive members the walk is in: member[1..depth], the
	 * member of an archive inside an archive after its archive's. */
	char *member[MAX_DEPTH];
	uint64_t member_offset[MAX_DEPTH];	/* each one's in the file */
	unsigned depth;
	struct pending *pend;	/* the CCOB being streamed, if any */
	/* The file (a kpack archive's entries may be claimed), and how
	 * many of its entries were. */
	size_t claimed;
	bool has_id;
	dev_t dev;
	ino_t ino;
};

/* A selected entry of the CCOB being walked, its output open. */
struct route {
	struct io_out out;
	char *path;
	uint64_t off, size;
	struct err err;
	bool failed;
};

/* The CCOB whose entries are being walked (OFFCODE_WALK_CCOB_LATER): its
 * selected entries' outputs are opened as they come, and written by one
 * more pass over the CCOB when the walk leaves it. */
struct pending {
	const uint8_t *p;
	uint64_t size, pos;
	struct route *v;
	size_t n, cap;
	bool on;
};

#define fail(what, file, ...) applet_fail("extract", what, file, __VA_ARGS__)

#endif
