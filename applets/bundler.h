/* bundler.h: what the bundler's files share: its configuration, read from
 * the command line in bundler.c; bundling and the input reader in
 * bundler_jobs.c, --list and --unbundle in bundler_read.c. */
#ifndef APPLETS_BUNDLER_H
#define APPLETS_BUNDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/io.h"
#include "../formats/bundle.h"
#include "../formats/ccob.h"

struct config {
	const char *type;
	const char **inputs, **outputs, **targets;
	size_t ninputs, noutputs, ntargets;
	char **std_targets;	/* standardised, as written and matched */
	long host_index;	/* last host target, -1 if none */
	bool hip_only, unbundle, allow_missing, hip_openmp, compress, verbose;
	bool print_cmds;	/* -###: print the llvm-objcopy LLVM would run */
	bool check_archive;	/* -check-input-archive */
	const char *argv0;
	unsigned long long align;
	int level;			/* compression level */
	unsigned ccob_version;		/* CCOB version written */
	struct ccob_limits limits;	/* for reading CCOBs */
};

int bundler_list(const struct config *c);
int bundler_bundle(const struct config *c);
int bundler_unbundle(const struct config *c);
int bundler_unbundle_archive(const struct config *c);

/* What --list and --unbundle read: the input itself, or the bundles its
 * CCOBs hold, one after the other (LLVM 22 reads only a lone CCOB). */
struct source {
	const struct config *c;
	struct io_in file;
	struct io_in seg;	/* the bundle now read: file's bytes or a copy */
	size_t pos;		/* where the next bundle starts in file */
	unsigned method;	/* of the last CCOB */
	int nseg;
	bool compressed;
	/* The CCOBs hold binary bundles: a reader that asks (stream) is
	 * handed each CCOB undecompressed (SOURCE_CCOB), to stream it. */
	bool streamable, stream;
};
enum { SOURCE_CCOB = 2 };

int bundler_source_open(const struct config *c, struct source *s);
/* Open the next bundle for reading: 1 when r is ready, 0 at the end, -1
 * on failure (reported); SOURCE_CCOB when s->stream and a CCOB starts at
 * s->pos (the caller reads it and moves s->pos past it). */
int bundler_source_next(struct source *s, struct bundle_reader *r);
void bundler_source_close(struct source *s);
/* The CCOB at s->pos decompressed into s->seg, its hash checked, LLVM's
 * report under -verbose; 0 or 1 (reported). */
int bundler_decompress_next(struct source *s, const char *path);
/* Print LLVM's -verbose report of a decompression (with -verbose only,
 * as LLVM 22; a hash mismatch is said there and is no error). */
void bundler_ccob_report(const struct config *c, const struct ccob_stats *st);
/* The layout -type gives d[0, n) (ref, the input, decides between object
 * and binary, as in LLVM): r opened on a text or an object bundle (1),
 * BUNDLER_BINARY for a binary one (not opened), or -1 (reported). */
enum { BUNDLER_BINARY = 2 };
int bundler_open_layout(const struct config *c, const struct io_in *ref,
			const uint8_t *d, size_t n, struct bundle_reader *r);
/* An LLVM message about a CCOB in the words of the release followed:
 * LLVM 23 (which moved that code into llvm::object) starts it lower case. */
const char *bundler_llvm_words(const char *msg);
/* -###: the llvm-objcopy command LLVM runs to strip a host object. */
void bundler_print_objcopy_strip(const struct config *c);

#endif
