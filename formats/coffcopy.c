/* coffcopy: a COFF object rewritten as llvm-objcopy 22 rewrites it; see
 * coffcopy.h.  The rules were read from LLVM's COFF reader and writer
 * (llvm/lib/ObjCopy/COFF) and checked against llvm-objcopy's output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "coffcopy.h"
#include "../core/bytes.h"
#include "../core/strtab.h"
#include "../core/io_in.h"
#include "../core/io_write.h"

enum {
	SCN_CNT_CODE = 0x20,
	SCN_LNK_REMOVE = 0x800,
	SCN_ALIGN_MASK = 0x00f00000,
	SCN_NRELOC_OVFL = 0x01000000,
	SCN_MEM_READ = 0x40000000,
	CLASS_EXTERNAL = 2,
	CLASS_STATIC = 3,
	CLASS_FILE = 103,
	CLASS_WEAK_EXTERNAL = 105,
	COMDAT_ASSOCIATIVE = 5,
	MAX_SECTIONS16 = 65279,
	HEADER = 20, BIGOBJ_HEADER = 56, SECTION = 40, RELOC = 10, AUX = 18,
	NAME = 8,
};

struct sec {
	const char *name;
	size_t name_len;
	const uint8_t *hdr;		/* in the input; NULL when added */
	const uint8_t *data;		/* its bytes (data_len of raw_size) */
	uint64_t data_len;
	uint8_t *owned;			/* data rewritten here (symbol indices) */
	const struct io_in *from;
	const uint8_t *rel;		/* its relocations in the input */
	uint64_t nrel;
	uint32_t vsize, va, raw_size, chars;
	uint32_t ptr_raw, ptr_rel;
	uint32_t index;			/* in the output, from 1 */
	bool removed, removing;
};

struct sym {
	const uint8_t *p;		/* its entry in the input */
	const char *name;
	size_t name_len;
	const char *file;		/* a .file record's name, NULs cut */
	size_t file_len;
	int32_t secnum;			/* as read: > 0 a section, else special */
	int32_t assoc;			/* associated comdat section, or 0 */
	uint64_t weak;			/* weak-external target + 1, or 0 */
	uint64_t old_raw, new_raw;
	uint8_t sclass, naux_in, naux;
	bool removed;
};

struct copy {
	const uint8_t *buf;
	size_t len;
	struct coff_header h;
	struct sec *sec;
	size_t nsec_in, nsec;		/* the input's; with the added */
	struct sym *sym;
	size_t nsym;
	uint64_t *slot;			/* input raw index -> symbol + 1 (0: aux) */
	uint64_t nraw, nraw_out;	/* raw entries, symbols and records */
	unsigned symsize;		/* the output's */
};

static bool want_all(void *ctx, const char *name, size_t name_len)
{
	(void)ctx;
	(void)name;
	(void)name_len;
	return true;
}

static int note_section(void *ctx, const struct coff_section *s,
			struct err *e)
{
	struct copy *c = ctx;
	struct sec *sec = &c->sec[s->index - 1];

	(void)e;
	sec->name = s->name;
	sec->name_len = s->name_len;
	return 0;
}

static int read_sections(struct copy *c, struct err *e)
{
	uint16_t machine;
	bool bigobj;

	if (coff_sections(c->buf, c->len, want_all, note_section, c, &machine,
			  &bigobj, e) < 0)
		return -1;
	for (size_t i = 0; i < c->nsec_in; i++) {
		struct sec *s = &c->sec[i];
		const uint8_t *h = c->buf + c->h.table + i * SECTION;
		uint64_t ptr = get_le(h + 20, 4), rel = get_le(h + 24, 4);

		s->hdr = h;
		s->vsize = (uint32_t)get_le(h + 8, 4);
		s->va = (uint32_t)get_le(h + 12, 4);
		s->raw_size = (uint32_t)get_le(h + 16, 4);
		s->chars = (uint32_t)get_le(h + 36, 4);
		s->nrel = get_le(h + 32, 2);
		/* Uninitialised data: no bytes in the file, raw_size of zeros
		 * in the output (coff_sections checked the others' bounds). */
		if (ptr) {
			s->data = c->buf + ptr;
			s->data_len = s->raw_size;
		}
		if ((s->chars & SCN_NRELOC_OVFL) && s->nrel == 0xffff) {
			/* The count is in the first relocation. */
			if (rel > c->len || c->len - rel < RELOC ||
			    get_le(c->buf + rel, 4) == 0)
				return err_bad(e, "COFF section %zu has a bad "
					       "extended relocation count", i + 1);
			s->nrel = get_le(c->buf + rel, 4) - 1;
			rel += RELOC;
		}
		s->chars &= ~(uint32_t)SCN_NRELOC_OVFL;
		if (s->nrel && (rel > c->len ||
				s->nrel > (c->len - rel) / RELOC))
			return err_cut(e, "COFF section %zu '%.*s': its %llu "
				       "relocations run past the end of the "
				       "file", i + 1, (int)s->name_len, s->name,
				       (unsigned long long)s->nrel);
		s->rel = c->buf + rel;
	}
	return 0;
}

/* One symbol at raw index raw: its name, section, auxiliary records. */
static int read_symbol(struct copy *c, struct sym *s, uint64_t raw,
		       struct err *e)
{
	bool big = c->h.bigobj;
	const uint8_t *p = c->buf + c->h.symtab + raw * c->h.symsize;
	const uint8_t *aux = p + c->h.symsize;
	uint64_t v;

	s->p = p;
	s->old_raw = raw;
	if (!get_le(p, 4)) {
		uint64_t off = get_le(p + 4, 4);

		if (c->h.strtab_size <= 4 || off >= c->h.strtab_size)
			return err_bad(e, "COFF symbol %llu has its name "
				       "outside the string table",
				       (unsigned long long)raw);
		s->name = (const char *)c->buf + c->h.strtab_at + off;
		s->name_len = strlen(s->name);	/* the table ends in NUL */
	} else {
		s->name = (const char *)p;
		s->name_len = strnlen(s->name, NAME);
	}
	v = get_le(p + 12, big ? 4 : 2);
	/* Plain section numbers above the last possible section are the
	 * negative special ones (-1 absolute, -2 debug). */
	s->secnum = big ? (int32_t)(uint32_t)v :
		    v <= MAX_SECTIONS16 ? (int32_t)v : (int16_t)(uint16_t)v;
	s->sclass = p[big ? 18 : 16];
	s->naux_in = s->naux = p[big ? 19 : 17];
	if (s->naux > c->h.nsym - raw - 1)
		return err_cut(e, "COFF symbol %llu '%.*s': its auxiliary "
			       "records run past the symbol table",
			       (unsigned long long)raw, (int)s->name_len,
			       s->name);
	if (s->secnum > 0 && (uint64_t)s->secnum > c->nsec_in)
		return err_bad(e, "COFF symbol '%.*s': section number out of "
			       "range", (int)s->name_len, s->name);
	if (s->sclass == CLASS_FILE) {
		s->file = (const char *)aux;
		s->file_len = (size_t)s->naux * c->h.symsize;
		while (s->file_len && !s->file[s->file_len - 1])
			s->file_len--;
	} else if (s->naux && (s->sclass == CLASS_STATIC ||
			       (s->sclass == CLASS_EXTERNAL && s->secnum == -1))) {
		/* A section definition: an associative comdat names its
		 * section. */
		if (aux[14] == COMDAT_ASSOCIATIVE) {
			int32_t n = (int32_t)(uint32_t)(get_le(aux + 12, 2) |
				     (big ? get_le(aux + 16, 2) << 16 : 0));

			if (n <= 0 || (uint64_t)n > c->nsec_in)
				return err_bad(e, "COFF symbol '%.*s': unexpected "
					       "associative section index",
					       (int)s->name_len, s->name);
			s->assoc = n;
		}
	} else if (s->naux && s->sclass == CLASS_WEAK_EXTERNAL) {
		s->weak = get_le(aux, 4) + 1;
	}
	return 0;
}

static int read_symbols(struct copy *c, struct err *e)
{
	const struct coff_header *h = &c->h;
	uint64_t raw = 0;

	if (!h->nsym)
		return 0;
	if (!h->symtab || h->symtab > c->len ||
	    h->nsym > (c->len - h->symtab) / h->symsize || !h->strtab_size)
		return err_cut(e, "COFF symbol table (%llu symbols) or its "
			       "string table runs past the end of the file",
			       (unsigned long long)h->nsym);
	c->sym = calloc(h->nsym, sizeof(*c->sym));
	c->slot = calloc(h->nsym, sizeof(*c->slot));
	if (!c->sym || !c->slot)
		return err_nomem(e);
	while (raw < h->nsym) {
		struct sym *s = &c->sym[c->nsym];

		if (read_symbol(c, s, raw, e) < 0)
			return -1;
		c->slot[raw] = ++c->nsym;
		raw += 1 + s->naux;
	}
	c->nraw = raw;
	for (size_t i = 0; i < c->nsym; i++) {
		struct sym *s = &c->sym[i];

		if (s->weak && (s->weak - 1 >= c->nraw || !c->slot[s->weak - 1]))
			return err_bad(e, "COFF symbol '%.*s': its weak external "
				       "target is not a symbol",
				       (int)s->name_len, s->name);
		if (s->weak)
			s->weak = c->slot[s->weak - 1];
	}
	return 0;
}

/* Every relocation names a symbol (not one of its records). */
static int check_relocations(const struct copy *c, struct err *e)
{
	for (size_t i = 0; i < c->nsec_in; i++)
		for (uint64_t r = 0; r < c->sec[i].nrel; r++) {
			uint64_t t = get_le(c->sec[i].rel + r * RELOC + 4, 4);

			if (t >= c->nraw || !c->slot[t])
				return err_bad(e, "COFF section '%.*s': "
					       "relocation %llu names no symbol",
					       (int)c->sec[i].name_len,
					       c->sec[i].name,
					       (unsigned long long)r);
		}
	return 0;
}

/* Remove the sections drop accepts, the symbols defined in them, and the
 * comdat sections associated with them, round after round. */
static void remove_sections(struct copy *c, coff_want_fn *drop, void *ctx)
{
	bool more = false;

	for (size_t i = 0; i < c->nsec_in; i++)
		more |= c->sec[i].removing =
			drop && drop(ctx, c->sec[i].name, c->sec[i].name_len);
	while (more) {
		more = false;
		for (size_t i = 0; i < c->nsec_in; i++)
			if (c->sec[i].removing) {
				c->sec[i].removing = false;
				c->sec[i].removed = true;
			}
		for (size_t i = 0; i < c->nsym; i++) {
			struct sym *s = &c->sym[i];
			struct sec *own = s->secnum > 0 ?
					  &c->sec[s->secnum - 1] : NULL;

			if (s->removed)
				continue;
			if (s->assoc && c->sec[s->assoc - 1].removed && own &&
			    !own->removed) {
				own->removing = true;
				more = true;
			}
			if (own && own->removed)
				s->removed = true;
		}
	}
}

static bool is_symidx_section(const char *name, size_t len)
{
	static const char *const names[] = {
		".gljmp$y", ".giats$y", ".gfids$y", ".gehcont$y",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (len == strlen(names[i]) && !memcmp(name, names[i], len))
			return true;
	return false;
}

/* The output's raw index of the input's, or UINT64_MAX when it went. */
static uint64_t new_raw(const struct copy *c, uint64_t old)
{
	const struct sym *s;

	if (old >= c->nraw || !c->slot[old])
		return UINT64_MAX;
	s = &c->sym[c->slot[old] - 1];
	return s->removed ? UINT64_MAX : s->new_raw;
}

/* Control-flow-guard tables hold symbol indices: renumbered, and their
 * section's checksum (LLVM's JamCRC) recomputed into csum[section]. */
static int rewrite_symidx(struct copy *c, uint32_t *csum, bool *has_csum,
			  struct err *e)
{
	for (size_t i = 0; i < c->nsec_in; i++) {
		struct sec *s = &c->sec[i];
		bool defined = false;

		if (s->removed || !is_symidx_section(s->name, s->name_len) ||
		    !s->data_len)
			continue;
		for (size_t k = 0; k < c->nsym; k++) {
			const struct sym *y = &c->sym[k];

			if (!y->removed && y->sclass == CLASS_STATIC &&
			    y->naux == 1 && !get_le(y->p + 8, 4) &&
			    y->secnum == (int32_t)(i + 1) &&
			    is_symidx_section(y->name, y->name_len))
				defined = true;
		}
		if (!defined || s->data_len % 4)
			return err_bad(e, "COFF section '%.*s' does not have "
				       "the corresponding symbol or the symbol "
				       "has unexpected format",
				       (int)s->name_len, s->name);
		if (!(s->owned = malloc(s->data_len)))
			return err_nomem(e);
		for (uint64_t k = 0; k < s->data_len; k += 4) {
			uint64_t to = new_raw(c, get_le(s->data + k, 4));

			if (to == UINT64_MAX)
				return err_bad(e, "COFF section '%.*s' contains "
					       "a .symidx (%u) that is incorrect "
					       "or was stripped",
					       (int)s->name_len, s->name,
					       (unsigned)get_le(s->data + k, 4));
			put_le(s->owned + k, to, 4);
		}
		s->data = s->owned;
		csum[i] = (uint32_t)crc32(0xffffffffu, s->data,
					  (uInt)s->data_len) ^ 0xffffffffu;
		has_csum[i] = true;
	}
	return 0;
}

/* A long section name's offset in the 8-byte field: "/1234567", or "//"
 * and six base-64 digits past 9999999. */
static int encode_name(uint8_t *field, uint64_t off)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char tmp[NAME + 1];

	memset(field, 0, NAME);
	if (off <= 9999999) {
		int n = snprintf(tmp, sizeof(tmp), "/%u", (unsigned)off);

		memcpy(field, tmp, (size_t)n);
		return 0;
	}
	if (off >= (uint64_t)1 << 36)
		return -1;
	field[0] = field[1] = '/';
	for (int i = 7; i >= 2; i--, off >>= 6)
		field[i] = (uint8_t)b64[off & 63];
	return 0;
}

/* The symbol table as written: each kept symbol and its records. */
static void write_symbols(const struct copy *c, const struct strtab *names,
			  const uint32_t *csum, const bool *has_csum,
			  uint8_t *out)
{
	bool big = c->symsize == 20;

	for (size_t i = 0; i < c->nsym; i++) {
		const struct sym *s = &c->sym[i];
		const uint8_t *p = s->p;
		uint8_t *o = out + s->new_raw * c->symsize;
		uint32_t num;

		if (s->removed)
			continue;
		if (s->name_len > NAME)
			put_le(o + 4, strtab_offset(names, s->name,
						    s->name_len), 4);
		else
			memcpy(o, s->name, s->name_len);
		memcpy(o + 8, p + 8, 4);
		num = s->secnum > 0 ? c->sec[s->secnum - 1].index :
				      (uint32_t)s->secnum;
		put_le(o + 12, num, big ? 4 : 2);
		memcpy(o + (big ? 16 : 14), p + (c->h.bigobj ? 16 : 14), 2);
		o[big ? 18 : 16] = s->sclass;
		o[big ? 19 : 17] = s->naux;
		o += c->symsize;
		if (s->sclass == CLASS_FILE) {
			memcpy(o, s->file, s->file_len);
			continue;
		}
		for (unsigned k = 0; k < s->naux; k++)
			memcpy(o + k * c->symsize,
			       p + c->h.symsize * (1 + k), AUX);
		if (s->naux == 1 && s->sclass == CLASS_STATIC &&
		    s->secnum > 0) {
			uint32_t n = c->sec[s->assoc ? s->assoc - 1 :
					    s->secnum - 1].index;

			put_le(o + 12, n & 0xffff, 2);
			put_le(o + 16, n >> 16, 2);
			if (has_csum[s->secnum - 1] &&
			    is_symidx_section(s->name, s->name_len) &&
			    !get_le(p + 8, 4))
				put_le(o + 8, csum[s->secnum - 1], 4);
		}
		if (s->naux == 1 && s->weak)
			put_le(o, c->sym[s->weak - 1].new_raw, 4);
	}
}

/* Number what stays, check what LLVM's writer checks, and lay it out. */
static int finalize(struct copy *c, struct err *e)
{
	uint64_t raw = 0;
	uint32_t index = 0;

	for (size_t i = 0; i < c->nsec; i++)
		if (!c->sec[i].removed)
			c->sec[i].index = ++index;
	c->symsize = index > MAX_SECTIONS16 ? 20 : 18;
	for (size_t i = 0; i < c->nsym; i++) {
		struct sym *s = &c->sym[i];

		if (s->removed)
			continue;
		if (s->file_len)
			s->naux = (uint8_t)((s->file_len + c->symsize - 1) /
					    c->symsize);
		s->new_raw = raw;
		raw += 1 + s->naux;
	}
	c->nraw_out = raw;
	for (size_t i = 0; i < c->nsym; i++) {
		const struct sym *s = &c->sym[i];

		if (s->removed)
			continue;
		if (s->naux == 1 && s->sclass == CLASS_STATIC &&
		    s->secnum > 0 && s->assoc && c->sec[s->assoc - 1].removed)
			return err_bad(e, "symbol '%.*s' is associative to a "
				       "removed section",
				       (int)s->name_len, s->name);
		if (s->naux == 1 && s->weak && c->sym[s->weak - 1].removed)
			return err_bad(e, "symbol '%.*s' is missing its weak "
				       "target", (int)s->name_len, s->name);
	}
	for (size_t i = 0; i < c->nsec_in; i++)
		for (uint64_t r = 0; !c->sec[i].removed && r < c->sec[i].nrel;
		     r++) {
			uint64_t t = get_le(c->sec[i].rel + r * RELOC + 4, 4);
			const struct sym *s = &c->sym[c->slot[t] - 1];

			if (s->removed)
				return err_bad(e, "relocation target '%.*s' "
					       "(%llu) not found",
					       (int)s->name_len, s->name,
					       (unsigned long long)
					       (c->slot[t] - 1));
		}
	return 0;
}

static int write_section(struct io_out *out, const struct copy *c,
			 const struct sec *s, struct err *e)
{
	uint64_t pad = s->raw_size - s->data_len;

	if ((s->from ? io_out_copy(out, s->from, 0, s->data_len, e) :
	     s->data_len ? io_out_write(out, s->data, s->data_len, e) : 0) < 0)
		return -1;
	if (pad && (s->chars & SCN_CNT_CODE)) {
		/* int3 after code, as LLVM pads it; a block at a time (an
		 * uninitialised code section of 64 MB took a write a byte). */
		uint8_t int3[4096];

		memset(int3, 0xcc, sizeof(int3));
		for (size_t n; pad; pad -= n) {
			n = pad < sizeof(int3) ? (size_t)pad : sizeof(int3);
			if (io_out_write(out, int3, n, e) < 0)
				return -1;
		}
	} else if (pad && io_out_zeros(out, pad, e) < 0) {
		return -1;
	}
	if (s->nrel >= 0xffff) {
		uint8_t r[RELOC] = { 0 };

		put_le(r, s->nrel + 1, 4);
		if (io_out_write(out, r, RELOC, e) < 0)
			return -1;
	}
	for (uint64_t r = 0; r < s->nrel; r++) {
		uint8_t rel[RELOC];

		memcpy(rel, s->rel + r * RELOC, RELOC);
		put_le(rel + 4, new_raw(c, get_le(rel + 4, 4)), 4);
		if (io_out_write(out, rel, RELOC, e) < 0)
			return -1;
	}
	return 0;
}

/* The long names of the kept sections (first, as LLVM orders them) and
 * symbols into names; *nout, the kept sections.  -1 when out of memory. */
static int collect_names(const struct copy *c, struct strtab *names,
			 uint64_t *nout)
{
	*nout = 0;
	for (size_t i = 0; i < c->nsec; i++)
		if (!c->sec[i].removed && (++*nout, c->sec[i].name_len > NAME) &&
		    strtab_add_first(names, c->sec[i].name,
				     c->sec[i].name_len) < 0)
			return -1;
	for (size_t i = 0; i < c->nsym; i++)
		if (!c->sym[i].removed && c->sym[i].name_len > NAME &&
		    strtab_add(names, c->sym[i].name, c->sym[i].name_len) < 0)
			return -1;
	return strtab_finalize(names);
}

/* Each kept section's data and relocations placed after the headers
 * (head_len bytes); *symtab, where the symbol table follows them. */
static int place_sections(struct copy *c, uint64_t head_len,
			  uint64_t *symtab, struct err *e)
{
	uint64_t at = head_len;

	for (size_t i = 0; i < c->nsec; i++) {
		struct sec *s = &c->sec[i];

		if (s->removed)
			continue;
		s->ptr_raw = s->raw_size ? (uint32_t)at : 0;
		at += s->raw_size;
		s->ptr_rel = s->nrel ? (uint32_t)at : 0;
		at += (s->nrel + (s->nrel >= 0xffff)) * RELOC;
		if (at > UINT32_MAX)
			return err_set(e, "the COFF object would be larger "
				       "than 4 GiB");
	}
	*symtab = at;
	return 0;
}

static void file_header(const struct copy *c, uint8_t *head, bool big,
			uint64_t nout, uint64_t symtab)
{
	if (big) {
		put_le(head + 2, 0xffff, 2);
		put_le(head + 4, 2, 2);
		put_le(head + 6, c->h.machine, 2);
		put_le(head + 8, c->h.timestamp, 4);
		memcpy(head + 12, coff_bigobj_uuid, 16);
		put_le(head + 44, nout, 4);
		put_le(head + 48, symtab, 4);
		put_le(head + 52, c->nraw_out, 4);
	} else {
		put_le(head, c->h.machine, 2);
		put_le(head + 2, nout, 2);
		put_le(head + 4, c->h.timestamp, 4);
		put_le(head + 8, symtab, 4);
		put_le(head + 12, c->nraw_out, 4);
		put_le(head + 18, c->h.characteristics, 2);
	}
}

static int section_headers(const struct copy *c, uint8_t *head, bool big,
			   const struct strtab *names, struct err *e)
{
	for (size_t i = 0; i < c->nsec; i++) {
		const struct sec *s = &c->sec[i];
		uint8_t *h = head + (big ? BIGOBJ_HEADER : HEADER) +
			     (s->index - 1) * SECTION;

		if (s->removed)
			continue;
		if (s->name_len <= NAME)
			memcpy(h, s->name, s->name_len);
		else if (encode_name(h, strtab_offset(names, s->name,
						      s->name_len)) < 0)
			return err_set(e, "COFF string table is greater than "
				       "64GB, unable to encode section name "
				       "offset");
		put_le(h + 8, s->vsize, 4);
		put_le(h + 12, s->va, 4);
		put_le(h + 16, s->raw_size, 4);
		put_le(h + 20, s->ptr_raw, 4);
		put_le(h + 24, s->ptr_rel, 4);
		if (s->hdr) {
			memcpy(h + 28, s->hdr + 28, 4);	/* line numbers */
			memcpy(h + 34, s->hdr + 34, 2);
		}
		put_le(h + 32, s->nrel >= 0xffff ? 0xffff : s->nrel, 2);
		put_le(h + 36, s->chars | (s->nrel >= 0xffff ?
					   SCN_NRELOC_OVFL : 0), 4);
	}
	return 0;
}

static int write_all(struct copy *c, struct io_out *out, struct err *e)
{
	struct strtab names = { .start = 4 };
	bool big = c->symsize == 20;
	uint32_t *csum = calloc(c->nsec_in + 1, sizeof(*csum));
	bool *has_csum = calloc(c->nsec_in + 1, sizeof(*has_csum));
	uint8_t *head = NULL, *tail = NULL;
	uint64_t nout, symtab = 0, tail_len, head_len;
	int rc = -1;

	if (!csum || !has_csum)
		goto nomem;
	if (rewrite_symidx(c, csum, has_csum, e) < 0)
		goto out;
	if (collect_names(c, &names, &nout) < 0)
		goto nomem;
	head_len = (big ? BIGOBJ_HEADER : HEADER) + nout * SECTION;
	if (place_sections(c, head_len, &symtab, e) < 0)
		goto out;
	tail_len = c->nraw_out * c->symsize + names.size;
	if (!(head = calloc(1, head_len)) || !(tail = calloc(1, tail_len)))
		goto nomem;
	file_header(c, head, big, nout, symtab);
	if (section_headers(c, head, big, &names, e) < 0)
		goto out;
	write_symbols(c, &names, csum, has_csum, tail);
	strtab_write(&names, tail + c->nraw_out * c->symsize);
	put_le(tail + c->nraw_out * c->symsize, names.size, 4);

	if (io_out_write(out, head, head_len, e) < 0)
		goto out;
	for (size_t i = 0; i < c->nsec; i++)
		if (!c->sec[i].removed && write_section(out, c, &c->sec[i], e) < 0)
			goto out;
	rc = io_out_write(out, tail, tail_len, e);
	goto out;
nomem:
	err_nomem(e);
out:
	strtab_free(&names);
	free(head);
	free(tail);
	free(csum);
	free(has_csum);
	return rc;
}

/* An existing section's bytes replaced (add->update). */
static int update_section(struct copy *c, const struct coffcopy_add *add,
			  struct err *e)
{
	size_t len = strlen(add->name);

	for (size_t i = 0; i < c->nsec_in; i++) {
		struct sec *s = &c->sec[i];

		if (s->removed || s->name_len != len ||
		    memcmp(s->name, add->name, len))
			continue;
		if (!s->data_len)
			return err_set(e, "section '%s' cannot be updated "
				       "because it does not have contents",
				       add->name);
		if (add->size > s->data_len)
			return err_set(e, "new section cannot be larger than "
				       "previous section");
		if (s->nrel)
			return err_set(e, "section '%s' has relocations: its "
				       "bytes are not replaced", add->name);
		s->data = add->data;
		s->from = add->from;
		s->data_len = s->raw_size = (uint32_t)add->size;
		return 0;
	}
	return err_set(e, "could not find section with name '%s'", add->name);
}

int coffcopy_write(const uint8_t *buf, size_t len, coff_want_fn *drop,
		   void *drop_ctx, const struct coffcopy_add *add, size_t nadd,
		   struct io_out *out, struct err *e)
{
	struct copy c = { .buf = buf, .len = len };
	int rc = -1;

	if (coff_read_header(buf, len, &c.h, e) < 0)
		return -1;
	if (c.h.import_library)
		return err_set(e, "a COFF import library, not an object");
	if (c.h.image)
		return err_set(e, "a PE image, not a COFF object");
	c.nsec_in = c.h.nsec;
	c.nsec = c.nsec_in;
	for (size_t k = 0; k < nadd; k++)
		c.nsec += !add[k].update;
	if (!(c.sec = calloc(c.nsec + 1, sizeof(*c.sec)))) {
		err_nomem(e);
		goto out;
	}
	if (read_sections(&c, e) < 0 || read_symbols(&c, e) < 0 ||
	    check_relocations(&c, e) < 0)
		goto out;
	remove_sections(&c, drop, drop_ctx);
	for (size_t k = 0; k < nadd; k++)
		if (add[k].update && update_section(&c, &add[k], e) < 0)
			goto out;
	for (size_t i = 0; i < c.nsec_in; i++)
		for (size_t k = 0; k < nadd && !c.sec[i].removed; k++)
			if (!add[k].update &&
			    strlen(add[k].name) == c.sec[i].name_len &&
			    !memcmp(add[k].name, c.sec[i].name,
				    c.sec[i].name_len)) {
				c.sec[i].chars = (c.sec[i].chars &
						  SCN_ALIGN_MASK) |
						 SCN_MEM_READ | SCN_LNK_REMOVE;
				break;
			}
	for (size_t k = 0, at = c.nsec_in; k < nadd; k++) {
		struct sec *s;
		const struct sec *last = NULL;

		if (add[k].update)
			continue;
		s = &c.sec[at++];

		for (size_t i = (size_t)(s - c.sec); i-- > 0;)
			if (!c.sec[i].removed) {
				last = &c.sec[i];
				break;
			}
		if (add[k].size > UINT32_MAX) {
			err_set(e, "section '%s' is larger than 4 GiB",
				add[k].name);
			goto out;
		}
		s->name = add[k].name;
		s->name_len = strlen(add[k].name);
		s->data = add[k].data;
		s->from = add[k].from;
		s->data_len = s->vsize = s->raw_size = (uint32_t)add[k].size;
		/* Placed after the last section in memory, as in an image. */
		s->va = last ? last->va + last->vsize : 0;
		s->chars = SCN_MEM_READ | SCN_LNK_REMOVE;
	}
	if (finalize(&c, e) < 0)
		goto out;
	rc = write_all(&c, out, e);
out:
	for (size_t i = 0; c.sec && i < c.nsec; i++)
		free(c.sec[i].owned);
	free(c.sec);
	free(c.sym);
	free(c.slot);
	return rc;
}
