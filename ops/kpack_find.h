/* kpack_find: a kpack-split host binary and the archives that hold its
 * code (ROCm/rocm-kpack, docs/multi_arch_packaging_with_kpack.md, "Binary
 * Conversion"): its .rocm_kpack_ref (the TOC key of its code, the
 * archives' search paths), its HIPK wrappers (each the index of a code
 * object, the "#<index>" of its TOC key), and every archive its search
 * paths find, opened and its TOC read.  The one resolution of a
 * split binary's archives: ls, du, extract and kpack join go through it. */
#ifndef OPS_KPACK_FIND_H
#define OPS_KPACK_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inspect_node.h"
#include "../core/err.h"
#include "../core/io_in.h"
#include "../formats/kpack.h"
#include "../formats/kpack_ref.h"

/* One archive a search path found. */
struct kpack_find_archive {
	size_t search;		/* the search path's index (ref.paths) */
	char *path;		/* the binary's directory / the pattern's
				 * directory / the name found */
	char *target;		/* the target its name gives; NULL for a
				 * search path without "@GFXARCH@" */
	struct io_in in;
	bool read;		/* in is open and k its TOC; else e says why */
	bool damaged;		/* read, but not a kpack archive (e) */
	struct kpack k;
	struct err e;
	/* Its entries by TOC key (then in TOC order), for
	 * kpack_find_lookup. */
	struct kpack_find_ref {
		const char *key;
		size_t entry;
	} *by_key;
};

/* A directory that stands in for the binary's own: rel_dir, the
 * binary's directory in its artifact, under root, the root of another
 * artifact (kpack join of a generic artifact and per-GPU ones).  A
 * search path is looked for there lexically ("a/.." is taken out, not
 * followed), never above root. */
struct kpack_find_alt {
	const char *root;
	const char *rel_dir;
};

struct kpack_find {
	const char *path;	/* the binary, as named */
	const struct kpack_find_alt *alt;	/* set by the caller, or NULL */
	size_t nalt;
	struct kpack_ref ref;
	uint64_t *index;	/* each HIPK wrapper's code object index */
	size_t nhipk, nhipf;	/* HIPK wrappers, HIPF ones (not split) */
	/* Per search path: its directory could not be opened (the archives
	 * of a placeholder pattern are looked for there). */
	bool *no_dir;
	char **dir;		/* that directory, per search path */
	/* The archives found, in the order of the search paths, each
	 * path's by name (the runtime's order does not exist offline: it
	 * asks for the GPU's target, and there is none). */
	struct kpack_find_archive *a;
	size_t na;
};

/* If buf (len bytes, the file path) is an ELF file with a .rocm_kpack_ref
 * section: 1, h filled, every archive its search paths find opened (those
 * that cannot be read or are damaged say why in their e).  0 when it is
 * none (h empty, to be closed all the same); -1 with e filled when its
 * reference or wrappers are damaged, or out of memory.  The runtime
 * (rocm-kpack runtime/src/loader.cpp) resolves a search path against the
 * binary's directory (an absolute one as it is) and puts each form of the
 * GPU's target ID in place of "@GFXARCH@"; with no GPU, every file of that
 * directory whose name is the pattern with a target ID in place is an
 * archive of the install, for the target its name gives. */
int kpack_find_open(struct kpack_find *h, const char *path,
		    const uint8_t *buf, size_t len, struct err *e);
/* With h->path and h->ref filled (the rest zero): every archive h->ref's
 * search paths find, as kpack_find_open finds them, for a caller that
 * reads the binary's reference and wrappers itself (kpack join).  -1 (out
 * of memory) with e filled; kpack_find_close frees what it found, and
 * h->ref. */
int kpack_find_archives(struct kpack_find *h, struct err *e);
void kpack_find_close(struct kpack_find *h);

/* Wrapper w's TOC key, "<kernel_name>#<index>", into key (cap bytes;
 * cut short when it does not fit). */
void kpack_find_key(const struct kpack_find *h, size_t w, char *key,
		    size_t cap);

/* How many entries of the archive a (read) have the TOC key key; the
 * first of them is a->by_key[*from] (its entry index .entry), the others
 * follow it, in TOC order. */
size_t kpack_find_lookup(const struct kpack_find_archive *a,
			 const char *key, size_t *from);

/* The entry i of the archive a (read) as the walk gives a kpack archive's
 * (inspect_kpack.h): n filled, its data the code when it is stored as it
 * is; a zstd-per-kernel one inflated into *code (malloc'd, the caller
 * frees it) when inflate, else without data.  -1 with e filled. */
int kpack_find_entry(const struct kpack_find_archive *a, size_t i,
		     bool inflate, const struct ccob_limits *lim,
		     struct inspect_node *n, uint8_t **code, struct err *e);

#endif
