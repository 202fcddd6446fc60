/* bundler_jobs: bundling, and the input reader of --list and --unbundle. */
#ifndef APPLETS_BUNDLER_JOBS_H
#define APPLETS_BUNDLER_JOBS_H

#include "bundler_config.h"

int bundler_bundle(const struct config *c);

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
/* -###: the llvm-objcopy command LLVM runs to strip a host object. */
void bundler_print_objcopy_strip(const struct config *c);

#endif
