/* sha256: SHA-256 digests of streams, by OpenSSL's libcrypto (which uses
 * the CPU's SHA instructions where it has them), for the digests of
 * container images' blobs ("sha256:<64 hex digits>").  libcrypto is
 * loaded by the first sha256_new, not linked: what does not hash does not
 * pay for it at start. */
#ifndef CORE_SHA256_H
#define CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

enum { SHA256_LEN = 32, SHA256_HEX = 64 };

struct sha256;

/* A new digest in progress: NULL with e filled when out of memory or when
 * libcrypto cannot be loaded ("SHA-256: cannot load libcrypto.so.3: ..."). */
struct sha256 *sha256_new(struct err *e);
void sha256_update(struct sha256 *s, const void *p, size_t n);
/* The digest of everything given, as 64 lower-case hex digits and a NUL
 * (hex[SHA256_HEX + 1]); s can be given more after. */
void sha256_hex(const struct sha256 *s, char *hex);
void sha256_free(struct sha256 *s);
/* dst made to hold what src holds (a digest in progress, marked to be
 * finished later while src goes on): 0, or -1 out of memory. */
int sha256_copy(struct sha256 *dst, const struct sha256 *src);
/* The digest of p[0..n) at once. */
int sha256_of(const void *p, size_t n, char *hex, struct err *e);

#endif
