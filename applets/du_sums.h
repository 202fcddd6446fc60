/* du_sums: what du counts and prints, shared by du.c (trees of files) and
 * du_layers.c (the files of container images and packages): the sums,
 * the options, one file's scan and walk, the table and the JSON. */
#ifndef APPLETS_DU_SUMS_H
#define APPLETS_DU_SUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "selection.h"
#include "../core/io_in.h"
#include "../core/tree.h"
#include "../ops/inspect.h"

enum { EM_AMDGPU_ = 224, EM_CUDA_ = 190 };

struct sum {
	uint64_t bytes, stored, entries, files;
};

struct target {
	char *name;
	struct sum s;
	size_t last_file;	/* the file last counted in s.files, + 1 */
};

struct options {
	struct select targets, keep, drop;
	bool json, quiet;
	struct inspect_opts walk;
	/* What was found. */
	struct target *t;
	size_t n, cap;
	struct sum host, drop_sum;
	size_t host_last;
	uint64_t total, files, other_files, errors;
	uint64_t device_stored;	/* of every device entry */
	/* Numbers given to the files of packages found in a tree, past
	 * the tree's own (a file's number tells it from the last one). */
	uint64_t package_numbers;
	/* The files walked (sorted by dev, ino), and the kpack archives
	 * found through split binaries outside them, counted after them. */
	struct tree_file *seen;
	size_t nseen;
	struct tree_file *extra;
	size_t nextra;
	/* The tree walked, and the way back to its directories. */
	const struct tree *tree;
	struct tree_cursor cur;
};

/* One file's walk. */
struct scan {
	struct options *o;
	size_t file;		/* its number, from 1 */
	enum inspect_format format;
	uint16_t machine;
	bool children;		/* anything found under the file */
	/* The container whose entries come now, if it compresses them
	 * together (a CCOB; its row's packed): their stored bytes are its,
	 * shared in proportion to their sizes. */
	unsigned packed_depth;	/* 0: none */
	uint64_t packed_stored, packed_raw;
	/* For --keep/--drop: device entries seen and kept, host bytes. */
	uint64_t device, kept, host_bytes;
	struct sum dropped;
	int oom;
};

/* The index of target NAME (len bytes) in o->t, added if new; -1: out of
 * memory. */
int du_find_target(struct options *o, const char *name, size_t len);
/* Walk the file path whose bytes in holds into sc; 0, or 1 said. */
int du_walk(struct options *o, struct scan *sc, const char *path,
	    const struct io_in *in);
/* qsort's order of o->t: the most stored first. */
int du_by_stored(const void *pa, const void *pb);
/* The sums of o as one JSON object ended by end, or as the table. */
void du_print_json(const struct options *o, const char *end);
void du_print_text(const struct options *o);

#endif
