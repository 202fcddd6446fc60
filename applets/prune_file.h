/* prune_file: one file pruned, for the prune applet's command (prune.c)
 * and its walk over trees (prune_tree.c, -r): the options they share. */
#ifndef APPLETS_PRUNE_FILE_H
#define APPLETS_PRUNE_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/select.h"
#include "../core/tree.h"
#include "../core/io_in.h"
#include "../core/io_types.h"
#include "../ops/prune.h"

struct options {
	struct select keep, drop;
	const char *output;
	/* An image's layers written again: compressed with this (gzip,
	 * zstd, none), or NULL: as each was. */
	const char *layer_compression;
	bool in_place, dry_run, allow_empty, keep_layout, compress;
	unsigned compress_method, ccob_version;
	enum prune_shrink shrink;
	bool verbose, quiet;
	int level, package_level;	/* package_level: 0 unless given */
	const char *file;	/* the one being pruned, for -v */
	FILE *report;		/* stdout, or stderr when the output is */
	uint64_t host_bytes;	/* of the host entries of the file */
	/* -r: directories walked, files that hold only dropped code
	 * removed, workers. */
	bool recurse, remove_files;
	/* -i and -r: a file with hard links not rewritten (-i: any other;
	 * -r: any outside the tree) replaced all the same, those names left
	 * with the old bytes; else refused. */
	bool break_links;
	unsigned jobs;
	/* --compress: bundles of a file compressed at once (-j; with -r,
	 * what the workers leave of it). */
	unsigned threads;
	/* -r: the tree walked, the file of it being pruned (its names, its
	 * hard links in the tree among them), and the worker's way back to
	 * its directories (core/tree.h): the file is read, replaced,
	 * relinked and removed through them alone. */
	const struct tree *tree;
	const struct tree_file *walked;
	struct tree_cursor *cursor;
	/* -r: a package in the tree (a .deb, a wheel, a conda package),
	 * known and pruned by prune_package.c's prune_package_probe and
	 * prune_package_to, set by prune.c (prune_package.c uses these
	 * options, so this file cannot call it). */
	bool (*package_probe)(const char *name, const uint8_t *buf,
			      size_t len);
	int (*package_to)(struct options *o, const char *path,
			  struct io_in *in, struct io_out *out,
			  const char *shown, uint64_t *files,
			  uint64_t *after, struct err *e);
};

/* What became of one file of a tree. */
enum prune_action {
	PRUNE_FAILED,
	PRUNE_PRUNED,
	PRUNE_REMOVED,		/* only code of dropped GPUs: gone */
	PRUNE_LEFT,		/* the same, left (no --remove-files) */
	PRUNE_SKIPPED,		/* nothing to drop, or no offload code */
};

/* In a tree nothing is put in place by prune_one: the pruned file's
 * temporary is kept, named here, and the files to remove are only said,
 * for the commit of the whole tree (prune_tree.c), all or none. */
struct prune_result {
	enum prune_action action;
	uint64_t before, after;	/* bytes of the file */
	char tmp[300];		/* PRUNE_PRUNED: the new file, a name in the
				 * file's directory ("": none, a dry run) */
	dev_t tmp_dev;
	ino_t tmp_ino;
	/* The output could not be written (a full disk, a directory we may
	 * not write, a rename refused): nothing of the tree is replaced. */
	bool write_failed;
};

/* Prune path (in place, or as o says) and say so; with res (in a tree,
 * o->walked the file at path)
 * a file with no offload code or nothing to drop is skipped, a code object
 * of a dropped GPU, or a bundle, CCOB or fatbin file keeping no device
 * code, is to be removed (--remove-files) or left, and a pruned file's
 * temporary is kept in res, signals held off (the caller lets them in
 * once it has noted the name).  0, or 1 after saying what
 * failed, or PRUNE_UNMATCHED (without res) when a --drop pattern took
 * nothing and so nothing was written (main says so, once for all). */
enum { PRUNE_UNMATCHED = 2 };
int prune_one(struct options *o, const char *path, struct prune_result *res);
/* What the file holds, shown to the selection and nothing else (errors
 * are said when it is pruned); whether a rule of s took nothing. */
void prune_look(struct options *o, const char *path);
bool prune_unmatched(const struct select *s);

#endif
