/* md5lanes: the MD5 digests of many messages, sixteen at a time in the
 * lanes of two vectors (AVX2) where the CPU has it, else one after another
 * (libmd).  MD5 of one message cannot go faster than one block after
 * another; sixteen messages side by side take about what one takes.  The
 * CCOBs prune --compress writes hash every bundle (formats/ccob.h).
 * By hand: libmd (and the other MD5s in Debian 12 we know of) hash one
 * message at a time. */
#ifndef CORE_MD5LANES_H
#define CORE_MD5LANES_H

#include <stddef.h>
#include <stdint.h>

/* digest[i] = MD5(msg[i], len[i]) for i < n. */
void md5lanes(const uint8_t *const *msg, const size_t *len, size_t n,
	      uint8_t (*digest)[16]);
/* The same, each message's bytes [p, p + n) copied to dst by read(ctx,
 * dst, p, n) (64 KiB at a time, every byte once) and hashed there, not
 * where they lie: a caller whose messages are a mapped file reads them
 * with pread, so that no page is mapped for the hasher (a page mapped
 * then let go of costs twice what copying it does).  read NULL: hashed
 * where they lie. */
typedef void md5lanes_read(void *ctx, uint8_t *dst, const uint8_t *p,
			   size_t n);
void md5lanes_each(const uint8_t *const *msg, const size_t *len, size_t n,
		   uint8_t (*digest)[16], md5lanes_read *read, void *ctx);
/* The same, one after another (libmd): the reference for tests. */
void md5lanes_serial(const uint8_t *const *msg, const size_t *len, size_t n,
		     uint8_t (*digest)[16]);

#endif
