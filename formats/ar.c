/* ar: reading Unix archives the way LLVM 22's object::Archive does.
 *
 * Hand-written rather than libelf's elf_begin(ELF_C_READ_MMAP) on the
 * archive with elf_getarhdr per member: libelf knows neither thin archives
 * nor BSD "#1/<len>" names nor LLVM's "/SYM64/", needs a writable image for
 * elf_memory, allocates a header per member, and reports every kind of
 * damage as one generic "invalid archive" with no offset.  The format is
 * sixty bytes of text per member; checked field by field here, with LLVM's
 * own messages, it takes no allocation at all, which also makes it easy to
 * fuzz.
 *
 * Layout of a member header (all space-padded text):
 *   name 16 | date 12 | uid 6 | gid 6 | mode 8 (octal) | size 10 | "`\n"
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "../core/bytes.h"

enum {
	NAME_AT = 0, NAME_LEN = 16,
	DATE_AT = 16, DATE_LEN = 12,
	UID_AT = 28, UID_LEN = 6,
	GID_AT = 34, GID_LEN = 6,
	MODE_AT = 40, MODE_LEN = 8,
	SIZE_AT = 48, SIZE_LEN = 10,
	TERM_AT = 58,
};

/* Room for a name or field quoted in a message. */
enum { SHOW_MAX = 512 };

/* A header that passed the checks LLVM makes when it steps onto a member. */
struct hdr {
	size_t at;		/* offset of the header */
	const uint8_t *raw;	/* the raw name (LLVM's getRawName) */
	size_t raw_len;
	uint64_t size;		/* the size field */
	uint64_t start;		/* data offset from `at`: 60, plus a BSD name */
	bool thin;		/* data outside the archive */
};

bool ar_is_archive(const uint8_t *buf, size_t len)
{
	return len >= AR_MAGIC_LEN && (!memcmp(buf, AR_MAGIC, AR_MAGIC_LEN) ||
				       !memcmp(buf, AR_THIN_MAGIC, AR_MAGIC_LEN));
}

static bool is(const uint8_t *s, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(s, lit, n);
}

static bool starts(const uint8_t *s, size_t n, const char *lit)
{
	return n >= strlen(lit) && !memcmp(s, lit, strlen(lit));
}

static size_t rtrim(const uint8_t *s, size_t n, uint8_t c)
{
	while (n && s[n - 1] == c)
		n--;
	return n;
}

/* StringRef::getAsInteger for unsigned values: the whole string, digits
 * of the radix only (no sign, no blanks), at least one, no overflow. */
static bool parse_uint(const uint8_t *s, size_t n, unsigned radix,
		       uint64_t *out)
{
	uint64_t v = 0;

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)s[i] - '0';

		if (s[i] < '0' || d >= radix || v > (UINT64_MAX - d) / radix)
			return false;
		v = v * radix + d;
	}
	*out = v;
	return true;
}

/* Bytes quoted in a message, cut at SHOW_MAX.  Where LLVM escapes them
 * (raw_ostream::write_escaped: \\, \t, \n, \", other unprintables as
 * three octal digits) so does ESCAPED; where it prints them raw, RAW
 * escapes only control characters, so that a message stays one line of
 * text (a NUL could not even be carried). */
enum quoting { RAW, ESCAPED };

static const char *show(char *out, const void *s, size_t n, enum quoting q)
{
	const uint8_t *p = s;
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < SHOW_MAX; i++) {
		uint8_t c = p[i];
		bool control = c < 0x20 || c == 0x7f;

		if (c == '\t' || c == '\n' ||
		    (q == ESCAPED && (c == '\\' || c == '"'))) {
			out[o++] = '\\';
			out[o++] = c == '\t' ? 't' : c == '\n' ? 'n' : (char)c;
		} else if (!control && (q == RAW || c < 0x7f)) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = (char)('0' + (c >> 6));
			out[o++] = (char)('0' + ((c >> 3) & 7));
			out[o++] = (char)('0' + (c & 7));
		}
	}
	out[o] = '\0';
	return out;
}

#define MALFORMED "truncated or malformed archive ("

/* LLVM's getRawName: the name field up to its end character, which
 * depends on the flavour and the first byte.  Needs 16 bytes at `at`. */
static int raw_name(const struct ar_reader *r, size_t at, const uint8_t **raw,
		    size_t *raw_len, struct err *e)
{
	const uint8_t *f = r->buf + at;
	const uint8_t *end;
	uint8_t stop = '/';

	if (r->kind == AR_BSD || r->kind == AR_DARWIN64) {
		if (f[0] == ' ')
			return err_bad(e, MALFORMED "name contains a leading "
				       "space for archive member header at "
				       "offset %zu)", at);
		stop = ' ';
	} else if (f[0] == '/' || f[0] == '#') {
		stop = ' ';
	}
	end = memchr(f, stop, NAME_LEN);
	*raw = f;
	*raw_len = end ? (size_t)(end - f) : NAME_LEN;
	return 0;
}

/* LLVM's getName(Size): the member's real name, from the header, the
 * long-name table or the bytes after a BSD header.  avail is how many
 * bytes from `at` belong to the member (never past the buffer). */
static int member_name(const struct ar_reader *r, size_t at, uint64_t avail,
		       const char **name, size_t *len, struct err *e)
{
	const uint8_t *raw, *table = r->buf + r->strtab_off;
	size_t raw_len, digits;
	uint64_t v;
	char s[SHOW_MAX];

	if (avail < NAME_LEN)
		return err_cut(e, MALFORMED "archive header truncated before "
			       "the name field for archive member header at "
			       "offset %zu)", at);
	if (raw_name(r, at, &raw, &raw_len, e) < 0)
		return -1;
	*name = (const char *)raw;
	*len = raw_len;
	if (raw[0] == '/') {
		if (raw_len == 1 || is(raw, raw_len, "//") ||
		    is(raw, raw_len, "/<XFGHASHMAP>/") ||
		    is(raw, raw_len, "/<ECSYMBOLS>/"))
			return 0;
		digits = rtrim(raw + 1, raw_len - 1, ' ');
		if (!parse_uint(raw + 1, digits, 10, &v))
			return err_bad(e, MALFORMED "long name offset "
				       "characters after the '/' are not all "
				       "decimal numbers: '%s' for archive member "
				       "header at offset %zu)",
				       show(s, raw + 1, digits, ESCAPED), at);
		if (v >= r->strtab_len)
			return err_bad(e, MALFORMED "long name offset %" PRIu64
				       " past the end of the string table for "
				       "archive member header at offset %zu)",
				       v, at);
		if (r->kind == AR_GNU || r->kind == AR_GNU64) {
			/* "name/\n"; a name may hold a '/', never a '\n'. */
			const uint8_t *nl = memchr(table + v, '\n',
						   r->strtab_len - v);
			size_t end = nl ? (size_t)(nl - table) : 0;

			if (!nl || end < 1 || table[end - 1] != '/')
				return err_bad(e, MALFORMED "string table at "
					       "long name offset %" PRIu64
					       " not terminated)", v);
			*name = (const char *)table + v;
			*len = end - 1 > v ? end - 1 - v : 0;
			return 0;
		}
		/* COFF and BSD tables hold C strings.  LLVM reads on past the
		 * table for one without a NUL; this stops at its end. */
		{
			const uint8_t *nul = memchr(table + v, '\0',
						    r->strtab_len - v);

			if (!nul)
				return err_bad(e, MALFORMED "string table at "
					       "long name offset %" PRIu64
					       " not terminated)", v);
			*name = (const char *)table + v;
			*len = (size_t)(nul - (table + v));
			return 0;
		}
	}
	if (starts(raw, raw_len, "#1/")) {
		digits = rtrim(raw + 3, raw_len - 3, ' ');
		if (!parse_uint(raw + 3, digits, 10, &v))
			return err_bad(e, MALFORMED "long name length characters"
				       " after the #1/ are not all decimal "
				       "numbers: '%s' for archive member header "
				       "at offset %zu)",
				       show(s, raw + 3, digits, ESCAPED), at);
		if (avail < AR_HEADER_LEN || v > avail - AR_HEADER_LEN)
			return err_cut(e, MALFORMED "long name length: %" PRIu64
				       " extends past the end of the member or "
				       "archive for archive member header at "
				       "offset %zu)", v, at);
		*name = (const char *)r->buf + at + AR_HEADER_LEN;
		*len = rtrim(r->buf + at + AR_HEADER_LEN, (size_t)v, '\0');
		return 0;
	}
	if (raw[raw_len - 1] != '/')
		*len = rtrim(raw, raw_len, ' ');
	else
		*len = raw_len - 1;
	return 0;
}

/* "for <name>" or, when the name itself is unreadable, "at offset N". */
static const char *where(const struct ar_reader *r, size_t at, uint64_t avail,
			 const char *for_word, char *out)
{
	const char *name;
	size_t len;
	char s[SHOW_MAX];

	if (member_name(r, at, avail, &name, &len, NULL) < 0)
		snprintf(out, SHOW_MAX + 32, "at offset %zu", at);
	else
		snprintf(out, SHOW_MAX + 32, "%s%s", for_word,
			 show(s, name, len, RAW));
	return out;
}

/* The checks of LLVM's Child constructor: a whole header, its terminator,
 * its raw name, its size, and a BSD name length. */
static int read_header(const struct ar_reader *r, size_t at, struct hdr *h,
		       struct err *e)
{
	const uint8_t *f = r->buf + at;
	size_t avail = r->len - at, digits;
	char w[SHOW_MAX + 32], s[SHOW_MAX];

	memset(h, 0, sizeof(*h));
	h->at = at;
	if (avail < AR_HEADER_LEN)
		return err_cut(e, MALFORMED "remaining size of archive too "
			       "small for next archive member header %s)",
			       where(r, at, avail, "for ", w));
	if (f[TERM_AT] != '`' || f[TERM_AT + 1] != '\n')
		return err_bad(e, MALFORMED "terminator characters in archive "
			       "member \"%s\" not the correct \"`\\n\" values "
			       "for the archive member header %s)",
			       show(s, f + TERM_AT, 2, ESCAPED),
			       where(r, at, avail, "for ", w));
	if (raw_name(r, at, &h->raw, &h->raw_len, e) < 0)
		return -1;
	h->thin = r->thin && !is(h->raw, h->raw_len, "/") &&
		  !is(h->raw, h->raw_len, "//") &&
		  !is(h->raw, h->raw_len, "/SYM64/");
	digits = rtrim(f + SIZE_AT, SIZE_LEN, ' ');
	if (!parse_uint(f + SIZE_AT, digits, 10, &h->size))
		return err_bad(e, MALFORMED "characters in size field in "
			       "archive member header are not all decimal "
			       "numbers: '%s' for the archive member header at "
			       "offset %zu)", show(s, f + SIZE_AT, digits, RAW),
			       at);
	h->start = AR_HEADER_LEN;
	if (starts(h->raw, h->raw_len, "#1/")) {
		uint64_t name_len;

		digits = rtrim(h->raw + 3, h->raw_len - 3, ' ');
		if (!parse_uint(h->raw + 3, digits, 10, &name_len))
			return err_bad(e, MALFORMED "long name length characters"
				       " after the #1/ are not all decimal "
				       "numbers: '%s' for archive member header "
				       "at offset %zu)",
				       show(s, h->raw + 3, digits, RAW), at);
		/* A thin member's next header follows its own: the name
		 * bytes LLVM would skip would overlap it. */
		if (h->thin)
			return err_bad(e, MALFORMED "a BSD long name in a thin "
				       "archive for archive member header at "
				       "offset %zu)", at);
		/* Checked against the size by member_name. */
		h->start += name_len;
	}
	return 0;
}

/* Bytes from the header that belong to the member, within the buffer. */
static uint64_t span(const struct ar_reader *r, const struct hdr *h)
{
	uint64_t want = AR_HEADER_LEN + (h->thin ? 0 : h->size);

	return want < r->len - h->at ? want : r->len - h->at;
}

/* Where the next header starts: after the data padded to an even length.
 * LLVM's getNext refuses a member that runs past the end, or whose
 * padding byte is missing at the end of the file. */
static int member_end(const struct ar_reader *r, const struct hdr *h,
		      size_t *next, struct err *e)
{
	uint64_t n = AR_HEADER_LEN + (h->thin ? 0 : h->size);
	char w[SHOW_MAX + 32];

	n += n & 1;
	if (n > r->len - h->at && r->says_offsets)
		return err_cut(e, MALFORMED "offset to next archive member "
			       "(0x%llx) past the end of the archive (size "
			       "0x%zx) after member %s)",
			       (unsigned long long)(h->at + n), r->len,
			       where(r, h->at, span(r, h), "", w));
	if (n > r->len - h->at)
		return err_cut(e, MALFORMED "offset to next archive member "
			       "past the end of the archive after member %s)",
			       where(r, h->at, span(r, h), "", w));
	*next = h->at + (size_t)n;
	return 0;
}

/* A special member's bytes; member_end has checked they are inside. */
static void special(const struct hdr *h, size_t *off, size_t *len)
{
	*off = h->at + (size_t)h->start;
	*len = (size_t)(h->size - (h->start - AR_HEADER_LEN));
}

/* Step past the member at *at; false at the end of the archive. */
static int step(struct ar_reader *r, const struct hdr *h, size_t *at,
		struct err *e)
{
	if (member_end(r, h, at, e) < 0)
		return -1;
	return *at < r->len;
}

/* Step past the special member h at *at, noting where its data is, and
 * read the header after it into h: 1, or 0 at the end of the archive, -1
 * on error. */
static int past_special(struct ar_reader *r, struct hdr *h, size_t *at,
			size_t *off, size_t *len, struct err *e)
{
	int more = step(r, h, at, e);

	if (more < 0)
		return -1;
	special(h, off, len);
	if (!more)
		return 0;
	return read_header(r, *at, h, e) < 0 ? -1 : 1;
}

/* A BSD symbol table member h at at: where it is, and the first member
 * after it. */
static int bsd_symtab(struct ar_reader *r, const struct hdr *h, size_t at,
		      struct err *e)
{
	int more;

	if (h->thin)
		return err_bad(e, MALFORMED "a thin archive's symbol table "
			       "cannot be an outside file)");
	if ((more = step(r, h, &at, e)) < 0)
		return -1;
	special(h, &r->symtab_off, &r->symtab_len);
	r->next = more ? at : r->len;
	return 0;
}

/* A BSD or Darwin archive, its first member h at at: 1 when it is one
 * (r read), 0 when it is not, -1 on error. */
static int open_bsd(struct ar_reader *r, const struct hdr *h, size_t at,
		    struct err *e)
{
	const char *name;
	size_t name_len;

	if (is(h->raw, h->raw_len, "__.SYMDEF") ||
	    is(h->raw, h->raw_len, "__.SYMDEF_64")) {
		r->kind = h->raw_len == 9 ? AR_BSD : AR_DARWIN64;
		return bsd_symtab(r, h, at, e) < 0 ? -1 : 1;
	}
	if (!starts(h->raw, h->raw_len, "#1/"))
		return 0;
	r->kind = AR_BSD;
	if (member_name(r, at, span(r, h), &name, &name_len, e) < 0)
		return -1;
	if (is((const uint8_t *)name, name_len, "__.SYMDEF SORTED") ||
	    is((const uint8_t *)name, name_len, "__.SYMDEF"))
		return bsd_symtab(r, h, at, e) < 0 ? -1 : 1;
	if (is((const uint8_t *)name, name_len, "__.SYMDEF_64 SORTED") ||
	    is((const uint8_t *)name, name_len, "__.SYMDEF_64")) {
		r->kind = AR_DARWIN64;
		return bsd_symtab(r, h, at, e) < 0 ? -1 : 1;
	}
	r->next = at;
	return 1;
}

/* COFF, after its first "/" member h at at: the second "/" is the symbol
 * map LLVM reads symbols from, then "//" and "/<ECSYMBOLS>/" may come. */
static int open_coff(struct ar_reader *r, struct hdr *h, size_t at,
		     struct err *e)
{
	int more;

	r->kind = AR_COFF;
	more = past_special(r, h, &at, &r->symtab_off, &r->symtab_len, e);
	if (more <= 0)
		return more;
	if (is(h->raw, h->raw_len, "//") &&
	    (more = past_special(r, h, &at, &r->strtab_off, &r->strtab_len,
				 e)) <= 0)
		return more;
	if (is(h->raw, h->raw_len, "/<ECSYMBOLS>/")) {
		if ((more = step(r, h, &at, e)) < 0)
			return -1;
		if (!more)
			return 0;
	}
	r->next = at;
	return 0;
}

/* The front of the archive, as LLVM's Archive constructor reads it: which
 * flavour, where the symbol and long-name tables are, where the first
 * ordinary member starts. */
int ar_open(struct ar_reader *r, const uint8_t *buf, size_t len,
	    struct err *e)
{
	struct hdr h;
	size_t at = AR_MAGIC_LEN;
	bool has64;
	int more;

	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
	r->kind = AR_GNU;
	r->next = len;
	if (len >= AR_MAGIC_LEN && !memcmp(buf, AR_THIN_MAGIC, AR_MAGIC_LEN))
		r->thin = true;
	else if (len >= AR_MAGIC_LEN && !memcmp(buf, "<bigaf>\n", AR_MAGIC_LEN))
		return err_bad(e, "AIX big archives are not supported");
	else if (len < AR_MAGIC_LEN || memcmp(buf, AR_MAGIC, AR_MAGIC_LEN))
		return err_cut(e, "file too small to be an archive");
	if (len == AR_MAGIC_LEN)
		return 0;

	if (read_header(r, at, &h, e) < 0)
		return -1;
	if ((more = open_bsd(r, &h, at, e)) != 0)
		return more < 0 ? -1 : 0;

	has64 = is(h.raw, h.raw_len, "/SYM64/");
	if ((has64 || is(h.raw, h.raw_len, "/")) &&
	    (more = past_special(r, &h, &at, &r->symtab_off, &r->symtab_len,
				 e)) <= 0)
		return more;
	if (is(h.raw, h.raw_len, "//")) {
		r->kind = has64 ? AR_GNU64 : AR_GNU;
		if ((more = step(r, &h, &at, e)) < 0)
			return -1;
		special(&h, &r->strtab_off, &r->strtab_len);
		r->next = more ? at : len;
		return 0;
	}
	if (h.raw[0] != '/') {
		r->kind = has64 ? AR_GNU64 : AR_GNU;
		r->next = at;
		return 0;
	}
	if (!is(h.raw, h.raw_len, "/"))
		return err_bad(e, "Invalid data was encountered while parsing "
			       "the file");
	return open_coff(r, &h, at, e);
}

int ar_next(struct ar_reader *r, struct ar_member *m, struct err *e)
{
	struct hdr h;
	size_t next = 0;

	if (r->next >= r->len)
		return 0;
	if (read_header(r, r->next, &h, e) < 0 ||
	    member_name(r, h.at, span(r, &h), &m->name, &m->name_len, e) < 0 ||
	    member_end(r, &h, &next, e) < 0)
		return -1;
	m->header = h.at;
	m->thin = h.thin;
	m->offset = h.thin ? 0 : h.at + h.start;
	m->size = h.thin ? h.size : h.size - (h.start - AR_HEADER_LEN);
	r->next = next;
	return 1;
}

static int number_field(const struct ar_member *m, const uint8_t *f,
			size_t len, unsigned radix, const char *what,
			bool empty_is_zero, uint64_t *out, struct err *e)
{
	size_t n = rtrim(f, len, ' ');
	char s[SHOW_MAX];

	if (!n && empty_is_zero) {
		*out = 0;
		return 0;
	}
	if (!parse_uint(f, n, radix, out))
		return err_bad(e, MALFORMED "characters in %s field in archive "
			       "member header are not all %s numbers: '%s' "
			       "for the archive member header at offset %"
			       PRIu64 ")", what, radix == 8 ? "octal" :
			       "decimal", show(s, f, n, RAW), m->header);
	return 0;
}

int ar_member_attrs(const struct ar_reader *r, const struct ar_member *m,
		    struct ar_attrs *a, struct err *e)
{
	const uint8_t *f;
	uint64_t uid, gid, mode;

	if (m->header > r->len || r->len - m->header < AR_HEADER_LEN)
		return err_cut(e, "archive member header at offset %" PRIu64
			       " is not inside the archive", m->header);
	f = r->buf + m->header;
	if (number_field(m, f + DATE_AT, DATE_LEN, 10, "LastModified", false,
			 &a->mtime, e) < 0 ||
	    number_field(m, f + UID_AT, UID_LEN, 10, "UID", true, &uid, e) < 0 ||
	    number_field(m, f + GID_AT, GID_LEN, 10, "GID", true, &gid, e) < 0 ||
	    number_field(m, f + MODE_AT, MODE_LEN, 8, "AccessMode", false,
			 &mode, e) < 0)
		return -1;
	/* LLVM keeps these as unsigned (32 bits). */
	a->uid = (uint32_t)uid;
	a->gid = (uint32_t)gid;
	a->mode = (uint32_t)mode;
	return 0;
}

static uint64_t get_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

#define BADSYM "malformed archive symbol table: "

/* GNU and GNU64: count, one member offset per symbol, then the names in
 * the same order, NUL-terminated (big-endian, 4 or 8 bytes). */
static int gnu_symbols(const uint8_t *t, size_t len, unsigned w,
		       ar_symbol_fn *each, void *ctx, struct err *e)
{
	uint64_t count;
	size_t pos;
	int rc;

	if (len < w)
		return err_cut(e, BADSYM "%zu bytes cannot hold its count",
			       len);
	count = get_be(t, w);
	if (count > (len - w) / w)
		return err_cut(e, BADSYM "%" PRIu64 " symbols do not fit in "
			       "%zu bytes", count, len);
	pos = w + (size_t)count * w;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *nul = memchr(t + pos, '\0', len - pos);

		if (!nul)
			return err_cut(e, BADSYM "the name of symbol %" PRIu64
				       " runs past its end", i);
		rc = each(ctx, (const char *)t + pos, (size_t)(nul - (t + pos)),
			  get_be(t + w + i * w, w));
		if (rc)
			return rc;
		pos = (size_t)(nul - t) + 1;
	}
	return 0;
}

/* BSD and Darwin64: byte count of the ranlib array, ranlibs (name offset,
 * member offset), byte count of the names, the names (little-endian). */
static int bsd_symbols(const uint8_t *t, size_t len, unsigned w,
		       ar_symbol_fn *each, void *ctx, struct err *e)
{
	uint64_t bytes, count, names_len, strx;
	size_t names;
	int rc;

	if (len < w)
		return err_cut(e, BADSYM "%zu bytes cannot hold its size",
			       len);
	bytes = get_le(t, w);
	count = bytes / (2 * w);
	if (count > (len - w) / (2 * w) ||
	    len - w - count * 2 * w < w)
		return err_cut(e, BADSYM "%" PRIu64 " symbols do not fit in "
			       "%zu bytes", count, len);
	names = w + (size_t)count * 2 * w;
	names_len = get_le(t + names, w);
	names += w;
	if (names_len > len - names)
		names_len = len - names;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *p = t + w + i * 2 * w, *nul;

		strx = get_le(p, w);
		nul = strx < names_len ?
		      memchr(t + names + strx, '\0', names_len - strx) : NULL;
		if (!nul)
			return err_bad(e, BADSYM "the name of symbol %" PRIu64
				       " is not inside its string table", i);
		rc = each(ctx, (const char *)t + names + strx,
			  (size_t)(nul - (t + names + strx)),
			  get_le(p + w, w));
		if (rc)
			return rc;
	}
	return 0;
}

/* COFF: member count, member offsets, symbol count, a 1-based member
 * index per symbol (16 bits), the names (all little-endian). */
static int coff_symbols(const uint8_t *t, size_t len, ar_symbol_fn *each,
			void *ctx, struct err *e)
{
	uint64_t members, count;
	size_t pos;
	int rc;

	if (len < 4 || (members = get_le(t, 4)) > (len - 4) / 4 ||
	    len - 4 - members * 4 < 4)
		return err_cut(e, BADSYM "the member table does not fit in "
			       "%zu bytes", len);
	pos = 4 + (size_t)members * 4;
	count = get_le(t + pos, 4);
	pos += 4;
	if (count > (len - pos) / 2)
		return err_cut(e, BADSYM "%" PRIu64 " symbols do not fit in "
			       "%zu bytes", count, len);
	{
		size_t index = pos;

		pos += (size_t)count * 2;
		for (uint64_t i = 0; i < count; i++) {
			uint64_t k = get_le(t + index + i * 2, 2);
			const uint8_t *nul = memchr(t + pos, '\0', len - pos);

			if (!k || k > members)
				return err_bad(e, BADSYM "symbol %" PRIu64
					       " names member %" PRIu64 " of %"
					       PRIu64, i, k, members);
			if (!nul)
				return err_cut(e, BADSYM "the name of symbol %"
					       PRIu64 " runs past its end", i);
			rc = each(ctx, (const char *)t + pos,
				  (size_t)(nul - (t + pos)),
				  get_le(t + 4 + (k - 1) * 4, 4));
			if (rc)
				return rc;
			pos = (size_t)(nul - t) + 1;
		}
	}
	return 0;
}

int ar_symbols(const struct ar_reader *r, ar_symbol_fn *each, void *ctx,
	       struct err *e)
{
	const uint8_t *t = r->buf + r->symtab_off;
	size_t len = r->symtab_len;

	if (!len)
		return 0;
	switch (r->kind) {
	case AR_GNU:
		return gnu_symbols(t, len, 4, each, ctx, e);
	case AR_GNU64:
		return gnu_symbols(t, len, 8, each, ctx, e);
	case AR_BSD:
		return bsd_symbols(t, len, 4, each, ctx, e);
	case AR_DARWIN64:
		return bsd_symbols(t, len, 8, each, ctx, e);
	case AR_COFF:
		return coff_symbols(t, len, each, ctx, e);
	}
	return 0;
}

struct headers {
	uint64_t *at;
	size_t n;
	struct err *e;
};

static int symbol_points_at_member(void *ctx, const char *name, size_t len,
				   uint64_t member)
{
	struct headers *h = ctx;
	size_t lo = 0, hi = h->n;
	char s[SHOW_MAX];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->at[mid] < member)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->n && h->at[lo] == member)
		return 0;
	return err_bad(h->e, BADSYM "symbol '%s' points at offset %" PRIu64
		       ", which is no member's header", show(s, name, len, RAW),
		       member);
}

int ar_validate(const uint8_t *buf, size_t len, struct err *e)
{
	struct ar_reader r;
	struct ar_member m;
	struct ar_attrs a;
	struct headers h = { NULL, 0, e };
	size_t cap = 0;
	int rc;

	if (ar_open(&r, buf, len, e) < 0)
		return -1;
	while ((rc = ar_next(&r, &m, e)) > 0) {
		if (ar_member_attrs(&r, &m, &a, e) < 0) {
			rc = -1;
			break;
		}
		if (h.n == cap) {
			uint64_t *p;

			cap = cap ? 2 * cap : 64;
			p = realloc(h.at, cap * sizeof(*h.at));
			if (!p) {
				rc = err_nomem(e);
				break;
			}
			h.at = p;
		}
		h.at[h.n++] = m.header;
	}
	if (rc == 0)
		rc = ar_symbols(&r, symbol_points_at_member, &h, e) ? -1 : 0;
	free(h.at);
	return rc;
}
