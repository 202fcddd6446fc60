/* md5lanes: the MD5 digests of many messages, eight at a time in the
 * lanes of a vector (AVX2) where the CPU has it, else one after another
 * (libmd).  MD5 of one message cannot go faster than one block after
 * another; eight messages side by side take about what one takes.  The
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
/* The same, telling passed(ctx, p, n) of the bytes [p, p + n) of a
 * message it has hashed, a few MiB at a time (the caller may let go of
 * their pages: they are not read again). */
typedef void md5lanes_passed(void *ctx, const uint8_t *p, size_t n);
void md5lanes_each(const uint8_t *const *msg, const size_t *len, size_t n,
		   uint8_t (*digest)[16], md5lanes_passed *passed, void *ctx);
/* The same, one after another (libmd): the reference for tests. */
void md5lanes_serial(const uint8_t *const *msg, const size_t *len, size_t n,
		     uint8_t (*digest)[16]);

#endif
