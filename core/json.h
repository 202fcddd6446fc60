/* json: bytes as JSON strings (RFC 8259), the one way every applet that
 * prints JSON writes them (ls, du): valid UTF-8 (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF) passes unchanged; '"' and
 * '\' are escaped as \" and \\, the control characters U+0000..U+001F
 * and U+007F as \u00XX; each byte of no valid UTF-8 character is \u00XX
 * of its value (its Latin-1 reading).  Hex digits are lower case. */
#ifndef CORE_JSON_H
#define CORE_JSON_H

#include <stddef.h>
#include <stdio.h>

/* The most one byte of input becomes: \u00XX. */
enum { JSON_ESCAPE_MAX = 6 };

/* The length, 1 to 4, of the valid UTF-8 character p[0..len) starts
 * with; 0 when none starts there (a byte that is then escaped). */
size_t json_utf8_len(const unsigned char *p, size_t len);

/* As much of s[0..len) escaped as out[0..cap) holds, whole characters
 * only and no quotes: the bytes written, *used the bytes of s taken
 * (progress is made whenever cap >= JSON_ESCAPE_MAX).  Nothing is
 * NUL-terminated. */
size_t json_escape(char *out, size_t cap, const char *s, size_t len,
		   size_t *used);

/* s[0..len) as a JSON string, quotes included, to f; null for a NULL s.
 * A write error stays in f's error flag. */
void json_put_str(FILE *f, const char *s, size_t len);

#endif
