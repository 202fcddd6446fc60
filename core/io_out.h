/* io_out: atomic outputs opened and committed (io_out.c), and the
 * directories made for them. */
#ifndef CORE_IO_OUT_H
#define CORE_IO_OUT_H

#include <stdbool.h>

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
 * someone else may have put things: path's last part is never followed.
 * A symbolic link or anything but a regular file there is refused; a
 * regular file is replaced by the rename (never written through, a hard
 * link included), and its permissions are not taken over. */
int io_out_open_in_dir(struct io_out *o, const char *path, struct err *e);
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
