/* prune: what the prune applet's command (prune.c) and its walk over
 * trees (prune_tree.c, -r) share. */
#ifndef APPLETS_PRUNE_H
#define APPLETS_PRUNE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/io.h"
#include "../core/select.h"
#include "../formats/prune.h"

struct options {
	struct select keep, drop;
	const char *output;
	bool in_place, dry_run, allow_empty, keep_layout;
	enum prune_shrink shrink;
	bool verbose, quiet;
	int level;
	const char *file;	/* the one being pruned, for -v */
	FILE *report;		/* stdout, or stderr when the output is */
	uint64_t host_bytes;	/* of the host entries of the file */
	/* -r: directories walked, files that hold only dropped code
	 * removed, workers; the other paths of the file being pruned (its
	 * hard links in the tree). */
	bool recurse, remove_files;
	unsigned jobs;
	char **links;
	size_t nlinks;
};

/* What became of one file of a tree. */
enum prune_action {
	PRUNE_FAILED,
	PRUNE_PRUNED,
	PRUNE_REMOVED,		/* only code of dropped GPUs: gone */
	PRUNE_LEFT,		/* the same, left (no --remove-files) */
	PRUNE_SKIPPED,		/* nothing to drop, or no offload code */
};

struct prune_result {
	enum prune_action action;
	uint64_t before, after;	/* bytes of the file */
};

/* prune.c: prune path (in place, or as o says); with res (in a tree) a
 * file with no offload code or nothing to drop is skipped, and one of
 * dropped code alone goes to prune_remove.  0, or 1 after saying what
 * failed. */
int prune_one(struct options *o, const char *path, struct prune_result *res);

/* prune_tree.c: a file that prune_plan found no offload code in, which
 * may be a code object itself; a file that holds only dropped code (one
 * line said with the bytes); the other links of a file replaced, made
 * links of the new one again; every file under the operands, in
 * parallel, with one summary line. */
int prune_lone(struct options *o, const char *path, const struct io_in *in,
	       struct prune_result *res);
int prune_remove(struct options *o, const char *path, const struct io_in *in,
		 struct prune_result *res);
int prune_relink(struct options *o, const char *path);
int prune_tree(struct options *o, char **paths, int n);

#endif
