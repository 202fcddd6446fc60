/* io_types: struct io_out, an output, which io_out.c opens and commits,
 * io_write.c writes to and io_scratch.c makes as a scratch file. */
#ifndef CORE_IO_TYPES_H
#define CORE_IO_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An output written to a temporary file beside its destination and renamed
 * over it by io_out_commit, so a failed command leaves nothing half-written.
 * "-" is stdout, and an existing non-regular file (a device, a FIFO) is
 * written in place: neither can be replaced by rename.  An existing file we
 * may write in a directory we may not (where LLVM writes in place) is
 * staged in a scratch file and copied over the file at commit: a failure
 * before then leaves it as it was, and the copy is the only window (never
 * for an output opened by io_out_open_replace, refused there instead).  A
 * symbolic link is followed, also to a file that does not exist yet. */
struct io_out {
	char *path;		/* as the user named it, for messages */
	char *dest;		/* where the rename goes: path, symlinks resolved */
	char *tmp;		/* the temporary, NULL when written in place */
	int fd;
	mode_t mode;
	bool scratch;		/* an unlinked scratch file (io_scratch_open) */
	/* An existing file in a directory we cannot write: staged in an
	 * unlinked scratch file, then copied over dest at commit. */
	bool copy_back;
	/* Made in a directory descriptor (io_out_open_at): tmp and dest
	 * are names in dirfd (the caller's, open till the end); with
	 * expect, dest is replaced only while it is still the file of
	 * device exp_dev and inode exp_ino (core/io_at.h). */
	bool at, expect;
	int dirfd;
	dev_t exp_dev;
	ino_t exp_ino;
	/* Made under dirfd (io_out_open_under): tmp is a name in dirfd
	 * still, dest a name in destdir, a path of names under dirfd
	 * reached again one at a time, the directory of device dir_dev and
	 * inode dir_ino. */
	char *destdir;
	dev_t dir_dev;
	ino_t dir_ino;
	void *map;
	size_t map_len;
	uint64_t pos;		/* file offset of what goes out next */
	uint8_t *stage;		/* bytes short of a boundary (io_write.c) */
	bool holes;		/* io_out_hole skipped bytes */
	size_t staged;
};

#endif
