/* json_edit: string values and descriptor sizes replaced in place
 * (json_edit.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_edit.h"

enum { DEPTH_MAX = 128 };

struct splice {
	size_t at, len;		/* the bytes replaced */
	const char *with;	/* NULL: a number, num */
	uint64_t num;
};

struct scan {
	const char *s;
	size_t len, pos;
	struct json_edit *ed;
	size_t n;
	struct splice *sp;
	size_t nsp, cap;
	struct err *e;
};

static void ws(struct scan *c)
{
	while (c->pos < c->len && strchr(" \t\r\n", c->s[c->pos]) &&
	       c->s[c->pos])
		c->pos++;
}

static int bad(struct scan *c)
{
	err_bad(c->e, "JSON not as expected");
	return err_at(c->e, c->pos);
}

static int add(struct scan *c, size_t at, size_t len, const char *with,
	       uint64_t num)
{
	if (c->nsp == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct splice *n = realloc(c->sp, cap * sizeof(*n));

		if (!n)
			return err_nomem(c->e);
		c->sp = n;
		c->cap = cap;
	}
	c->sp[c->nsp++] = (struct splice){ at, len, with, num };
	return 0;
}

/* A string at pos: its contents' span (escapes left as they are). */
static int string(struct scan *c, size_t *at, size_t *n)
{
	if (c->pos >= c->len || c->s[c->pos] != '"')
		return bad(c);
	*at = ++c->pos;
	while (c->pos < c->len && c->s[c->pos] != '"') {
		if (c->s[c->pos] == '\\')
			c->pos++;
		c->pos++;
	}
	if (c->pos >= c->len)
		return bad(c);
	*n = c->pos++ - *at;
	return 0;
}

static struct json_edit *match(struct scan *c, size_t at, size_t n)
{
	for (size_t i = 0; i < c->n; i++)
		if (strlen(c->ed[i].from) == n &&
		    !memcmp(c->s + at, c->ed[i].from, n))
			return &c->ed[i];
	return NULL;
}

static int value(struct scan *c, int depth);

static int object(struct scan *c, int depth)
{
	struct json_edit *digest = NULL;
	size_t size_at = 0, size_len = 0, mt_at = 0, mt_len = 0;
	bool has_size = false, has_mt = false;

	c->pos++;
	ws(c);
	if (c->pos < c->len && c->s[c->pos] == '}') {
		c->pos++;
		return 0;
	}
	for (;;) {
		size_t kat, kn, vat;

		ws(c);
		if (string(c, &kat, &kn) < 0)
			return -1;
		ws(c);
		if (c->pos >= c->len || c->s[c->pos] != ':')
			return bad(c);
		c->pos++;
		ws(c);
		vat = c->pos;
		if (value(c, depth + 1) < 0)
			return -1;
		if (kn == 6 && !memcmp(c->s + kat, "digest", 6) &&
		    c->s[vat] == '"')
			digest = match(c, vat + 1, c->pos - vat - 2);
		if (kn == 9 && !memcmp(c->s + kat, "mediaType", 9) &&
		    c->s[vat] == '"') {
			has_mt = true;
			mt_at = vat + 1;
			mt_len = c->pos - vat - 2;
		}
		if (kn == 4 && !memcmp(c->s + kat, "size", 4)) {
			has_size = true;
			size_at = vat;
			size_len = c->pos - vat;
		}
		ws(c);
		if (c->pos < c->len && c->s[c->pos] == ',') {
			c->pos++;
			continue;
		}
		if (c->pos < c->len && c->s[c->pos] == '}') {
			c->pos++;
			break;
		}
		return bad(c);
	}
	if (digest && digest->media_type && has_mt &&
	    add(c, mt_at, mt_len, digest->media_type, 0) < 0)
		return -1;
	if (digest && digest->has_size && has_size)
		return add(c, size_at, size_len, NULL, digest->size);
	return 0;
}

static int array(struct scan *c, int depth)
{
	c->pos++;
	ws(c);
	if (c->pos < c->len && c->s[c->pos] == ']') {
		c->pos++;
		return 0;
	}
	for (;;) {
		ws(c);
		if (value(c, depth + 1) < 0)
			return -1;
		ws(c);
		if (c->pos < c->len && c->s[c->pos] == ',') {
			c->pos++;
			continue;
		}
		if (c->pos < c->len && c->s[c->pos] == ']') {
			c->pos++;
			return 0;
		}
		return bad(c);
	}
}

static int value(struct scan *c, int depth)
{
	size_t at, n;
	struct json_edit *ed;

	if (depth > DEPTH_MAX || c->pos >= c->len)
		return bad(c);
	switch (c->s[c->pos]) {
	case '{':
		return object(c, depth);
	case '[':
		return array(c, depth);
	case '"':
		if (string(c, &at, &n) < 0)
			return -1;
		if ((ed = match(c, at, n))) {
			ed->hits++;
			return add(c, at, n, ed->to, 0);
		}
		return 0;
	}
	/* A number, true, false or null: up to what ends it. */
	at = c->pos;
	while (c->pos < c->len && !strchr(",}] \t\r\n", c->s[c->pos]) &&
	       c->s[c->pos])
		c->pos++;
	return c->pos == at ? bad(c) : 0;
}

static int by_offset(const void *a, const void *b)
{
	const struct splice *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

int json_edit(const char *text, size_t len, struct json_edit *ed,
	      size_t n, char **out, size_t *out_len, size_t *hits,
	      struct err *e)
{
	struct scan c = { .s = text, .len = len, .ed = ed, .n = n, .e = e };
	size_t cap = len + 1, pos = 0, o = 0;
	char *buf = NULL;
	int rc = -1;

	*out = NULL;
	ws(&c);
	if (value(&c, 0) < 0)
		goto out;
	if (c.nsp)	/* (qsort of no array: undefined) */
		qsort(c.sp, c.nsp, sizeof(*c.sp), by_offset);
	for (size_t i = 0; i < c.nsp; i++)
		cap += c.sp[i].with ? strlen(c.sp[i].with) : 21;
	if (!(buf = malloc(cap))) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < c.nsp; i++) {
		const struct splice *s = &c.sp[i];

		memcpy(buf + o, text + pos, s->at - pos);
		o += s->at - pos;
		if (s->with) {
			memcpy(buf + o, s->with, strlen(s->with));
			o += strlen(s->with);
		} else {
			o += (size_t)snprintf(buf + o, cap - o, "%" PRIu64,
					      s->num);
		}
		pos = s->at + s->len;
	}
	memcpy(buf + o, text + pos, len - pos);
	o += len - pos;
	buf[o] = '\0';
	*out = buf;
	*out_len = o;
	*hits = c.nsp;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	free(c.sp);
	return rc;
}
