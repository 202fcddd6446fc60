/* kpack_split_out: where kpack split's outputs go, per target or
 * installed (a database file by the rows of kpack_databases.c), each
 * path claimed once; the archives, opened as their first code object
 * comes and moved under their prefix at the end; the manifests
 * (kpack_split_out.c, a part of kpack_split.c). */
#ifndef OPS_KPACK_SPLIT_OUT_H
#define OPS_KPACK_SPLIT_OUT_H

#include "kpack_split_impl.h"
#include "../core/io_in.h"

/* e, when it names no file yet, made to name path; -1. */
int kpack_split_fail(struct err *e, const char *path);
/* a/b, malloc'd. */
char *kpack_split_join(const char *a, const char *b);
/* The archives' writer: n bytes at p to the io_out ctx. */
int kpack_split_sink(void *ctx, const void *p, size_t n, struct err *e);
/* rel (taken over), a path in OUT, claimed for from: an error if another
 * took it (arch: the archive of arch). */
int kpack_split_claim(struct split *sp, char *rel, const char *from,
		      const char *arch);
/* The archive of arch (len bytes), made and begun when its first code
 * object comes, which the current source has: *ix its index. */
int kpack_split_archive_for(struct split *sp, const char *arch, size_t len,
			    size_t *ix);
/* Where a file of the current source at rel goes (db_arch: a database
 * file of that GPU, per target), malloc'd. */
char *kpack_split_file_out(const struct split *sp, const char *rel,
			   const char *db_arch);
/* The same for a file that is not a fat binary: a database file is
 * noted as its GPU's. */
char *kpack_split_plain_out(struct split *sp, const char *rel);
/* The output at orel (taken over) for the file path, claimed and opened,
 * in's mode kept. */
int kpack_split_open_output(struct split *sp, char *orel, const char *path,
			    const struct io_in *in, struct io_out *out);
/* Each archive ended and moved to its place, the manifests written. */
int kpack_split_finish(struct split *sp);
void kpack_split_free_archives(struct split *sp);

#endif
