/* kpack_split_impl: what kpack_split.c shares with its part
 * kpack_split_out.c (where outputs go, the archives and manifests): one
 * split's state. */
#ifndef OPS_KPACK_SPLIT_IMPL_H
#define OPS_KPACK_SPLIT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kpack_outs.h"
#include "../core/err.h"
#include "../core/io_types.h"
#include "../core/tree.h"
#include "../formats/kpack_write.h"

struct kpack_database;
struct kpack_split_opts;

/* A code object of the file being walked: its bundle and target. */
struct kern {
	size_t bundle;
	size_t arch;		/* index into split.arch */
	unsigned index;		/* among the file's code objects of arch */
};

/* A prefix of the artifact: a tree walked. */
struct source {
	char *path;		/* on disk */
	const char *key;	/* in TOC keys, metadata and manifests */
	const char *out;	/* where its files go, installed ("": OUT) */
	/* A prefix of a manifest: the directory found there, which the
	 * walk must meet (kpack_prefix_dir). */
	bool checked;
	dev_t dev;
	ino_t ino;
};

/* A GPU of the artifact: its archive, written as its code objects come
 * (opened under the prefix of the first, moved at the end), and where
 * its code and database files came from. */
struct archive {
	char *arch;
	struct kpack_stream st;
	struct io_out o;
	bool open, started;
	bool *code_from;	/* per source */
	size_t *db_from;	/* sources of its database files, in order */
	size_t ndb;
};

struct split {
	const struct kpack_split_opts *o;
	/* What of o the part reads. */
	const char *out;
	enum kpack_scheme scheme;
	const struct kpack_database *const *databases;
	size_t ndatabases;
	struct err *e;
	bool per_target;
	const char *name;	/* the artifact prefix */
	struct source *src;
	size_t nsrc, isrc;
	const struct tree *t;
	struct tree_cursor cur;	/* the walked directories, reached again */
	int outfd;		/* OUT, opened once: every output made under it */
	size_t skip;		/* of a tree path, to its path in the tree */
	struct archive *a;	/* in the order their first code came */
	size_t na, capa;
	size_t kernels;
	struct kpack_outs outs;	/* every path written in OUT */
	/* The file being walked. */
	const char *rel;
	struct kern *k;
	size_t nk, capk;
	bool elf_exec;		/* a linked ELF file, depth 0 */
	bool in_fat;		/* under its .hip_fatbin */
	bool has_fat;
	unsigned fat_depth;
	uint64_t fat_off;
	size_t nbundles;
	uint64_t *bundle_addr;	/* each bundle's offset in .hip_fatbin */
};

#endif
