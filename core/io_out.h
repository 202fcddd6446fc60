/* io_out: atomic outputs opened and committed (io_out.c), and the
 * directories made for them. */
#ifndef CORE_IO_OUT_H
#define CORE_IO_OUT_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "io_in.h"
#include "io_types.h"

int io_out_open(struct io_out *o, const char *path, struct err *e);
/* The same for an output that must replace an existing file whole or not
 * at all (prune --in-place, and every applet whose page promises that a
 * failure or a signal leaves the old file): such a file is only replaced
 * by the rename, never staged and copied over at commit.  Where no file
 * can be made beside it (a directory that cannot be written), the open
 * fails naming that directory, and the file is left as it is. */
int io_out_open_replace(struct io_out *o, const char *path, struct err *e);
/* The same for a file a command names inside an output directory, where
 * someone else may have put things, opened once as dirfd: the output is
 * name in dirfd (no '/' in it), path its name in messages; dirfd stays
 * the caller's, open till the output is committed or discarded (with
 * io_out_together, till io_out_together_end).  The temporary is made
 * there (".name.XXXXXX") and renamed over name there, a signal removes
 * it by its name there: no path that could lead elsewhere since is ever
 * followed.  A symbolic link or anything but a regular file at name is
 * refused; a regular file is replaced by the rename (never written
 * through, a hard link included), and its permissions are not taken
 * over.  A directory we cannot write into is an error naming it (never a
 * copy over the file). */
int io_out_open_at(struct io_out *o, int dirfd, const char *name,
		   const char *path, struct err *e);
/* The same under the directory dirfd: the output is rel there, a path of
 * names (none "." or ".."), path its name in messages.  rel's directories
 * are made where missing (each noted as io_mkdirs notes them) and
 * reached one name at a time, never through a symbolic link (a link
 * where a directory goes is an error); the temporary is made in dirfd
 * itself, and the rename reaches rel's directory again the same way,
 * only while it is still the directory the output was made for (else
 * ERR_CHANGED, nothing written): what others may do meanwhile in a
 * directory they may write, under dirfd, sends nothing elsewhere.
 * dirfd stays the caller's, open till the output is committed or
 * discarded (with io_out_together, till io_out_together_end). */
int io_out_open_under(struct io_out *o, int dirfd, const char *rel,
		      const char *path, struct err *e);
/* An output of io_out_open_under sent elsewhere under the same dirfd
 * before it is committed: rel (its directories made) and path, as if
 * opened there; its temporary stays where it is.  -1 with e filled, o
 * as it was. */
int io_out_move_under(struct io_out *o, const char *rel, const char *path,
		      struct err *e);
/* A symbolic link to target made at rel under dirfd as an output is:
 * under a temporary name in dirfd, renamed in as io_out_open_under's
 * output is committed (at io_out_together_end, with io_out_together). */
int io_out_symlink_under(int dirfd, const char *rel, const char *target,
			 const char *path, struct err *e);
/* The file the output replaces: its device and inode, those of the file
 * read.  io_out_commit then replaces name only while it is still that
 * file (core/io_at.h), else fails (ERR_CHANGED) with the file left as it
 * is.  For an output of io_out_open_at. */
void io_out_expect(struct io_out *o, dev_t dev, ino_t ino);
/* mkdir -p: path and its missing parents, 0777 less the umask. */
int io_mkdirs(const char *path, struct err *e);
/* Give the output the permissions of the file in (what llvm-objcopy does
 * to what it writes): its mode less the umask and the set-ID bits, and,
 * run as root, its owner.  Nothing for stdout or a file written in place,
 * or when in cannot be looked at. */
void io_out_mode_from(struct io_out *o, const struct io_in *in);
/* Give the output the input's exact mode and, where allowed, its owner
 * and group: for a file replaced by its rewritten self (--in-place). */
void io_out_keep_mode(struct io_out *o, const struct io_in *in);
/* Close and rename into place.  Does nothing more if o was never opened. */
int io_out_commit(struct io_out *o, struct err *e);
/* Close an output of io_out_open_at and leave its temporary for the
 * caller to put in place or remove (core/io_commit.h): its name in the
 * directory, in tmp of size n.  A signal no longer removes it: the
 * caller holds signals off from before this call till it has noted the
 * name where its own cleanup finds it.  0, or -1 with e filled (the
 * temporary removed). */
int io_out_close_kept(struct io_out *o, char *tmp, size_t n, struct err *e);
/* Close and remove the temporary; the destination keeps its old content. */
void io_out_discard(struct io_out *o);
/* Outputs of one command that commit together, all or none (extract,
 * unpack-archive: the files written into an output directory).  After
 * io_out_together, io_out_commit does all but the rename (the temporary
 * stays, closed, till the end; a signal still removes it), and io_mkdirs
 * notes each directory it makes.  io_out_together_end then renames every
 * one into place when ok (0; -1 with e set when a rename fails, and the
 * outputs not yet renamed are removed), or, when not ok, removes every
 * temporary and, deepest first, each directory made that is left empty.
 * Standard output and files written in place are written at once, as
 * ever. */
void io_out_together(void);
int io_out_together_end(bool ok, struct err *e);

#endif
