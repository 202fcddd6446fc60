/* io_commit: the outputs of one command renamed into place all or none
 * (io_commit.c), for io_out_together_end. */
#ifndef CORE_IO_COMMIT_H
#define CORE_IO_COMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* An output whose temporary is written and closed, to be put in place;
 * or (tmp NULL) a file to remove, kept under a name of ours till every
 * other is in place, put back when one fails. */
struct io_commit {
	int dirfd;		/* tmp is a name in it; AT_FDCWD: tmp and dest
				 * are paths */
	const char *tmp, *dest, *path;	/* path: the user's name, for messages */
	/* Set where the outputs are too many to hold a descriptor each (a
	 * tree's files): tmp and dest are names in directory dir, reached
	 * again at each step by reach_dir (dirfd unused): a descriptor that
	 * stays the caller's, valid till its next call, or -1 with errno
	 * (ESTALE: not the directory the output was made in). */
	int (*reach_dir)(void *ctx, size_t dir);
	void *ctx;
	size_t dir;
	/* dest is a name in destdir, a path of names under dirfd reached
	 * one at a time, only while it is the directory of dir_dev and
	 * dir_ino (NULL: dest is in dirfd itself) */
	const char *destdir;
	dev_t dir_dev;
	ino_t dir_ino;
	/* dest replaced only while it is the file of dev and ino */
	bool expect;
	dev_t dev;
	ino_t ino;
	/* The commit's own, set by io_commit_all. */
	int to;			/* dest's directory */
	const char *name;	/* dest's name in it */
	enum { COMMIT_WAITING, COMMIT_NEW, COMMIT_EXCHANGED, COMMIT_BACKED,
	       COMMIT_UNSAVED, COMMIT_SAME, COMMIT_REMOVED } how;
	bool old;		/* a file was at dest */
	dev_t our_dev;
	ino_t our_ino;
	/* With reach_dir: the directory's descriptor held open by the
	 * caller since the output was made, or -1; what put does is undone
	 * through it (even if the directory was moved away meanwhile), else
	 * through one kept since the put (IO_COMMIT_HELD directories at
	 * most), else through reach_dir. */
	int held;
	char backup[300];	/* the old file's other name (COMMIT_BACKED,
				 * COMMIT_REMOVED) */
};

/* Put each of the n temporaries in place, all or none: every destination
 * is looked at first (a directory in the way, a directory changed, a
 * file not the one read: nothing renamed); then each old file is kept
 * under a name of ours in its directory (exchanged with the temporary,
 * or linked where the file system cannot exchange) while the renames go
 * on, and when one fails, those done are undone (the old files back,
 * the new ones gone) and the rest of the temporaries removed.  The
 * caller holds signals off.  0, or -1 with e naming the output that
 * failed; either way no temporary is left. */
enum { IO_COMMIT_HELD = 64 };
int io_commit_all(struct io_commit *c, size_t n, struct err *e);

#endif
