/* kpack_find: the archives a kpack-split host binary's search paths find,
 * as offload ls lists them and kpack join reads them (one resolution). */
#ifndef OPS_KPACK_FIND_H
#define OPS_KPACK_FIND_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "../core/io_in.h"

struct kpack_found {
	char *path;	/* as the binary's path leads there: "bin/../.kpack/x" */
	char *target;	/* the target its name gives; "?" for a path with no
			 * "@GFXARCH@" (one archive, of whatever target) */
};

struct kpack_finds {
	char *full;		/* the search path, the binary's dir prefixed */
	char *dir;		/* its directory */
	bool no_dir;		/* the directory is not there */
	struct kpack_found *v;	/* by name */
	size_t n;
};

/* The archives search path pattern of the binary host_path finds: the
 * pattern is relative to the binary's directory (an absolute one as it
 * is); with no "@GFXARCH@" in its last part it is one archive (listed
 * whether or not it exists); else every file of its directory whose name
 * is the pattern with a target ID in place (rocm-kpack's runtime puts
 * the device's target ID there, then less specific forms of it: offline,
 * every one present is an archive of the install).  A directory that
 * cannot be opened sets no_dir and finds none.  -1 (out of memory) with e
 * filled. */
int kpack_find(const char *host_path, const char *pattern,
	       struct kpack_finds *f, struct err *e);
void kpack_finds_free(struct kpack_finds *f);
/* Open an archive a search path found (io_in_open): its name came from
 * inside a binary, so one that is not a regular file (a FIFO no one
 * writes, a device) is refused, not waited on or read. */
int kpack_archive_open(struct io_in *in, const char *path, struct err *e);

#endif
