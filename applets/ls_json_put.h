/* ls_json_put: the field printers of ls's JSON output (ls_json.c and
 * its part ls_json_kpack.c): a key after a comma but the first, then its
 * value.  Header only: small, and shared by the two. */
#ifndef APPLETS_LS_JSON_PUT_H
#define APPLETS_LS_JSON_PUT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/json.h"

/* The printers are called for every field of every entry and kernel:
 * stdio's formatting was most of what they cost. */
static inline void json_key(bool *first, const char *key)
{
	if (!*first)
		putchar(',');
	putchar('"');
	fputs(key, stdout);
	fputs("\":", stdout);
	*first = false;
}

static inline void json_put_u64(uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	*--p = 0;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	fputs(p, stdout);
}

static inline void json_u64(bool *first, const char *key, uint64_t v)
{
	json_key(first, key);
	json_put_u64(v);
}

static inline void json_text(bool *first, const char *key, const char *s,
			     size_t len)
{
	json_key(first, key);
	json_put_str(stdout, s, len);
}

static inline void json_hex(bool *first, const char *key, uint64_t v)
{
	json_key(first, key);
	printf("\"0x%016" PRIx64 "\"", v);
}

#endif
