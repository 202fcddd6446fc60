/* bundler.h: what the bundler's two files share: its configuration, read
 * from the command line in bundler.c, and the jobs in bundler_jobs.c. */
#ifndef APPLETS_BUNDLER_H
#define APPLETS_BUNDLER_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
