/* ar_write: GNU archives byte for byte as LLVM 22's writeArchive writes
 * them for K_GNU (see ar.h for the layout).  Everything but the member
 * data is laid out in memory first, because the symbol table at the front
 * holds the offset of every member; the data is then streamed from the
 * caller's pieces. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strmap.h"
#include "ar.h"

/* LLVM's Archive::MaxMemberSize: what ten decimal digits hold. */
#define MAX_MEMBER_SIZE UINT64_C(9999999999)

uint64_t ar_sym64_threshold(const char *value)
{
	uint64_t v = 0;

	if (!value || !*value)
		return AR_SYM64_THRESHOLD;
	for (const char *p = value; *p; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (*p < '0' || *p > '9' || v > (UINT64_MAX - d) / 10)
			return AR_SYM64_THRESHOLD;
		v = v * 10 + d;
	}
	return v;
}

/* printWithSpacePadding: text, then blanks to the width.  LLVM only
 * asserts that it fits; a field that does not is refused here. */
static bool pad_field(char *dst, size_t width, const char *text)
{
	size_t n = strlen(text);

	if (n > width)
		return false;
	memcpy(dst, text, n);
	memset(dst + n, ' ', width - n);
	return true;
}

/* Date, uid, gid, mode (octal) and size after the 16-byte name field. */
static bool header_rest(char *h, int64_t date, uint32_t uid, uint32_t gid,
			uint32_t mode, uint64_t size)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRId64, date);
	if (!pad_field(h + 16, 12, num))
		return false;
	snprintf(num, sizeof(num), "%" PRIu32, uid % 1000000);
	pad_field(h + 28, 6, num);
	snprintf(num, sizeof(num), "%" PRIu32, gid % 1000000);
	pad_field(h + 34, 6, num);
	snprintf(num, sizeof(num), "%" PRIo32, mode);
	if (!pad_field(h + 40, 8, num))
		return false;
	snprintf(num, sizeof(num), "%" PRIu64, size);
	if (!pad_field(h + 48, 10, num))
		return false;
	memcpy(h + 58, "`\n", 2);
	return true;
}

/* Writes go through a buffer: headers are 60 bytes each. */
struct wbuf {
	struct io_out *o;
	size_t n;
	uint8_t b[1 << 16];
};

static int flush(struct wbuf *w, struct err *e)
{
	int rc = io_out_write(w->o, w->b, w->n, e);

	w->n = 0;
	return rc;
}

static int put(struct wbuf *w, const void *p, size_t len, struct err *e)
{
	if (!len)
		return 0;
	if (len > sizeof(w->b) - w->n) {
		if (flush(w, e) < 0)
			return -1;
		if (len >= sizeof(w->b) / 2)
			return io_out_write(w->o, p, len, e);
	}
	memcpy(w->b + w->n, p, len);
	w->n += len;
	return 0;
}

struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static int append(struct bytes *b, const void *p, size_t len)
{
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *np;

		while (cap - b->len < len) {
			if (cap > SIZE_MAX / 2)
				return -1;
			cap *= 2;
		}
		np = realloc(b->p, cap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	if (len)
		memcpy(b->p + b->len, p, len);
	b->len += len;
	return 0;
}

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = n; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

/* computeSymbolTableSize for GNU: count, offsets, names, even length. */
static uint64_t symtab_size(uint64_t nsyms, unsigned w, uint64_t names)
{
	uint64_t size = w + nsyms * w + names;

	return size + (size & 1);
}

/* What ar_write lays out before it writes: each member's header, size
 * and place (counting from the first member's header), the long-name
 * table, and what the symbol table will hold. */
struct layout {
	const struct ar_new_member *m;
	size_t n;
	bool thin, det;
	char *hdr;
	uint64_t *size, *pos;
	struct strmap seen;
	struct bytes names;
	uint64_t nsyms, sym_bytes;
	bool symbolic;
};

/* Member i's name field: itself with a '/', or "/<offset>" into the
 * long-name table.  -1 when out of memory. */
static int name_field(struct layout *l, size_t i, char *h)
{
	const struct ar_new_member *m = &l->m[i];
	bool long_name = l->thin || m->name_len >= 16 ||
			 (m->name_len && memchr(m->name, '/', m->name_len));
	uint64_t off = l->names.len;
	uint32_t b;
	char num[32];

	if (!long_name) {
		if (m->name_len)
			memcpy(h, m->name, m->name_len);
		h[m->name_len] = '/';
		memset(h + m->name_len + 1, ' ', 15 - m->name_len);
		return 0;
	}
	/* Thin archives repeat a name each time. */
	b = l->thin ? 0 : strmap_find(&l->seen, m->name, m->name_len);
	if (!l->thin && b < l->seen.nb) {
		off = l->seen.b[b].value;
	} else if ((!l->thin && strmap_set(&l->seen, m->name, m->name_len,
					   l->names.len) < 0) ||
		   append(&l->names, m->name, m->name_len) ||
		   append(&l->names, "/\n", 2)) {
		return -1;
	}
	h[0] = '/';
	snprintf(num, sizeof(num), "%" PRIu64, off);
	pad_field(h + 1, 15, num);
	return 0;
}

static int lay_out(struct layout *l, struct err *e)
{
	uint64_t at = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct ar_new_member *m = &l->m[i];
		char *h = l->hdr + i * AR_HEADER_LEN;
		int shown = (int)(m->name_len > 256 ? 256 : m->name_len);

		for (size_t k = 0; k < m->npieces &&
				   l->size[i] <= MAX_MEMBER_SIZE; k++)
			l->size[i] += m->piece[k].len;
		if (l->size[i] > MAX_MEMBER_SIZE)
			return err_set(e, "File %.*s exceeds size limit", shown,
				       m->name);
		if (name_field(l, i, h) < 0)
			return err_set(e, "out of memory");
		if (!header_rest(h, l->det ? 0 : m->mtime, l->det ? 0 : m->uid,
				 l->det ? 0 : m->gid, l->det ? 0644 : m->mode,
				 l->size[i]))
			return err_set(e, "a header field of %.*s does not fit",
				       shown, m->name);
		l->pos[i] = at;
		at += AR_HEADER_LEN +
		      (l->thin ? 0 : l->size[i] + (l->size[i] & 1));
		l->nsyms += m->nsyms;
		l->sym_bytes += m->syms_len;
		l->symbolic |= m->symbolic;
	}
	return 0;
}

/* The symbol table member, whole: its header, the count, each symbol's
 * member offset (width bytes; members start at headers), the names. */
static int symbol_table(const struct layout *l, struct bytes *t,
			unsigned width, uint64_t headers, bool fill,
			uint64_t now, struct err *e)
{
	static const uint8_t filler[3];
	uint64_t total = symtab_size(l->nsyms, width, l->sym_bytes);
	char h[AR_HEADER_LEN];
	uint8_t word[8];

	memcpy(h, width == 8 ? "/SYM64/" : "/", width == 8 ? 7 : 1);
	memset(h + (width == 8 ? 7 : 1), ' ', width == 8 ? 9 : 15);
	if (!header_rest(h, l->det ? 0 : now, 0, 0, 0, total))
		return err_set(e, "the symbol table's header does not fit");
	put_be(word, l->nsyms, width);
	if (append(t, h, sizeof(h)) || append(t, word, width))
		return err_set(e, "out of memory");
	/* 32-bit offsets are truncated, as LLVM does when told by
	 * SYM64_THRESHOLD to keep them past 4 GiB. */
	for (size_t i = 0; i < l->n; i++) {
		put_be(word, headers + l->pos[i], width);
		for (size_t k = 0; k < l->m[i].nsyms; k++)
			if (append(t, word, width))
				return err_set(e, "out of memory");
	}
	for (size_t i = 0; i < l->n; i++)
		if (append(t, l->m[i].syms, l->m[i].syms_len))
			return err_set(e, "out of memory");
	/* A symbolic member without symbols still gets a table: LLVM fills
	 * the names with three NULs (for old Solaris tools). */
	if ((fill && append(t, filler, sizeof(filler))) ||
	    (t->len & 1 && append(t, filler, 1)))
		return err_set(e, "out of memory");
	return 0;
}

/* The magic, the symbol table, the long-name table, the members. */
static int write_out(struct wbuf *w, const struct layout *l,
		     const struct bytes *symtab, struct err *e)
{
	static const uint8_t newline = '\n';
	const struct bytes *names = &l->names;

	if (put(w, l->thin ? AR_THIN_MAGIC : AR_MAGIC, AR_MAGIC_LEN, e) < 0 ||
	    put(w, symtab->p, symtab->len, e) < 0)
		return -1;
	if (names->len) {
		char h[AR_HEADER_LEN], num[32];

		pad_field(h, 48, "//");
		snprintf(num, sizeof(num), "%" PRIu64,
			 (uint64_t)(names->len + (names->len & 1)));
		pad_field(h + 48, 10, num);
		memcpy(h + 58, "`\n", 2);
		if (put(w, h, sizeof(h), e) < 0 ||
		    put(w, names->p, names->len, e) < 0 ||
		    ((names->len & 1) && put(w, &newline, 1, e) < 0))
			return -1;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct ar_new_member *m = &l->m[i];

		if (put(w, l->hdr + i * AR_HEADER_LEN, AR_HEADER_LEN, e) < 0)
			return -1;
		if (l->thin)
			continue;
		for (size_t k = 0; k < m->npieces; k++)
			if (put(w, m->piece[k].buf, m->piece[k].len, e) < 0)
				return -1;
		if ((l->size[i] & 1) && put(w, &newline, 1, e) < 0)
			return -1;
	}
	return flush(w, e);
}

int ar_write(struct io_out *o, const struct ar_new_member *m, size_t n,
	     const struct ar_write_opts *opt, struct err *e)
{
	struct layout l = { .m = m, .n = n,
			    .thin = opt->flags & AR_WRITE_THIN,
			    .det = opt->flags & AR_WRITE_DETERMINISTIC };
	struct bytes symtab = { 0 };
	struct wbuf *w = NULL;
	uint64_t headers, strtab_member = 0;
	unsigned width = 4;
	bool fill;
	int rc = -1;

	if (n > SIZE_MAX / AR_HEADER_LEN)
		goto nomem;
	l.hdr = malloc(n ? n * AR_HEADER_LEN : 1);
	l.size = calloc(n ? n : 1, sizeof(*l.size));
	l.pos = calloc(n ? n : 1, sizeof(*l.pos));
	w = malloc(sizeof(*w));
	if (!l.hdr || !l.size || !l.pos || !w)
		goto nomem;
	w->o = o;
	w->n = 0;
	if (lay_out(&l, e) < 0)
		goto out;
	if (l.names.len)
		strtab_member = AR_HEADER_LEN + l.names.len + (l.names.len & 1);
	fill = !l.sym_bytes && l.symbolic;
	if (fill)
		l.sym_bytes = 3;

	/* 32-bit offsets unless the last member header would start at or
	 * past the threshold: then "/SYM64/" and 64-bit ones. */
	headers = AR_MAGIC_LEN + AR_HEADER_LEN +
		  symtab_size(l.nsyms, 4, l.sym_bytes) + strtab_member;
	if ((opt->flags & AR_WRITE_SYMTAB) &&
	    headers + (n ? l.pos[n - 1] : 0) >= opt->sym64_threshold) {
		width = 8;
		headers = AR_MAGIC_LEN + AR_HEADER_LEN +
			  symtab_size(l.nsyms, 8, l.sym_bytes) + strtab_member;
	}
	if ((opt->flags & AR_WRITE_SYMTAB) && l.sym_bytes &&
	    symbol_table(&l, &symtab, width, headers, fill, opt->now, e) < 0)
		goto out;
	rc = write_out(w, &l, &symtab, e);
	goto out;

nomem:
	err_set(e, "out of memory");
out:
	strmap_free(&l.seen);
	free(l.names.p);
	free(symtab.p);
	free(l.hdr);
	free(l.size);
	free(l.pos);
	free(w);
	return rc;
}
