/* bundler_config: what the bundler's files share: its configuration, read
 * from the command line in bundler.c, and the input reader's state.  The
 * types alone: bundling and the input reader are in bundler_jobs.h,
 * --list and --unbundle in bundler_read.h, archives in
 * bundler_archive.h. */
#ifndef APPLETS_BUNDLER_CONFIG_H
#define APPLETS_BUNDLER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/env.h"
#include "../core/io_in.h"
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
	enum llvm_release llvm;		/* the release followed */
};

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

#endif
