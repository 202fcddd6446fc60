/* json_test: core/json.c against itself written another way.
 *
 *   json_test           standard input as one JSON string (json_put_str),
 *                       then a newline
 *   json_test --check   json_utf8_len against a decoder that computes the
 *                       code point and then checks it (RFC 3629: shortest
 *                       form, no surrogate, at most U+10FFFF), for every
 *                       lead and next two bytes and each length; and
 *                       json_escape in pieces of every size against the
 *                       whole; "ok" or each difference */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/json.h"

/* The length of the character p[0..len) starts with, or 0. */
static size_t decode_len(const unsigned char *p, size_t len)
{
	static const unsigned long min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned long cp;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		n = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[k] & 0x3f);
	}
	if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int check_lengths(void)
{
	static const unsigned char last[] = { 0x80, 0xbf, 0x41, 0xc0 };
	int bad = 0;

	/* x: the first three bytes and which last one. */
	for (unsigned long x = 0; x < 1ul << 26; x++) {
		unsigned char p[4] = { (unsigned char)(x >> 18),
				       (unsigned char)(x >> 10),
				       (unsigned char)(x >> 2), last[x & 3] };

		for (size_t len = x & 3 ? 4 : 1; len <= 4; len++) {
			size_t want = decode_len(p, len);
			size_t got = json_utf8_len(p, len);

			if (want != got && bad++ < 20)
				printf("%02x %02x %02x %02x (%zu bytes): %zu, "
				       "not %zu\n", p[0], p[1], p[2], p[3], len,
				       got, want);
		}
	}
	return bad;
}

/* Every byte, then characters of each length and their pieces. */
static int check_pieces(void)
{
	static const char tail[] = "caf\xc3\xa9 \xf0\x9f\x98\x80 \xe2\x82\xac"
		"\xed\xa0\x80\xf4\x90\x80\x80\xe0\x80\xaf\xf4\x8f\xbf\xbf\xc3";
	char s[512], whole[6 * sizeof(s)], pieces[sizeof(whole)];
	size_t len = 0, n, used, at, o;
	int bad = 0;

	for (unsigned c = 0; c < 256; c++)
		s[len++] = (char)c;
	memcpy(s + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	n = json_escape(whole, sizeof(whole), s, len, &used);
	if (used != len) {
		printf("json_escape took %zu of %zu bytes\n", used, len);
		return 1;
	}
	for (size_t cap = JSON_ESCAPE_MAX; cap < 40; cap++) {
		for (at = 0, o = 0; at < len; at += used) {
			size_t k = json_escape(pieces + o, cap, s + at,
					       len - at, &used);

			if (!used || k > cap)
				break;
			o += k;
		}
		if (at != len || o != n || memcmp(whole, pieces, n)) {
			printf("json_escape in pieces of %zu differs\n", cap);
			bad++;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (argc > 1 && !strcmp(argv[1], "--check")) {
		int bad = check_lengths() + check_pieces();

		if (!bad)
			puts("ok");
		return bad != 0;
	}
	do {
		if (len == cap) {
			char *v = realloc(buf, cap = cap ? 2 * cap : 4096);

			if (!v) {
				free(buf);
				return 1;
			}
			buf = v;
		}
		n = fread(buf + len, 1, cap - len, stdin);
		len += n;
	} while (n);
	json_put_str(stdout, buf ? buf : "", len);
	putchar('\n');
	free(buf);
	return ferror(stdin) || fflush(stdout) != 0;
}
