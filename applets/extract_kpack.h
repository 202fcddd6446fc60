/* extract_kpack: extract's kpack-split binaries (extract_kpack.c). */
#ifndef APPLETS_EXTRACT_KPACK_H
#define APPLETS_EXTRACT_KPACK_H

#include "extract_impl.h"

/* A kpack-split binary (its len bytes at data, at j->path): each
 * wrapper's code object in each archive its search paths find, counted
 * or written. */
int extract_split_file(struct job *j, const void *data, size_t len);
int extract_claim_splits(struct options *o, char **args, int n);

#endif
