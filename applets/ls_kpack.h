/* ls_kpack: a kpack-split host binary, as offload ls shows and checks it
 * (ls_kpack.c), in text or, through a sink, as JSON (ls_json.c). */
#ifndef APPLETS_LS_KPACK_H
#define APPLETS_LS_KPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ls_types.h"
#include "../core/select.h"
#include "../include/offcode.h"

struct ls_kpack_opts {
	bool verify;
	struct select *sel;	/* -t: NULL or no rules for all */
	const struct rows *rs;	/* --kernels, --no-demangle */
	FILE *errs;		/* the error lines: NULL for standard error
				 * at once, else kept here for later */
};

/* A code object a wrapper resolves to: entry index of archive archive
 * (offcode_split_entry's, for the sink's own questions of s: its URI).
 * Its code is read when it lies in the archive as it is, or is to be
 * checked or its kernels listed; one that cannot be read is told with
 * what the TOC says alone (in_file false, no image kind). */
struct ls_kpack_code {
	size_t archive, index;
	uint64_t wrapper;	/* the wrapper's code object index */
	const char *key, *target;	/* its TOC key and target */
	uint64_t size;		/* its code's, as the TOC declares */
	bool in_file;		/* its code in the archive as it is, at */
	uint64_t offset;
	const char *image_kind;	/* of its code, when read; else NULL */
	/* --kernels: its code's kernels, or why they cannot be read
	 * (ls_kernels.h's ls_code_kernels). */
	struct code_kernels kernels;
};

/* What is found, in order: the host, then for each search path the
 * archives it finds (those -t takes), in each the code object every
 * wrapper resolves to (those -t takes), or that it is missing.  An
 * archive that cannot be read has no entries (a->error set).  What
 * the sink is handed is valid during the call. */
struct ls_kpack_sink {
	void (*host)(void *ctx, offcode_split *s);
	void (*search)(void *ctx, const struct offcode_split_search *p);
	void (*archive)(void *ctx, const struct offcode_split_archive *a);
	void (*entry)(void *ctx, offcode_split *s,
		      const struct offcode_split_archive *a,
		      const struct ls_kpack_code *c);
	void (*missing)(void *ctx, const struct offcode_split_archive *a,
			uint64_t wrapper, const char *key);
	/* The end of an archive (2), a search path (1), the host (0). */
	void (*end)(void *ctx, int level);
};
/* The text lines, after the file's tree. */
extern const struct ls_kpack_sink ls_kpack_text;

/* If buf (len bytes, the file path) is an ELF file with a .rocm_kpack_ref
 * section: tell sink its reference, its HIPK wrappers, and for each
 * archive its search paths find, the code object each wrapper resolves to
 * (with --kernels their kernels, c->kernels).  With verify, every wrapper
 * index must resolve in every archive found, with the size the TOC
 * declares, to a code object for the archive's target; each miss is one
 * error line.  With rules in sel (-t), only the archives for a target
 * they take, and in them only the code objects they take (the rules that
 * do are marked).  0 (also when it is no split binary), or 1 after an
 * error. */
int ls_kpack_host(const char *path, const uint8_t *buf, size_t len,
		  const struct ls_kpack_opts *o,
		  const struct ls_kpack_sink *sink, void *ctx);

/* --verify of an entry of a kpack archive listed as a file (its code,
 * size bytes; NULL: not at hand, passed, its TOC key and target as the
 * public walk gives them): 0 when its code is for the target its TOC
 * names, else 1 and the error line into errs (when not NULL). */
int ls_kpack_verify_code(FILE *errs, const char *path, const void *code,
			 uint64_t size, const char *key, size_t key_len,
			 const char *target, size_t target_len);

#endif
