/* tree: the regular files under some paths, each file (inode) once, for
 * the applets that work on whole installs (du, prune -r).  Directories are
 * walked in name order; symbolic links are never followed, but one named
 * as an operand is (as du and cp do); a file hard-linked more than once in
 * the walk is one entry with all its paths.  A mechanism: nothing is
 * printed, what could not be walked is kept as error records. */
#ifndef CORE_TREE_H
#define CORE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

struct tree_file {
	char *path;		/* the first path the walk met it by */
	char **links;		/* its other paths in the walk, in walk order */
	size_t nlinks;
	dev_t dev;
	ino_t ino;
	nlink_t nlink;		/* links it has in all (some may be outside) */
	uint64_t size;		/* st_size */
	uint64_t blocks;	/* st_blocks, 512-byte units */
};

struct tree {
	struct tree_file *file;	/* in walk order of their first path */
	size_t n, cap;
	uint64_t symlinks;	/* symbolic links met (not followed) */
	/* Set by the caller: the paths of those links too, in walk order
	 * (kpack split copies them). */
	bool keep_symlinks;
	char **symlink;
	size_t nsymlink;
	uint64_t others;	/* devices, FIFOs, sockets met (left alone) */
	struct err *err;	/* what could not be walked, in walk order */
	size_t nerr;
};

/* Add the files at path: path itself when it is a file, everything under
 * it when it is a directory and recurse is set (a directory without
 * recurse is an error record with errnum EISDIR).  Failures to
 * read a directory or look at a file become records and the walk goes on;
 * -1 only when out of memory. */
int tree_add(struct tree *t, const char *path, bool recurse);
/* Bring each file's hard links together (a file met by several paths is
 * one entry): once, after the last tree_add.  -1 when out of memory. */
int tree_links(struct tree *t);
void tree_free(struct tree *t);

#endif
