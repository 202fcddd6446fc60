/* members: packages and images for liboffcode (members.c), as the
 * artefact's open (artifact.c) and its code (code.c) reach them. */
#ifndef LIB_MEMBERS_H
#define LIB_MEMBERS_H

#include <stddef.h>

#include "../include/offcode.h"

/* A file of a package opened as an artefact: offcode_open_memory's
 * arguments (the opener's hook, so that the files are opened as any
 * artefact is). */
typedef int members_open_fn(const void *buf, size_t len, const char *name,
			    const struct offcode_open_options *options,
			    offcode_artifact **out, offcode_error **err);

/* Open a as a package by its bytes, or as the image spec names (spec not
 * NULL), each of its files opened by open_file: 0 when it is one (its
 * files walked and kept unless OFFCODE_OPEN_STREAM; a's hooks
 * free_members and members_code set), -1 when it is neither (a to be
 * walked as a file), or a failure's code with a's last error set. */
int members_open(offcode_artifact *a, const char *spec,
		 members_open_fn *open_file);

/* Each file of a layer worth reading handed over unopened: its bytes
 * (valid during the call) and a descriptor of a file that holds them from
 * its start (a scratch file the walk spilled them to), or -1; nonzero
 * stops the walk. */
typedef int members_bytes_fn(void *ctx, const struct offcode_member *m,
			     const void *bytes, size_t len, int fd);
/* offcode_layer_walk, handing each file to fn opened or, when bytes is
 * not NULL, to bytes as it is. */
int members_layer_walk(offcode_artifact *a, size_t i, unsigned flags,
		       offcode_member_fn fn, members_bytes_fn *bytes,
		       void *ctx, struct offcode_layer_stats *stats);

#endif
