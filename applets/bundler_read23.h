/* bundler_read23: -list as LLVM 23 does it, and the reading of one piece
 * of the input that LLVM 23's -unbundle shares. */
#ifndef APPLETS_BUNDLER_READ23_H
#define APPLETS_BUNDLER_READ23_H

#include <stddef.h>
#include <stdint.h>

#include "bundler_config.h"
#include "bundler_jobs.h"

/* A failure where LLVM 23 crashes, hangs or does what is undefined (one
 * error line, and -list prints none of what it listed before), as
 * opposed to 1, one where LLVM 23 fails too. */
enum { BUNDLER_DROP = 2 };

int bundler_list23(const struct config *c);
/* A piece of the input, decompressed into s->seg when it is a CCOB (as
 * LLVM 23 decompresses: the header's size bounds it): *from is where its
 * bytes are read, s->seg from 0 or the file itself from the piece's start
 * (*base).  0, 1 or BUNDLER_DROP (reported). */
int bundler_open_piece23(struct source *s, const struct blob23 *b,
			 const struct io_in **from, size_t *base);
/* A CCOB piece of a version LLVM 23 cannot size: 0, or BUNDLER_DROP
 * (reported). */
int bundler_ccob23_undefined(const struct source *s, const struct blob23 *b);
/* The header of a binary bundle d[0, n) that LLVM 23 reads though it
 * wants nothing from it: 0, or 1 (reported) where LLVM crashes in the
 * reading alone. */
int bundler_header23_crash(const struct config *c, const uint8_t *d,
			   size_t n);

#endif
