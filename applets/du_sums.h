/* du_sums: what du counts and prints, shared by du.c (trees of files) and
 * du_layers.c (the files of container images and packages): the sums,
 * the options, one file's scan and walk, the table and the JSON. */
#ifndef APPLETS_DU_SUMS_H
#define APPLETS_DU_SUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "selection.h"
#include "../core/tree.h"
#include "../include/offcode.h"

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
	/* How files are opened (the CCOB limits of OFFLOAD_CCOB_MAX_*): a
	 * package or image streamed, a damaged file's entries before the
	 * damage counted. */
	struct offcode_open_options open;
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

/* One file's count. */
struct scan {
	struct options *o;
	size_t file;		/* its number, from 1 */
	bool children;		/* anything found under the file */
	/* For --keep/--drop: device entries seen and kept, host bytes. */
	uint64_t device, kept, host_bytes;
	struct sum dropped;
	int oom;
};

/* The index of target NAME (len bytes) in o->t, added if new; -1: out of
 * memory. */
int du_find_target(struct options *o, const char *name, size_t len);
/* Count the file path, opened as a (NULL when it could not be), its
 * walk's failure err (or NULL), into sc; 0, or 1 said. */
int du_walk(struct options *o, struct scan *sc, const char *path,
	    offcode_artifact *a, const offcode_error *err);
/* The one line of a failure to open or read what a names (a NULL: it
 * could not be opened): "offload du: error: WHAT 'FILE': WHY"; 1. */
int du_fail(const char *what, const char *path, const offcode_artifact *a,
	    const offcode_error *err);
/* qsort's order of o->t: the most stored first. */
int du_by_stored(const void *pa, const void *pb);
/* The sums of o as one JSON object ended by end, or as the table. */
void du_print_json(const struct options *o, const char *end);
void du_print_text(const struct options *o);

#endif
