/* uri: file:// code object URIs; see uri.h. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "uri.h"

static bool plain(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
	       c == '/';
}

char *uri_file(const char *path, uint64_t offset, uint64_t size)
{
	size_t n = strlen(path), cap = 7 + 3 * n + 64, o;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	memcpy(out, "file://", 7);
	o = 7;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)path[i];

		if (plain(c)) {
			out[o++] = (char)c;
		} else {
			snprintf(out + o, 4, "%%%02X", c);
			o += 3;
		}
	}
	snprintf(out + o, cap - o, "#offset=%" PRIu64 "&size=%" PRIu64, offset,
		 size);
	return out;
}

bool uri_is_uri(const char *s)
{
	const char *p = s;

	while (isalpha((unsigned char)*p))
		p++;
	return p > s && !strncmp(p, "://", 3);
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int number(const char *s, size_t len, uint64_t *v, struct err *e,
		  const char *what)
{
	char buf[32], *end;
	unsigned long long n;

	if (!len || len >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return err_bad(e, "%s '%.*s' is not a number", what,
			       (int)(len > 40 ? 40 : len), s);
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	n = strtoull(buf, &end, 0);
	if (*end || errno)
		return err_bad(e, "%s '%s' is not a number (decimal, 0x hex or 0 "
			       "octal) that fits 64 bits", what, buf);
	*v = n;
	return 0;
}

int uri_parse(const char *s, struct uri *u, struct err *e)
{
	const char *path, *spec, *p;
	size_t plen, o = 0;

	memset(u, 0, sizeof(*u));
	if (strncasecmp(s, "file://", 7))
		return err_set(e, "only file:// URIs are supported");
	path = s + 7;
	plen = strcspn(path, "#?");
	spec = path[plen] ? path + plen + 1 : NULL;
	if (!plen)
		return err_bad(e, "no file name");
	u->path = malloc(plen + 1);
	if (!u->path)
		return err_nomem(e);
	for (size_t i = 0; i < plen; i++) {
		if (path[i] == '%') {
			int hi = i + 2 < plen ? hex(path[i + 1]) : -1;
			int lo = hi >= 0 ? hex(path[i + 2]) : -1;

			if (lo < 0 || (hi == 0 && lo == 0)) {
				uri_free(u);
				return err_bad(e, "bad escape in the file name");
			}
			u->path[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			u->path[o++] = path[i];
		}
	}
	u->path[o] = 0;
	for (p = spec; p && *p;) {
		size_t len = strcspn(p, "&");
		int rc;

		if (len > 7 && !strncmp(p, "offset=", 7))
			rc = number(p + 7, len - 7, &u->offset, e, "offset");
		else if (len > 5 && !strncmp(p, "size=", 5)) {
			rc = number(p + 5, len - 5, &u->size, e, "size");
			u->has_size = true;
		} else
			rc = err_bad(e, "unknown range attribute '%.*s' (offset= "
				     "or size=)", (int)(len > 40 ? 40 : len), p);
		if (rc < 0) {
			uri_free(u);
			return -1;
		}
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

void uri_free(struct uri *u)
{
	free(u->path);
	u->path = NULL;
}
