/* kpack_artifact: the artifact directories of ROCm's build (TheRock) as
 * rocm-kpack's split_artifacts reads them (python/rocm_kpack/
 * artifact_utils.py and tools/split_artifacts.py, read, never copied):
 *
 *   DIR/artifact_manifest.txt   one prefix a line, each a directory under
 *                               DIR (stage, math-libs/BLAS/rocBLAS/stage);
 *   NAME_FAMILY/                an artifact directory's name: its artifact
 *                               prefix NAME (blas_lib), the last '_'-part
 *                               its GPU family (gfx110X-dgpu), "generic"
 *                               for one of host code alone;
 *   PARENT/                     a batch: the artifact directories in it. */
#ifndef OPS_KPACK_ARTIFACT_H
#define OPS_KPACK_ARTIFACT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "../core/err.h"

#define KPACK_MANIFEST "artifact_manifest.txt"
/* ROCm's manifests list a few prefixes; each is checked against the
 * others, so a manifest of millions would take hours. */
enum { KPACK_MAX_PREFIXES = 4096 };

/* The prefixes DIR/artifact_manifest.txt lists, in order: its lines
 * (ended by \n, \r\n or \r, as Python reads text), blanks around them
 * dropped, empty ones skipped.  Each must be a relative path of names
 * ('/' between, none empty, "." or ".."; no '\\'), listed once, and not
 * inside another; KPACK_MAX_PREFIXES at most.  *prefixes (and each)
 * malloc'd; -1 with e filled. */
int kpack_manifest_read(const char *dir, char ***prefixes, size_t *n,
			struct err *e);
/* The artifact prefix in an artifact directory's name: all before its
 * last '_' (malloc'd); NULL when it has no '_', nothing before it, or
 * the family is "generic" (*generic set then). */
char *kpack_artifact_prefix(const char *name, bool *generic);
/* The artifact directories of a batch, in name order (bytes): the names
 * of the directories in dir (symbolic links followed) that hold an
 * artifact_manifest.txt and whose name gives an artifact prefix.  *names
 * (and each) malloc'd; *seen counts the directories met.  -1 with e
 * filled. */
int kpack_batch_list(const char *dir, char ***names, size_t *n, size_t *seen,
		     struct err *e);
/* The directory of prefix in the artifact directory dir (path: theirs
 * joined, for messages), reached one name at a time with no symbolic
 * link followed: a prefix is read where the manifest is, never out of
 * it (rocm-kpack follows a link there; we refuse it).  1 with *st the
 * directory's, 0 when nothing is there (a prefix without files), -1
 * with e filled: a symbolic link on the way, or no directory. */
int kpack_prefix_dir(const char *dir, const char *prefix, const char *path,
		     struct stat *st, struct err *e);
void kpack_strings_free(char **v, size_t n);

#endif
