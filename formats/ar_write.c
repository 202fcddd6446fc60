/* ar_write: GNU archives byte for byte as LLVM 22's writeArchive writes
 * them for K_GNU (see ar.h for the layout).  Everything but the member
 * data is laid out in memory first, because the symbol table at the front
 * holds the offset of every member; the data is then streamed from the
 * caller's pieces. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/bytes.h"
#include "../core/strmap.h"
#include "ar.h"
#include "ar_write.h"
#include "ar_symbols.h"
#include "../core/io_write.h"

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

/* One entry of a COFF archive's symbol map. */
struct map_entry {
	const char *name;
	size_t len;
	uint16_t member;	/* from 1 */
};

static int by_name(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* A COFF archive's symbol map, or its EC map: each name once. */
struct symmap {
	struct strmap seen;	/* name -> index in e */
	struct map_entry *e;
	size_t n, cap;
};

/* Add name for member (from 1) unless present; with replace, a present
 * name is given to member (std::map's operator[]).  1: added. */
static int map_add(struct symmap *m, const char *name, size_t len,
		   uint16_t member, bool replace)
{
	uint32_t b = strmap_find(&m->seen, name, len);
	struct map_entry *more;

	if (b < m->seen.nb) {
		if (replace)
			m->e[m->seen.b[b].value].member = member;
		return 0;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;

		if (cap > SIZE_MAX / sizeof(*more) ||
		    !(more = realloc(m->e, cap * sizeof(*more))))
			return -1;
		m->e = more;
		m->cap = cap;
	}
	if (strmap_set(&m->seen, name, len, m->n) < 0)
		return -1;
	m->e[m->n++] = (struct map_entry){ name, len, member };
	return 1;
}

/* The import library's descriptors, which LLVM also puts in the EC map. */
static bool import_descriptor(const char *p, size_t len)
{
	static const char suffix[] = "_NULL_THUNK_DATA";
	size_t sl = sizeof(suffix) - 1;

	return (len >= 20 && !memcmp(p, "__IMPORT_DESCRIPTOR_", 20)) ||
	       (len == 24 && !memcmp(p, "__NULL_IMPORT_DESCRIPTOR", 24)) ||
	       (len >= sl && p[0] == 0x7f && !memcmp(p + len - sl, suffix, sl));
}

/* The symbols of the first table: GNU lists every member's; COFF each
 * name once, for the first member defining it, and keeps the names for
 * the map (sorted later); EC members' names go to the EC map instead
 * when ARM64 and EC members meet.  kept[i]: member i's entries in the
 * table. */
static int table_symbols(const struct ar_new_member *m, size_t n, bool coff,
			 struct bytes *names, uint64_t *kept,
			 struct symmap *map, struct symmap *ec)
{
	unsigned seen_ec = 0;
	bool use_ec;

	for (size_t i = 0; i < n; i++)
		seen_ec |= m[i].ec;
	use_ec = coff && seen_ec == (AR_EC_ARM64 | AR_EC_OBJECT);
	for (size_t i = 0; i < n; i++) {
		const char *p = m[i].syms;
		bool to_ec = use_ec && (m[i].ec & AR_EC_OBJECT);

		kept[i] = 0;
		if (!coff) {
			kept[i] = m[i].nsyms;
			if (append(names, m[i].syms, m[i].syms_len))
				return -1;
			continue;
		}
		for (size_t k = 0; k < m[i].nsyms; k++) {
			size_t len = strlen(p);
			int added = map_add(to_ec ? ec : map, p, len,
					    (uint16_t)(i + 1), false);

			if (added < 0)
				return -1;
			if (added && !to_ec) {
				if (append(names, p, len + 1))
					return -1;
				kept[i]++;
				if (use_ec && import_descriptor(p, len) &&
				    map_add(ec, p, len, (uint16_t)(i + 1),
					    true) < 0)
					return -1;
			}
			p += len + 1;
		}
	}
	if (map->n)
		qsort(map->e, map->n, sizeof(*map->e), by_name);
	if (ec->n)
		qsort(ec->e, ec->n, sizeof(*ec->e), by_name);
	return 0;
}

static void symmap_free(struct symmap *m)
{
	strmap_free(&m->seen);
	free(m->e);
}

/* computeECSymbolsSize: count, indices and names, even. */
static uint64_t ec_size(const struct symmap *ec)
{
	uint64_t size = 4;

	for (size_t i = 0; i < ec->n; i++)
		size += 2 + ec->e[i].len + 1;
	return size + (size & 1);
}

/* The "/<ECSYMBOLS>/" member: like the map without the member offsets. */
static int write_ec(struct bytes *b, const char *h, uint64_t size,
		    const struct symmap *ec)
{
	size_t start;
	uint8_t word[4];

	if (append(b, h, AR_HEADER_LEN))
		return -1;
	start = b->len;
	put_le(word, ec->n, 4);
	if (append(b, word, 4))
		return -1;
	for (size_t i = 0; i < ec->n; i++) {
		put_le(word, ec->e[i].member, 2);
		if (append(b, word, 2))
			return -1;
	}
	for (size_t i = 0; i < ec->n; i++)
		if (append(b, ec->e[i].name, ec->e[i].len + 1))
			return -1;
	return b->len - start < size ? append(b, "", 1) : 0;
}

/* computeSymbolMapSize: counts, member offsets, indices and names, even. */
static uint64_t map_size(uint64_t nmembers, const struct map_entry *map,
			 size_t nmap)
{
	uint64_t size = 8 + 4 * nmembers;

	for (size_t i = 0; i < nmap; i++)
		size += 2 + map[i].len + 1;
	return size + (size & 1);
}

/* The symbol map member, header included, appended to b. */
static int write_map(struct bytes *b, const char *h, uint64_t size,
		     const uint64_t *pos, size_t n, uint64_t headers,
		     const struct map_entry *map, size_t nmap)
{
	size_t start;
	uint8_t word[4];

	if (append(b, h, AR_HEADER_LEN))
		return -1;
	start = b->len;
	put_le(word, n, 4);
	if (append(b, word, 4))
		return -1;
	for (size_t i = 0; i < n; i++) {
		put_le(word, headers + pos[i], 4);	/* 32 bits, as LLVM */
		if (append(b, word, 4))
			return -1;
	}
	put_le(word, nmap, 4);
	if (append(b, word, 4))
		return -1;
	for (size_t i = 0; i < nmap; i++) {
		put_le(word, map[i].member, 2);
		if (append(b, word, 2))
			return -1;
	}
	for (size_t i = 0; i < nmap; i++)
		if (append(b, map[i].name, map[i].len + 1))
			return -1;
	return b->len - start < size ? append(b, "", 1) : 0;
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
	/* LLVM's K_COFF (ar.h); the first table's names and each member's
	 * count of them (COFF lists a name once), the symbol and EC maps. */
	bool coff;
	struct bytes symnames;
	uint64_t *kept;
	struct symmap map, ec;
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
		   append(&l->names, l->coff ? "" : "/\n", l->coff ? 1 : 2)) {
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
			return err_nomem(e);
		if (!header_rest(h, l->det ? 0 : m->mtime, l->det ? 0 : m->uid,
				 l->det ? 0 : m->gid, l->det ? 0644 : m->mode,
				 l->size[i]))
			return err_set(e, "a header field of %.*s does not fit",
				       shown, m->name);
		l->pos[i] = at;
		at += AR_HEADER_LEN +
		      (l->thin ? 0 : l->size[i] + (l->size[i] & 1));
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
		return err_nomem(e);
	/* 32-bit offsets are truncated, as LLVM does when told by
	 * SYM64_THRESHOLD to keep them past 4 GiB. */
	for (size_t i = 0; i < l->n; i++) {
		put_be(word, headers + l->pos[i], width);
		for (size_t k = 0; k < l->kept[i]; k++)
			if (append(t, word, width))
				return err_nomem(e);
	}
	if (append(t, l->symnames.p, l->symnames.len))
		return err_nomem(e);
	/* A symbolic member without symbols still gets a table: LLVM fills
	 * the names with three NULs (for old Solaris tools). */
	if ((fill && append(t, filler, sizeof(filler))) ||
	    (t->len & 1 && append(t, filler, 1)))
		return err_nomem(e);
	return 0;
}

/* The magic, the symbol table (and COFF's map), the long-name table,
 * COFF's EC map, the members. */
static int write_out(struct wbuf *w, const struct layout *l,
		     const struct bytes *symtab, uint64_t now, struct err *e)
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
	if (l->ec.n) {
		struct bytes b = { 0 };
		uint64_t size = ec_size(&l->ec);
		char h[AR_HEADER_LEN];
		int rc;

		memcpy(h, "/<ECSYMBOLS>/   ", 16);
		if (!header_rest(h, l->det ? 0 : (int64_t)now, 0, 0, 0, size) ||
		    write_ec(&b, h, size, &l->ec) < 0) {
			free(b.p);
			return err_nomem(e);
		}
		rc = put(w, b.p, b.len, e);
		free(b.p);
		if (rc < 0)
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

/* The per-member arrays of l, for n members.  -1 when out of memory. */
static int layout_alloc(struct layout *l, size_t n)
{
	if (n > SIZE_MAX / AR_HEADER_LEN)
		return -1;
	l->hdr = malloc(n ? n * AR_HEADER_LEN : 1);
	l->size = calloc(n ? n : 1, sizeof(*l->size));
	l->pos = calloc(n ? n : 1, sizeof(*l->pos));
	l->kept = calloc(n ? n : 1, sizeof(*l->kept));
	return l->hdr && l->size && l->pos && l->kept ? 0 : -1;
}

static void layout_free(struct layout *l)
{
	strmap_free(&l->seen);
	free(l->names.p);
	free(l->symnames.p);
	free(l->kept);
	symmap_free(&l->map);
	symmap_free(&l->ec);
	free(l->hdr);
	free(l->size);
	free(l->pos);
}

/* The sizes of the tables before the first member: the symbol table
 * (with GNU's 3-byte filler when it would be empty, *fill), COFF's map
 * and the EC map.  -1 when out of memory. */
static int size_tables(struct layout *l, const struct ar_write_opts *opt,
		       bool *fill, uint64_t *mapsize, uint64_t *ecsize)
{
	if ((opt->flags & AR_WRITE_SYMTAB) &&
	    table_symbols(l->m, l->n, l->coff, &l->symnames, l->kept, &l->map,
			  &l->ec) < 0)
		return -1;
	for (size_t i = 0; i < l->n; i++)
		l->nsyms += l->kept[i];
	l->sym_bytes = l->symnames.len;
	/* COFF writes its table, empty or not, without GNU's filler. */
	*fill = !l->sym_bytes && l->symbolic && !l->coff;
	if (*fill)
		l->sym_bytes = 3;
	*mapsize = l->coff ? map_size(l->n, l->map.e, l->map.n) : 0;
	*ecsize = l->ec.n ? ec_size(&l->ec) : 0;
	return 0;
}

/* 32-bit offsets unless the last member header would start at or past
 * the threshold: then "/SYM64/" and 64-bit ones (*width 8).  A COFF
 * archive that crosses it is written again as GNU with "/SYM64/"
 * (measured: GNU names and symbols, even where GNU's own 32-bit table
 * would fit): 1.  *headers: the bytes before the first member.  -1 with e
 * set when the archive cannot be written. */
static int choose_width(const struct layout *l, const struct ar_write_opts *opt,
			uint64_t strtab_member, uint64_t mapsize,
			uint64_t ecsize, uint64_t *headers, unsigned *width,
			struct err *e)
{
	*width = 4;
	*headers = AR_MAGIC_LEN + AR_HEADER_LEN +
		   symtab_size(l->nsyms, 4, l->sym_bytes) + strtab_member +
		   (l->coff ? AR_HEADER_LEN + mapsize : 0) +
		   (l->ec.n ? AR_HEADER_LEN + ecsize : 0);
	if (!(opt->flags & AR_WRITE_SYMTAB) ||
	    *headers + (l->n ? l->pos[l->n - 1] : 0) < opt->sym64_threshold)
		return 0;
	/* (Measured: only an EC map with symbols in it.) */
	if (l->ec.n) {
		err_set(e, "Archive is too large: ARM64X does not support "
			"archives larger than 4GB");
		return -1;
	}
	if (l->coff)
		return 1;
	*width = 8;
	*headers = AR_MAGIC_LEN + AR_HEADER_LEN +
		   symtab_size(l->nsyms, 8, l->sym_bytes) + strtab_member;
	return 0;
}

int ar_write(struct io_out *o, const struct ar_new_member *m, size_t n,
	     const struct ar_write_opts *opt, struct err *e)
{
	struct layout l = { .m = m, .n = n,
			    .thin = opt->flags & AR_WRITE_THIN,
			    .det = opt->flags & AR_WRITE_DETERMINISTIC };
	struct bytes symtab = { 0 };
	struct wbuf *w = NULL;
	uint64_t headers, strtab_member = 0, mapsize, ecsize;
	unsigned width;
	bool fill, write_symtab;
	int rc = -1, redo_gnu64 = 0;

	/* LLVM's K_COFF, unless its 16-bit member indices cannot count the
	 * members or there is no symbol table. */
	l.coff = opt->kind == AR_COFF && n <= 0xfffe && !l.thin &&
		 (opt->flags & AR_WRITE_SYMTAB);
	w = malloc(sizeof(*w));
	if (layout_alloc(&l, n) < 0 || !w)
		goto nomem;
	w->o = o;
	w->n = 0;
	if (lay_out(&l, e) < 0)
		goto out;
	if (l.names.len)
		strtab_member = AR_HEADER_LEN + l.names.len + (l.names.len & 1);
	if (size_tables(&l, opt, &fill, &mapsize, &ecsize) < 0)
		goto nomem;
	write_symtab = (opt->flags & AR_WRITE_SYMTAB) &&
		       (l.sym_bytes || l.coff);
	redo_gnu64 = choose_width(&l, opt, strtab_member, mapsize, ecsize,
				  &headers, &width, e);
	if (redo_gnu64 < 0)
		goto out;
	if (redo_gnu64) {
		rc = 0;
		goto out;
	}
	if (write_symtab &&
	    symbol_table(&l, &symtab, width, headers, fill, opt->now, e) < 0)
		goto out;
	if (write_symtab && l.coff) {
		char h[AR_HEADER_LEN];

		memcpy(h, "/               ", 16);
		header_rest(h, l.det ? 0 : opt->now, 0, 0, 0, mapsize);
		if (write_map(&symtab, h, mapsize, l.pos, n, headers, l.map.e,
			      l.map.n) < 0)
			goto nomem;
	}
	rc = write_out(w, &l, &symtab, (uint64_t)opt->now, e);
	goto out;

nomem:
	err_nomem(e);
out:
	layout_free(&l);
	free(symtab.p);
	free(w);
	if (redo_gnu64 > 0) {
		struct ar_write_opts gnu = *opt;

		gnu.kind = AR_GNU;
		gnu.sym64_threshold = 0;
		return ar_write(o, m, n, &gnu, e);
	}
	return rc;
}
