/* gather: a stream's first bytes collected in one growing buffer until a
 * parser finds them enough: a header whose length shows only as it is
 * parsed (the bundle header inside a CCOB, decompressed a piece at a
 * time).  The parser is tried at 64 KiB, then each time the bytes have
 * doubled (or reached what it said it needs), and at the stream's end, so
 * that a huge header is parsed a bounded number of times. */
#ifndef CORE_GATHER_H
#define CORE_GATHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gather {
	uint8_t *buf;		/* the stream's first have bytes */
	size_t have, cap;
	size_t next_try;	/* have at the next try */
	uint64_t total;		/* the stream's length */
};

/* An empty gather of a stream total bytes long. */
void gather_init(struct gather *g, uint64_t total);
/* Append p[0, n): 1 when it is time to try the parser on buf[0, have),
 * 0 when not yet, -1 when out of memory (the bytes before are kept). */
int gather_add(struct gather *g, const void *p, size_t n);
/* buf holds the whole stream: the parser's last try. */
bool gather_whole(const struct gather *g);
/* The parser wants more: the next try at twice the bytes, or at need
 * (what it said it needs) when that is more. */
void gather_later(struct gather *g, size_t need);
void gather_free(struct gather *g);

#endif
