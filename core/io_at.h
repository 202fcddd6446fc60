/* io_at: a name in a directory descriptor replaced or removed only while
 * it is still the file expected (its device and inode), for what acts on
 * the files of a tree walked before (core/tree.h): a file put in the
 * place of the one walked, a symbolic link too, is never replaced nor
 * removed (io_at.c).  Signals are held off for the few calls each takes,
 * so that none leaves a name half moved. */
#ifndef CORE_IO_AT_H
#define CORE_IO_AT_H

#include <sys/types.h>

/* Put tmp (a name in dirfd, of a file of ours) in name's place, only
 * while name is still the file of device dev and inode ino, or tmp's own
 * file already (the same file met twice): tmp is gone then.  Where the
 * file system can, atomically: the two exchanged (RENAME_EXCHANGE), what
 * came out at tmp checked, and exchanged back when it is not that file;
 * else checked, then renamed.  0, or -1 with errno, ESTALE when name is
 * another file now (nothing changed, tmp left). */
int io_at_replace(int dirfd, const char *tmp, const char *name, dev_t dev,
		  ino_t ino);
/* Remove name, only while it is still the file of device dev and inode
 * ino: moved aside under a name of our own first, checked there, then
 * removed, or put back when it is another.  0, or -1 with errno (ESTALE:
 * another file, left where it was). */
int io_at_remove(int dirfd, const char *name, dev_t dev, ino_t ino);
/* A name of ours beside name, in buf of size n: ".<name>.<what><pid>-<k>",
 * k counting; name cut to fit a file name.  Returns buf. */
char *io_at_temp_name(char *buf, size_t n, const char *name,
		      const char *what);
/* The directory rel[0..len) under dirfd (names parted by '/', none "."
 * or ".."), reached one name at a time, never through a symbolic link
 * (O_NOFOLLOW): an O_PATH descriptor, dirfd itself when len is 0 (not to
 * be closed then), or -1 with errno (ENOTDIR: a name on the way is no
 * directory now, or a link).  Only calls safe in a signal handler, no
 * allocation: the handler reaches the directories made for outputs so. */
int io_at_walk(int dirfd, const char *rel, size_t len);
/* rmdir of rel under dirfd, reached as io_at_walk reaches it. */
int io_at_rmdir(int dirfd, const char *rel);

#endif
