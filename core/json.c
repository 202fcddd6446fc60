/* json: bytes as JSON strings; see json.h.  Written out rather than taken
 * from a library so that ls and du escape alike, byte for byte, and an
 * invalid byte never reaches the output raw (which no parser accepts). */
#include <string.h>

#include "json.h"

size_t json_utf8_len(const unsigned char *p, size_t len)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	/* RFC 3629, section 4: the second byte's range closes out the
	 * overlong forms (E0, F0), the surrogates (ED) and what passes
	 * U+10FFFF (F4); C0, C1 and F5..FF start nothing. */
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (len < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

size_t json_escape(char *out, size_t cap, const char *s, size_t len,
		   size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (i < len) {
		unsigned char c = p[i];
		size_t n = json_utf8_len(p + i, len - i);

		if (n > 1 || (n == 1 && c >= 0x20 && c != 0x7f && c != '"' &&
			      c != '\\')) {
			if (cap - o < n)
				break;
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
		} else if (c == '"' || c == '\\') {
			if (cap - o < 2)
				break;
			out[o++] = '\\';
			out[o++] = (char)c;
			i++;
		} else {
			if (cap - o < JSON_ESCAPE_MAX)
				break;
			memcpy(out + o, "\\u00", 4);
			out[o + 4] = hex[c >> 4];
			out[o + 5] = hex[c & 15];
			o += JSON_ESCAPE_MAX;
			i++;
		}
	}
	*used = i;
	return o;
}

void json_put_str(FILE *f, const char *s, size_t len)
{
	char buf[256];

	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	while (len) {
		size_t used, n = json_escape(buf, sizeof(buf), s, len, &used);

		fwrite(buf, 1, n, f);
		s += used;
		len -= used;
	}
	putc('"', f);
}
