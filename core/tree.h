/* tree: the regular files under some paths, each file (inode) once, for
 * the applets that work on whole installs (du, prune -r, kpack split).
 * Directories are walked in name order on directory descriptors, one
 * name at a time (openat, O_NOFOLLOW): symbolic links are never
 * followed, but one named as an operand is (as du and cp do), and no
 * path is ever longer than a name, so a tree deeper than PATH_MAX walks
 * as any other, with a few descriptors open whatever its depth.  Each
 * directory walked is a node (its parent, its name, its device and
 * inode), each file and link its directory and name, so that what acts
 * on a file later reaches it through the directories walked and no
 * other (core/tree_open.h).  A file hard-linked more than once in the
 * walk is one entry with all its names.  A mechanism: nothing is
 * printed, what could not be walked is kept as error records. */
#ifndef CORE_TREE_H
#define CORE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

/* The parent of an operand's directory: none. */
#define TREE_ROOT SIZE_MAX

/* A directory walked.  An operand's (parent TREE_ROOT) is opened again
 * by name, the path given (or, for a file named as an operand, the
 * directory it is in); every other one by name in its parent. */
struct tree_dir {
	size_t parent;
	char *name;
	dev_t dev;
	ino_t ino;
	size_t depth;		/* 0 for an operand's */
};

/* A name the walk met: the directory it is in (an index into dir) and
 * its name there, and its whole path, for messages alone. */
struct tree_link {
	char *path;
	size_t dir;
	char *name;
};

struct tree_file {
	char *path;		/* the first name the walk met it by: */
	size_t dir;		/* its directory, */
	char *name;		/* and its name there */
	struct tree_link *links;	/* its other names in the walk */
	size_t nlinks;
	dev_t dev;
	ino_t ino;
	nlink_t nlink;		/* links it has in all (some may be outside) */
	uint64_t size;		/* st_size */
	uint64_t blocks;	/* st_blocks, 512-byte units */
};

struct tree {
	struct tree_file *file;	/* in walk order of their first name */
	size_t n, cap;
	struct tree_dir *dir;	/* each before those in it */
	size_t ndir, capdir;
	uint64_t symlinks;	/* symbolic links met (not followed) */
	/* Set by the caller: those links too, in walk order (kpack split
	 * copies them). */
	bool keep_symlinks;
	struct tree_link *symlink;
	size_t nsymlink, capsymlink;
	uint64_t others;	/* devices, FIFOs, sockets met (left alone) */
	struct err *err;	/* what could not be walked, in walk order */
	size_t nerr;
};

/* Add the files at path: path itself when it is a file, everything under
 * it when it is a directory and recurse is set (a directory without
 * recurse is an error record with errnum EISDIR; a FIFO, device or socket
 * one saying it is not a regular file or directory).  Failures to
 * read a directory or look at a file become records and the walk goes on;
 * -1 only when out of memory. */
int tree_add(struct tree *t, const char *path, bool recurse);
/* Bring each file's hard links together (a file met by several names is
 * one entry; one name met twice, as when a tree is named twice, is one
 * name): once, after the last tree_add.  -1 when out of memory. */
int tree_links(struct tree *t);
void tree_free(struct tree *t);

/* Acting on what was walked: a directory reached again through the
 * directories walked and no other, each step one name opened with
 * O_NOFOLLOW (or "..", up) and checked to be the device and inode the
 * walk saw, an operand's opened by its path and checked the same way.  A
 * cursor keeps the last directory reached, so that the next one is a few
 * steps away (files come in walk order), and holds one descriptor.
 * Zero-initialise with fd = -1 (TREE_CURSOR_INIT); one per thread. */
struct tree_cursor {
	int fd;			/* an O_PATH descriptor, or -1 */
	size_t dir;
};
#define TREE_CURSOR_INIT { .fd = -1 }
void tree_cursor_close(struct tree_cursor *c);
/* Directory dir's descriptor (the cursor's: valid till its next use),
 * or -1 with e naming path (the file acted on): ERR_CHANGED when a
 * directory on the way is not the one walked (another, a symbolic link,
 * no directory), else ERR_SYSTEM. */
int tree_dir_fd(const struct tree *t, struct tree_cursor *c, size_t dir,
		const char *path, struct err *e);
/* The file f opened for reading by its first name (O_NOFOLLOW,
 * O_NONBLOCK: a FIFO put there neither blocks nor is read), the caller's
 * to close, the cursor left at its directory; -1 with e filled as
 * tree_dir_fd fills it, ERR_CHANGED when the name is no longer that
 * regular file (its device and inode). */
int tree_file_open(const struct tree *t, struct tree_cursor *c,
		   const struct tree_file *f, struct err *e);

#endif
