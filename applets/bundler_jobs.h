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
 * report under -verbose; 0, 1 (reported: LLVM fails there too) or
 * BUNDLER_OURS (reported: a check of ours, where LLVM reads on, or dies
 * of a size it cannot allocate). */
enum { BUNDLER_OURS = 2 };
int bundler_decompress_next(struct source *s, const char *path);
/* Print LLVM's -verbose report of a decompression (with -verbose only,
 * as LLVM 22; a hash mismatch is said there and is no error). */
void bundler_ccob_report(const struct config *c, const struct ccob_stats *st);
/* Whether LLVM reads the CCOB at[0, n) as a binary bundle, known before
 * decompressing it all (so that it can stream): -type says so, or for o
 * and a its content starts with the bundle magic (it is no object). */
bool bundler_ccob_binary(const struct config *c, const uint8_t *at, size_t n);
/* The layout -type gives d[0, n) (ref, the input, decides between object
 * and binary, as in LLVM): r opened on a text or an object bundle (1),
 * BUNDLER_BINARY for a binary one (not opened), or -1 (reported). */
enum { BUNDLER_BINARY = 2 };
int bundler_open_layout(const struct config *c, const struct io_in *ref,
			const uint8_t *d, size_t n, struct bundle_reader *r);
/* The pieces LLVM 23 reads an input in for --list and --unbundle, one
 * after the other from the start: a CCOB runs to the size its header gives
 * (version 2 and 3) and the next piece starts at the next "CCOB" from
 * there (a version 1 CCOB, or one whose header does not parse, ends at the
 * next "CCOB" after its magic); for --unbundle an uncompressed binary
 * bundle ends where its magic next occurs; anything else is the last
 * piece.  The piece at pos is [at, at + len); next is where the following
 * one starts, or SIZE_MAX.  0, or 1 (reported: a CCOB whose header gives a
 * size of 0, where LLVM 23 reads the same piece forever). */
struct blob23 {
	size_t at, len, next;
};
int bundler_blob23(const struct config *c, const struct io_in *in, size_t pos,
		   bool unbundle, struct blob23 *b);
/* The layout LLVM 23 reads a piece in: from -type, and for o and a from
 * the piece's own bytes (decompressed): H_* below, or -1 (reported). */
enum bundler_layout { LAYOUT_TEXT, LAYOUT_BINARY, LAYOUT_OBJECT };
int bundler_layout23(const struct config *c, const uint8_t *d, size_t n,
		     const char **comment);
/* An LLVM message about a CCOB in the words of the release followed:
 * LLVM 23 (which moved that code into llvm::object) starts it lower case. */
const char *bundler_llvm_words(const struct config *c, const char *msg);
/* -###: the llvm-objcopy command LLVM runs to strip a host object. */
void bundler_print_objcopy_strip(const struct config *c);

#endif
