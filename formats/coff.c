/* coff: the section table of a COFF object; see coff.h.  Read by hand:
 * libelf reads only ELF, and no maintained C library reads COFF objects. */
#include <stdlib.h>
#include <string.h>

#include "coff.h"
#include "../core/bytes.h"

const uint8_t coff_bigobj_uuid[16] = {
	0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b,
	0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8,
};

enum { HEADER = 20, BIGOBJ_HEADER = 56, SECTION = 40 };

bool coff_is_bigobj(const uint8_t *buf, size_t len)
{
	return len >= 28 && !memcmp(buf, "\0\0\xff\xff", 4) &&
	       !memcmp(buf + 12, coff_bigobj_uuid, sizeof(coff_bigobj_uuid));
}

bool coff_has_magic(const uint8_t *buf, size_t len)
{
	/* The machine fields LLVM 22's identify_magic takes for a COFF
	 * object, measured: each first byte with every second byte, in an
	 * archive llvm-offload-binary read. */
	static const uint8_t machines[][2] = {
		{ 0x00, 0x00 }, { 0x41, 0xa6 }, { 0x4c, 0x01 }, { 0x4c, 0x02 },
		{ 0x4e, 0xa6 }, { 0x50, 0x01 }, { 0x50, 0x02 }, { 0x64, 0x86 },
		{ 0x64, 0xaa }, { 0x66, 0x01 }, { 0x66, 0x02 }, { 0x68, 0x02 },
		{ 0x83, 0x01 }, { 0x83, 0x02 }, { 0x84, 0x01 }, { 0x84, 0x02 },
		{ 0x90, 0x02 }, { 0xc4, 0x01 }, { 0xc4, 0x02 }, { 0xf0, 0x01 },
		{ 0xf0, 0x02 },
	};

	if (len < 4)
		return false;
	if (!memcmp(buf, "\0\0\xff\xff", 4))
		return coff_is_bigobj(buf, len);
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (!memcmp(buf, machines[i], 2))
			return true;
	return false;
}

/* The string table after the symbols, as LLVM takes it: none at all when
 * anything about it is out of place (LLVM recovers the same way), else its
 * size, at least 4 (some tools write 0), ending in a NUL. */
static uint64_t string_table(const uint8_t *buf, size_t len, uint64_t symtab,
			     uint64_t nsym, unsigned symsize, uint64_t *at)
{
	/* LLVM 22 finds the table in 32-bit arithmetic: a symbol count
	 * whose table size wraps to what fits (0x80000000 symbols of 18
	 * bytes: 0) still has its string table right after (measured). */
	uint32_t table = (uint32_t)(nsym * symsize);
	uint64_t size;

	if (!symtab || symtab > len || table > len - symtab)
		return 0;
	*at = (uint32_t)(symtab + table);
	if (*at > len || len - *at < 4)
		return 0;
	size = get_le(buf + *at, 4);
	if (size > len - *at)
		return 0;
	if (size < 4)
		return 4;
	return size > 4 && buf[*at + size - 1] ? 0 : size;
}

/* "/123" (decimal) or "//AbC" (base 64): an offset into the string table. */
static int name_offset(const char *name, size_t n, uint64_t *off)
{
	uint64_t v = 0;

	if (n >= 2 && name[1] == '/') {
		for (size_t i = 2; i < n; i++) {
			char c = name[i];
			int d = c >= 'A' && c <= 'Z' ? c - 'A' :
				c >= 'a' && c <= 'z' ? c - 'a' + 26 :
				c >= '0' && c <= '9' ? c - '0' + 52 :
				c == '+' ? 62 : c == '/' ? 63 : -1;

			if (d < 0)
				return -1;
			v = v * 64 + (uint64_t)d;
		}
	} else {
		if (n < 2)
			return -1;
		for (size_t i = 1; i < n; i++) {
			if (name[i] < '0' || name[i] > '9')
				return -1;
			v = v * 10 + (uint64_t)(name[i] - '0');
		}
	}
	if (v > UINT32_MAX)
		return -1;
	*off = v;
	return 0;
}

bool coff_is_image(const uint8_t *buf, size_t len)
{
	uint64_t pe;

	if (len < 64 || buf[0] != 'M' || buf[1] != 'Z')
		return false;
	pe = get_le(buf + 60, 4);
	return pe <= len && len - pe >= 4 + HEADER &&
	       !memcmp(buf + pe, "PE\0\0", 4);
}

int coff_read_header(const uint8_t *buf, size_t len, struct coff_header *h,
		     struct err *e)
{
	bool image = coff_is_image(buf, len);
	/* An image's COFF header follows its "PE\0\0" (coff_is_image has
	 * checked it is in the file). */
	uint64_t at = image ? get_le(buf + 60, 4) + 4 : 0;
	const uint8_t *p = buf + at;
	bool big = !image && coff_is_bigobj(buf, len) &&
		   len >= BIGOBJ_HEADER && get_le(buf + 4, 2) >= 2;

	memset(h, 0, sizeof(*h));
	if (len < (big ? BIGOBJ_HEADER : HEADER))
		return err_cut(e, "COFF header cut short (%zu bytes)", len);
	h->bigobj = big;
	h->image = image;
	h->machine = (uint16_t)get_le(p + (big ? 6 : 0), 2);
	h->timestamp = (uint32_t)get_le(p + (big ? 8 : 4), 4);
	h->characteristics = big ? 0 : (uint16_t)get_le(p + 18, 2);
	h->nsec = get_le(p + (big ? 44 : 2), big ? 4 : 2);
	/* 0xffff sections in a plain header marks an import library: LLVM
	 * reads no sections from it. */
	if (!big && !image && h->nsec == 0xffff) {
		h->import_library = true;
		h->nsec = 0;
		return 0;
	}
	h->symtab = get_le(p + (big ? 48 : 8), 4);
	h->nsym = get_le(p + (big ? 52 : 12), 4);
	h->symsize = big ? 20 : 18;
	h->table = big ? BIGOBJ_HEADER : at + HEADER + get_le(p + 16, 2);
	if (image && get_le(p + 16, 2) >= 2 && h->table <= len)
		h->pe32plus = get_le(p + HEADER, 2) == 0x20b;
	if (h->table > len || h->nsec > (len - h->table) / SECTION)
		return err_cut(e, "COFF section table (%llu sections) runs past "
			       "the end of the file",
			       (unsigned long long)h->nsec);
	h->strtab_size = string_table(buf, len, h->symtab, h->nsym, h->symsize,
				      &h->strtab_at);
	if (!h->strtab_size)
		h->strtab_at = 0;
	return 0;
}

int coff_image_layout(const uint8_t *buf, size_t len, uint64_t *image_base,
		      struct coff_image_section **v, size_t *n,
		      struct err *e)
{
	struct coff_header h;
	uint64_t opt;

	*v = NULL;
	*n = 0;
	if (coff_read_header(buf, len, &h, e) < 0)
		return -1;
	if (!h.image || !h.pe32plus)
		return err_bad(e, "not a PE32+ image");
	opt = get_le(buf + 60, 4) + 4 + HEADER;
	if (opt > len || len - opt < 32)
		return err_cut(e, "PE optional header cut short");
	*image_base = get_le(buf + opt + 24, 8);
	*v = calloc(h.nsec ? h.nsec : 1, sizeof(**v));
	if (!*v)
		return err_nomem(e);
	for (uint64_t i = 0; i < h.nsec; i++) {
		const uint8_t *s = buf + h.table + i * SECTION;
		uint64_t vsize = get_le(s + 8, 4), rva = get_le(s + 12, 4);
		uint64_t raw = get_le(s + 16, 4), at = get_le(s + 20, 4);

		if (!vsize)
			vsize = raw;
		if (raw > vsize)
			raw = vsize;
		if (!at)
			raw = 0;
		if (at > len || raw > len - at) {
			free(*v);
			*v = NULL;
			return err_cut(e, "PE section %llu (offset %llu, %llu "
				       "bytes) runs past the end of the file",
				       (unsigned long long)i + 1,
				       (unsigned long long)at,
				       (unsigned long long)raw);
		}
		(*v)[i] = (struct coff_image_section){
			.va = *image_base + rva, .vsize = vsize, .offset = at,
			.raw = raw,
			.characteristics = (uint32_t)get_le(s + 36, 4),
		};
	}
	*n = (size_t)h.nsec;
	return 0;
}

static int walk_sections(const uint8_t *buf, size_t len, coff_want_fn *want,
			 coff_section_fn *each, void *ctx, bool check_bytes,
			 uint16_t *machine, bool *bigobj, struct err *e)
{
	struct coff_header h;
	uint64_t nsec, table, strtab_at, strtab_size;

	if (coff_read_header(buf, len, &h, e) < 0)
		return -1;
	*bigobj = h.bigobj;
	*machine = h.machine;
	nsec = h.nsec;
	table = h.table;
	strtab_at = h.strtab_at;
	strtab_size = h.strtab_size;
	for (uint64_t i = 0; i < nsec; i++) {
		const uint8_t *s = buf + table + i * SECTION;
		uint64_t size = get_le(s + 16, 4), at = get_le(s + 20, 4), off;
		const char *name = (const char *)s;
		size_t name_len = strnlen(name, 8);

		if (name_len && name[0] == '/') {
			if (name_offset(name, name_len, &off) < 0)
				return err_bad(e, "COFF section %llu has an "
					       "invalid name",
					       (unsigned long long)i + 1);
			if (strtab_size <= 4)
				return err_bad(e, "COFF section %llu has a long "
					       "name, but the file has no "
					       "string table",
					       (unsigned long long)i + 1);
			if (off >= strtab_size)
				return err_bad(e, "COFF section %llu has its "
					       "name outside the string table",
					       (unsigned long long)i + 1);
			name = (const char *)buf + strtab_at + off;
			name_len = strlen(name);	/* the table ends in NUL */
		}
		if (!want(ctx, name, name_len))
			continue;
		/* A section without file contents (uninitialised data). */
		if (!at)
			size = 0;
		/* An image's raw data are padded to its file alignment: what
		 * the section holds is its virtual size, as LLVM reads it. */
		if (h.image && get_le(s + 8, 4) < size)
			size = get_le(s + 8, 4);
		if (check_bytes && (at > len || size > len - at))
			return err_cut(e, "COFF section %llu '%.*s' (offset %llu, "
				       "size %llu) runs past the end of the file",
				       (unsigned long long)i + 1, (int)name_len,
				       name, (unsigned long long)at,
				       (unsigned long long)size);
		if (each(ctx, &(struct coff_section){
				.index = (uint32_t)(i + 1), .name = name,
				.name_len = name_len, .offset = at,
				.size = size }, e) < 0)
			return -1;
	}
	return 0;
}

int coff_sections(const uint8_t *buf, size_t len, coff_want_fn *want,
		  coff_section_fn *each, void *ctx, uint16_t *machine,
		  bool *bigobj, struct err *e)
{
	return walk_sections(buf, len, want, each, ctx, true, machine, bigobj,
			     e);
}

int coff_section_names(const uint8_t *buf, size_t len, coff_want_fn *want,
		       coff_section_fn *each, void *ctx, uint16_t *machine,
		       bool *bigobj, struct err *e)
{
	return walk_sections(buf, len, want, each, ctx, false, machine, bigobj,
			     e);
}

const char *coff_llvm_name_error(const uint8_t *buf, size_t len)
{
	struct coff_header h;
	struct err e;

	if (coff_read_header(buf, len, &h, &e) < 0)
		return NULL;
	for (uint64_t i = 0; i < h.nsec; i++) {
		const char *name = (const char *)buf + h.table + i * SECTION;
		size_t name_len = strnlen(name, 8);
		uint64_t off;

		if (!name_len || name[0] != '/')
			continue;
		if (name_offset(name, name_len, &off) < 0)
			return "invalid section name";
		if (h.strtab_size <= 4)
			return "string table empty";
		if (off >= h.strtab_size)
			return "The end of the file was unexpectedly encountered";
	}
	return NULL;
}

static bool want_none(void *ctx, const char *name, size_t name_len)
{
	(void)ctx;
	(void)name;
	(void)name_len;
	return false;
}

bool coff_is_object(const uint8_t *buf, size_t len)
{
	uint16_t machine;
	bool bigobj;
	struct err e;

	return coff_has_magic(buf, len) &&
	       coff_sections(buf, len, want_none, NULL, NULL, &machine,
			     &bigobj, &e) == 0;
}

bool coff_probe(const uint8_t *buf, size_t len)
{
	return coff_has_magic(buf, len) &&
	       (buf[0] || buf[1] || coff_is_bigobj(buf, len) ||
		coff_is_object(buf, len));
}

bool coff_is_readable(const uint8_t *buf, size_t len)
{
	struct coff_header h;
	struct err e;

	return (coff_has_magic(buf, len) || coff_is_image(buf, len)) &&
	       coff_read_header(buf, len, &h, &e) == 0;
}

/* Storage classes and the weak-external search LLVM's symbol flags look
 * at (COFFObjectFile::getSymbolFlags). */
enum {
	SYM_CLASS_EXTERNAL = 2, SYM_CLASS_STATIC = 3, SYM_CLASS_FILE = 103,
	SYM_CLASS_WEAK_EXTERNAL = 105, WEAK_SEARCH_ALIAS = 3,
	SYM_ABSOLUTE = -1, SYM_UNDEFINED = 0,
};

/* The section number as LLVM widens it: 16-bit numbers above 0xfeff are
 * the negative reserved ones. */
static int32_t symbol_section(const uint8_t *s, bool big)
{
	if (big)
		return (int32_t)(uint32_t)get_le(s + 12, 4);
	return (int32_t)(int16_t)(uint16_t)get_le(s + 12, 2);
}

/* isArchiveSymbol for a COFF symbol: global (external or weak external),
 * defined, not a file record or section definition. */
static bool archive_symbol(const uint8_t *s, bool big, const uint8_t *aux,
			   unsigned naux)
{
	unsigned sclass = s[big ? 18 : 16];
	int32_t section = symbol_section(s, big);
	uint32_t value = (uint32_t)get_le(s + 8, 4);

	if (sclass != SYM_CLASS_EXTERNAL && sclass != SYM_CLASS_WEAK_EXTERNAL)
		return false;
	/* A weak external is undefined unless it searches an alias. */
	if (sclass == SYM_CLASS_WEAK_EXTERNAL && naux &&
	    get_le(aux + 4, 4) != WEAK_SEARCH_ALIAS)
		return false;
	/* C++/CLI's absolute externals carry a section definition. */
	if (sclass == SYM_CLASS_EXTERNAL && section == SYM_ABSOLUTE && naux)
		return false;
	return !(sclass == SYM_CLASS_EXTERNAL && section == SYM_UNDEFINED &&
		 value == 0);
}

int coff_archive_symbols(const uint8_t *buf, size_t len,
			 coff_symbol_fn *each, void *ctx, struct err *e)
{
	struct coff_header h;
	uint64_t end;
	int rc;

	if (coff_read_header(buf, len, &h, e) < 0)
		return -1;
	if (h.import_library)
		return err_set(e, "COFF short import objects are not read here");
	if (!h.symtab) {
		if (h.nsym)
			return err_bad(e, "symbol table pointer is 0 but number "
				       "of symbols is nonzero");
		return 0;
	}
	/* LLVM drops the symbols of a table (or string table) it cannot
	 * read, and goes on. */
	if (h.symtab > len || h.nsym > (len - h.symtab) / h.symsize ||
	    !h.strtab_size)
		return 0;
	end = h.symtab + h.nsym * h.symsize;
	for (uint64_t at = h.symtab; at < end;) {
		const uint8_t *s = buf + at;
		unsigned naux = s[h.symsize - 1];
		const uint8_t *aux = naux && end - at >= 2u * h.symsize
				     ? s + h.symsize : NULL;
		const char *name = (const char *)s;
		size_t name_len;

		if (archive_symbol(s, h.bigobj, aux, aux ? naux : 0)) {
			if (!get_le(s, 4)) {
				uint64_t off = get_le(s + 4, 4);

				if (h.strtab_size <= 4)
					return err_bad(e, "string table empty");
				if (off >= h.strtab_size)
					return err_bad(e, "COFF symbol name "
						       "offset %llu is past the "
						       "string table",
						       (unsigned long long)off);
				name = (const char *)buf + h.strtab_at + off;
				name_len = strlen(name); /* the table ends in NUL */
			} else {
				/* All eight bytes unless the last is NUL. */
				name_len = s[7] ? 8 : strlen(name);
			}
			if ((rc = each(ctx, name, name_len)) != 0)
				return rc;
		}
		/* A symbol's records past the table's end end the walk. */
		if ((uint64_t)naux + 1 > (end - at) / h.symsize)
			break;
		at += ((uint64_t)naux + 1) * h.symsize;
	}
	return 0;
}
