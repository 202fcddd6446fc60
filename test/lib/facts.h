/* facts: the JSON pieces of liboffcode's test clients' facts
 * (offcode_ls.c, offcode_walk.c), one object a line as
 * test/lib/ls_facts.py prints them from ls --json.  Header only: the
 * clients are one file each. */
#ifndef TEST_LIB_FACTS_H
#define TEST_LIB_FACTS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <offcode.h>

/* ---- JSON as Python's json.dumps(ensure_ascii=False) writes it, bytes
 * that are no UTF-8 read as Latin-1 (as ls --json reads them) ---- */

static inline size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static inline void put_str(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		size_t len = utf8_len(p + i, n - i);

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\b')
			fputs("\\b", f);
		else if (c == '\f')
			fputs("\\f", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (len) {
			fwrite(p + i, 1, len, f);
			i += len;
			continue;
		} else {	/* its Latin-1 reading, in UTF-8 */
			putc(0xc0 | c >> 6, f);
			putc(0x80 | (c & 0x3f), f);
		}
		i++;
	}
	putc('"', f);
}

static inline void put_key(FILE *f, const char *key)
{
	fputs(",", f);
	put_str(f, key, strlen(key));
	putc(':', f);
}

static inline void put_fields(FILE *f, size_t n,
		       int (*get)(const void *, size_t, struct offcode_field *),
		       const void *of)
{
	bool first = false;

	for (size_t i = 0; i < n; i++) {
		struct offcode_field fl;

		if (get(of, i, &fl))
			return;
		if (fl.type == OFFCODE_FIELD_END) {
			putc('}', f);
			first = false;
			continue;
		}
		if (!first)
			putc(',', f);
		put_str(f, fl.key, strlen(fl.key));
		putc(':', f);
		first = false;
		switch (fl.type) {
		case OFFCODE_FIELD_UINT:
			fprintf(f, "%" PRIu64, fl.number);
			break;
		case OFFCODE_FIELD_HEX:
			fprintf(f, "\"0x%016" PRIx64 "\"", fl.number);
			break;
		case OFFCODE_FIELD_BOOL:
			fputs(fl.number ? "true" : "false", f);
			break;
		case OFFCODE_FIELD_TEXT:
			put_str(f, fl.text, fl.text_len);
			break;
		case OFFCODE_FIELD_OBJECT:
			putc('{', f);
			first = true;
			break;
		case OFFCODE_FIELD_END:
			break;
		}
	}
}

static inline int container_field(const void *c, size_t i, struct offcode_field *f)
{
	return offcode_container_field(c, i, f);
}

static inline int entry_field(const void *e, size_t i, struct offcode_field *f)
{
	return offcode_entry_field(e, i, f);
}

static inline void put_opt(FILE *f, const char *key, bool has, uint64_t v)
{
	put_key(f, key);
	if (has)
		fprintf(f, "%" PRIu64, v);
	else
		fputs("null", f);
}

static inline void put_text(FILE *f, const char *key, const char *s, size_t n)
{
	put_key(f, key);
	put_str(f, s, n);
}

/* The chain of names from the file to input in. */
static inline void put_chain(FILE *f, const offcode_input *in)
{
	const offcode_input *up[64];
	size_t n = 0;

	for (; in && n < 64; in = offcode_input_parent(in))
		up[n++] = in;
	putc('[', f);
	while (n--) {
		size_t len;
		const char *name = offcode_input_name(up[n], &len);

		put_str(f, name, len);
		if (n)
			putc(',', f);
	}
	putc(']', f);
}

/* A name or null. */
static inline void put_name(FILE *f, const char *key, const char *s)
{
	if (s) {
		put_text(f, key, s, strlen(s));
		return;
	}
	put_key(f, key);
	fputs("null", f);
}

/* An ELF, COFF or PE input's "elf", "coff" or "pe" object; nothing for
 * another. */
static inline void put_host(FILE *f, const offcode_input *in)
{
	struct offcode_host h = { .size = sizeof(h) };

	if (offcode_input_host(in, &h))
		return;
	fputs("{\"host\":", f);
	put_chain(f, in);
	put_key(f, h.format);
	if (!strcmp(h.format, "elf"))
		fprintf(f, "{\"class\":%u,\"byte_order\":\"%s\"", h.bits,
			h.big_endian ? "big" : "little");
	else if (!strcmp(h.format, "coff"))
		fprintf(f, "{\"bigobj\":%s", h.bigobj ? "true" : "false");
	else
		fprintf(f, "{\"pe32plus\":%s,\"dll\":%s",
			h.bits == 64 ? "true" : "false",
			h.dll ? "true" : "false");
	if (!strcmp(h.format, "elf")) {
		put_name(f, "type", h.type);
		fprintf(f, ",\"type_number\":%u", h.type_number);
	}
	put_name(f, "machine", h.machine);
	fprintf(f, ",\"machine_number\":%u}}\n", h.machine_number);
}

static inline void put_container(FILE *f, const offcode_container *c)
{
	uint64_t off, sec_off, sec_size;
	unsigned version;
	uint32_t sec;
	bool in_sec = offcode_container_section(c, &sec, NULL, NULL);
	bool has_off = offcode_container_offset(c, &off);
	bool has_version = offcode_container_version(c, &version);

	fputs("{\"input\":", f);
	put_chain(f, offcode_container_input(c));
	put_opt(f, "section", in_sec, sec);
	if (offcode_container_section_extent(c, &sec_off, &sec_size)) {
		put_opt(f, "section_offset", true, sec_off);
		put_opt(f, "section_size", true, sec_size);
	}
	put_opt(f, "number", true, offcode_container_number(c));
	put_text(f, "format", offcode_container_format(c),
		 strlen(offcode_container_format(c)));
	put_opt(f, "offset", has_off, off);
	put_opt(f, "size", true, offcode_container_size(c));
	put_opt(f, "version", has_version, version);
	put_fields(f, offcode_container_field_count(c), container_field, c);
	fputs("}\n", f);
}

static inline void put_entry(FILE *f, const offcode_container *c,
			     const offcode_entry *e)
{
	const char *s;
	size_t len;
	uint64_t off;
	bool has_off;

	fprintf(f, "{\"container\":%u", offcode_container_number(c));
	put_opt(f, "index", true, offcode_entry_index(e));
	s = offcode_entry_id(e, &len);
	put_text(f, "id", s, len);
	s = offcode_entry_offload_kind(e, &len);
	put_text(f, "offload_kind", s, len);
	s = offcode_entry_triple(e, &len);
	put_text(f, "triple", s, len);
	s = offcode_entry_target_id(e, &len);
	put_text(f, "arch", s, len);
	s = offcode_entry_image_kind(e);
	put_text(f, "image_kind", s, s ? strlen(s) : 0);
	put_opt(f, "size", true, offcode_entry_size(e));
	has_off = offcode_entry_offset(e, &off);
	put_opt(f, "offset", has_off, off);
	s = offcode_entry_uri(e);
	put_text(f, "uri", s, s ? strlen(s) : 0);
	put_key(f, "compressed");
	fputs(offcode_entry_compressed(e) ? "true" : "false", f);
	put_fields(f, offcode_entry_field_count(e), entry_field, e);
	s = offcode_entry_processor(e);
	put_text(f, "processor", s, s ? strlen(s) : 0);
	s = offcode_entry_features(e);
	put_text(f, "features", s, s ? strlen(s) : 0);
	fputs("}\n", f);
}

#endif
