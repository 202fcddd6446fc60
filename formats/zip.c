/* zip: archives read and checked, headers made (zip.h). */
#include <stdlib.h>
#include <string.h>

#include "tar.h"
#include "zip.h"
#include "../core/bytes.h"

static const uint8_t LOCAL_SIG[4] = { 'P', 'K', 3, 4 };
static const uint8_t CENTRAL_SIG[4] = { 'P', 'K', 1, 2 };
static const uint8_t EOCD_SIG[4] = { 'P', 'K', 5, 6 };
static const uint8_t EOCD64_SIG[4] = { 'P', 'K', 6, 6 };
static const uint8_t LOCATOR_SIG[4] = { 'P', 'K', 6, 7 };
static const uint8_t DESCRIPTOR_SIG[4] = { 'P', 'K', 7, 8 };
enum {
	/* The end record's comment is at most 65535 bytes. */
	EOCD_SEARCH = ZIP_EOCD_LEN + 0xffff,
	EOCD64_LEN = 56,	/* the ZIP64 end record, version 1 */
	LOCATOR_LEN = 20,
	ZIP64_TAG = 1,		/* the extra field's header ID */
	U32_MAX_FIELD = 0xffffffffu,	/* "in the ZIP64 field" */
};

bool zip_probe(const uint8_t *buf, size_t len)
{
	return len >= 4 && !memcmp(buf, LOCAL_SIG, 4);
}

static int find_eocd(struct zip *z, struct err *e)
{
	size_t lo = z->len > EOCD_SEARCH ? z->len - EOCD_SEARCH : 0;

	if (z->len < ZIP_EOCD_LEN)
		return err_cut(e, "zip archive of %zu bytes has no end record",
			       z->len);
	for (size_t at = z->len - ZIP_EOCD_LEN + 1; at-- > lo;) {
		const uint8_t *p = z->buf + at;

		if (memcmp(p, EOCD_SIG, 4) ||
		    at + ZIP_EOCD_LEN + get_le(p + 20, 2) != z->len)
			continue;
		z->eocd = at;
		return 0;
	}
	return err_cut(e, "zip archive has no end record (cut short?)");
}

/* A field of the end record: its own value, or the ZIP64 end record's
 * where it says so (its all-ones value) or where one is there. */
static int end_field(uint64_t v, uint64_t all_ones, uint64_t v64,
		     bool has64, uint64_t *out, struct err *e)
{
	if (!has64 && v == all_ones)
		return err_code_set(e, ERR_MALFORMED, "zip end record says "
				    "ZIP64 but there is no ZIP64 end record");
	if (has64 && v != all_ones && v != v64)
		return err_code_set(e, ERR_MALFORMED, "zip end record disagrees "
				    "with the ZIP64 end record");
	*out = has64 ? v64 : v;
	return 0;
}

/* The ZIP64 end record, when its locator stands before the end record. */
static int read_eocd64(struct zip *z, uint64_t *entries, uint64_t *size,
		       uint64_t *central, struct err *e)
{
	const uint8_t *loc, *p;
	uint64_t at;

	z->end = z->eocd;
	if (z->eocd < LOCATOR_LEN)
		return 0;
	loc = z->buf + z->eocd - LOCATOR_LEN;
	if (memcmp(loc, LOCATOR_SIG, 4))
		return 0;
	at = get_le(loc + 8, 8);
	if (get_le(loc + 4, 4) || get_le(loc + 16, 4) > 1)
		return err_code_set(e, ERR_MALFORMED, "zip archive spans disks");
	if (at > z->eocd - LOCATOR_LEN ||
	    z->eocd - LOCATOR_LEN - at < EOCD64_LEN ||
	    memcmp(z->buf + at, EOCD64_SIG, 4))
		return err_code_set(e, ERR_MALFORMED, "zip ZIP64 end record at "
				    "%llu is not one", (unsigned long long)at);
	p = z->buf + at;
	/* Its size counts what follows the size field, to the locator. */
	if (get_le(p + 4, 8) != z->eocd - LOCATOR_LEN - at - 12)
		return err_code_set(e, ERR_MALFORMED, "zip ZIP64 end record's "
				    "size disagrees with its place");
	if (get_le(p + 16, 4) || get_le(p + 20, 4) ||
	    get_le(p + 24, 8) != get_le(p + 32, 8))
		return err_code_set(e, ERR_MALFORMED, "zip archive spans disks");
	*entries = get_le(p + 32, 8);
	*size = get_le(p + 40, 8);
	*central = get_le(p + 48, 8);
	z->end = at;
	z->zip64_end = true;
	return 0;
}

static int read_eocd(struct zip *z, struct err *e)
{
	const uint8_t *p;
	uint64_t entries, entries64 = 0, size64 = 0, central64 = 0;

	if (find_eocd(z, e) < 0 ||
	    read_eocd64(z, &entries64, &size64, &central64, e) < 0)
		return -1;
	p = z->buf + z->eocd;
	if (get_le(p + 8, 2) != get_le(p + 10, 2) ||
	    (!z->zip64_end && (get_le(p + 4, 2) || get_le(p + 6, 2))))
		return err_code_set(e, ERR_MALFORMED, "zip archive spans disks");
	if (end_field(get_le(p + 10, 2), 0xffff, entries64, z->zip64_end,
		      &entries, e) < 0 ||
	    end_field(get_le(p + 12, 4), U32_MAX_FIELD, size64, z->zip64_end,
		      &z->central_size, e) < 0 ||
	    end_field(get_le(p + 16, 4), U32_MAX_FIELD, central64,
		      z->zip64_end, &z->central, e) < 0)
		return -1;
	if (z->central > z->end || z->central_size != z->end - z->central)
		return err_code_set(e, ERR_MALFORMED, "zip central directory "
				    "at %llu (%llu bytes) is not before its end "
				    "record at %llu",
				    (unsigned long long)z->central,
				    (unsigned long long)z->central_size,
				    (unsigned long long)z->end);
	/* Each record takes ZIP_CENTRAL_LEN bytes at least. */
	if (entries > z->central_size / ZIP_CENTRAL_LEN)
		return err_code_set(e, ERR_MALFORMED, "zip end record says %llu "
				    "members in a central directory of %llu "
				    "bytes", (unsigned long long)entries,
				    (unsigned long long)z->central_size);
	z->n = (size_t)entries;
	z->entry = calloc(z->n + 1, sizeof(*z->entry));
	z->by_offset = calloc(z->n + 1, sizeof(*z->by_offset));
	if (!z->entry || !z->by_offset)
		return err_nomem(e);
	return 0;
}

/* The ZIP64 field of the extra fields x[0..len): its data, or NULL. */
static const uint8_t *zip64_field(const uint8_t *x, size_t len, size_t *n)
{
	for (size_t at = 0; len - at >= 4;) {
		size_t tag = get_le(x + at, 2), size = get_le(x + at + 2, 2);

		if (size > len - at - 4)
			return NULL;
		if (tag == ZIP64_TAG) {
			*n = size;
			return x + at + 4;
		}
		at += 4 + size;
	}
	return NULL;
}

/* The central record's fields at their all-ones value, read from its
 * ZIP64 field in the specification's order. */
static int central_zip64(struct zip_entry *en, const uint8_t *x, size_t len,
			 struct err *e)
{
	uint64_t *field[3] = { &en->usize, &en->csize, &en->local };
	const uint8_t *f;
	size_t n = 0, at = 0;

	for (int i = 0; i < 3; i++)
		if (*field[i] == U32_MAX_FIELD)
			en->central64 |= (uint8_t)(1 << i);
	if (!en->central64)
		return 0;
	if (!(f = zip64_field(x, len, &n)))
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s' says "
				    "ZIP64 but has no ZIP64 field",
				    (int)en->name_len, en->name);
	for (int i = 0; i < 3; i++) {
		if (!(en->central64 & (1 << i)))
			continue;
		if (n - at < 8)
			return err_code_set(e, ERR_MALFORMED, "zip member "
					    "'%.*s': its ZIP64 field is short",
					    (int)en->name_len, en->name);
		*field[i] = get_le(f + at, 8);
		at += 8;
	}
	return 0;
}

static int read_central(struct zip *z, size_t i, uint64_t *at, struct err *e)
{
	struct zip_entry *en = &z->entry[i];
	const uint8_t *p;
	size_t n, m, k;

	if (*at > z->end || z->end - *at < ZIP_CENTRAL_LEN ||
	    memcmp((p = z->buf + *at), CENTRAL_SIG, 4))
		return err_code_set(e, ERR_MALFORMED, "zip central record %zu "
				    "at %llu is not one", i,
				    (unsigned long long)*at);
	n = get_le(p + 28, 2);
	m = get_le(p + 30, 2);
	k = get_le(p + 32, 2);
	if (z->end - *at - ZIP_CENTRAL_LEN < n + m + k)
		return err_code_set(e, ERR_MALFORMED, "zip central record %zu "
				    "runs into the end record", i);
	en->central = *at;
	en->central_len = ZIP_CENTRAL_LEN + n + m + k;
	en->name = (const char *)p + ZIP_CENTRAL_LEN;
	en->name_len = n;
	en->flags = (uint16_t)get_le(p + 8, 2);
	en->method = (uint16_t)get_le(p + 10, 2);
	en->crc = (uint32_t)get_le(p + 16, 4);
	en->csize = get_le(p + 20, 4);
	en->usize = get_le(p + 24, 4);
	en->local = get_le(p + 42, 4);
	*at += en->central_len;
	if (!n || memchr(en->name, 0, n) || memchr(en->name, '\\', n) ||
	    tar_name_escapes(en->name, n))
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s' is "
				    "outside the root", (int)n, en->name);
	if (en->flags & 1)
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s' is "
				    "encrypted", (int)n, en->name);
	if (get_le(p + 34, 2) == 0xffff)
		return err_code_set(e, ERR_MALFORMED, "zip archive spans disks");
	return central_zip64(en, p + ZIP_CENTRAL_LEN + n, m, e);
}

/* The local header's sizes: its own, or its ZIP64 field's (both sizes,
 * as the specification asks of a local header).  With a ZIP64 field its
 * data descriptor's sizes are 8 bytes each. */
static int local_sizes(struct zip_entry *en, const uint8_t *p, size_t n,
		       size_t m, uint64_t *csize, uint64_t *usize,
		       struct err *e)
{
	size_t len = 0;
	const uint8_t *f = zip64_field(p + ZIP_LOCAL_LEN + n, m, &len);

	*csize = get_le(p + 18, 4);
	*usize = get_le(p + 22, 4);
	en->local64 = f && len >= 16;
	if (*csize != U32_MAX_FIELD && *usize != U32_MAX_FIELD)
		return 0;
	if (!en->local64)
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s': its "
				    "local header says ZIP64 but has no ZIP64 "
				    "sizes", (int)en->name_len, en->name);
	*usize = get_le(f, 8);
	*csize = get_le(f + 8, 8);
	return 0;
}

/* The data descriptor after en's data agrees with the central record:
 * its size told. */
static int read_descriptor(const struct zip *z, const struct zip_entry *en,
			   size_t *len, struct err *e)
{
	const uint8_t *d = z->buf + en->end;
	size_t word = en->local64 ? 8 : 4;
	size_t body = 4 + 2 * word;
	size_t sig = z->central - en->end >= body + 4 &&
		     !memcmp(d, DESCRIPTOR_SIG, 4) ? 4 : 0;

	if (z->central - en->end < body + sig ||
	    get_le(d + sig, 4) != en->crc ||
	    get_le(d + sig + 4, (int)word) != en->csize ||
	    get_le(d + sig + 4 + word, (int)word) != en->usize)
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s': its "
				    "data descriptor disagrees with the "
				    "central directory", (int)en->name_len,
				    en->name);
	*len = body + sig;
	return 0;
}

/* The local header agrees with the central record; the data and the
 * descriptor are inside the archive. */
static int read_local(struct zip *z, struct zip_entry *en, struct err *e)
{
	const uint8_t *p;
	size_t n, m, dlen = 0;
	uint64_t csize = 0, usize = 0;
	bool desc = en->flags & ZIP_FLAG_DESCRIPTOR;

	/* The pointer is made only once the offset is known to be inside:
	 * a ZIP64 offset may be anything. */
	if (en->local > z->central || z->central - en->local < ZIP_LOCAL_LEN ||
	    memcmp((p = z->buf + en->local), LOCAL_SIG, 4))
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s': no "
				    "local header at %llu", (int)en->name_len,
				    en->name, (unsigned long long)en->local);
	n = get_le(p + 26, 2);
	m = get_le(p + 28, 2);
	if (z->central - en->local - ZIP_LOCAL_LEN < n + m)
		return err_cut(e, "zip member '%.*s' runs into the central "
			       "directory", (int)en->name_len, en->name);
	if (n == en->name_len && !memcmp(p + ZIP_LOCAL_LEN, en->name, n) &&
	    local_sizes(en, p, n, m, &csize, &usize, e) < 0)
		return -1;
	if (n != en->name_len || memcmp(p + ZIP_LOCAL_LEN, en->name, n) ||
	    get_le(p + 8, 2) != en->method ||
	    (get_le(p + 6, 2) & ZIP_FLAG_DESCRIPTOR) != (unsigned)desc * 8 ||
	    (!desc && (get_le(p + 14, 4) != en->crc || csize != en->csize ||
		       usize != en->usize)))
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s': the "
				    "central directory disagrees with its local "
				    "header", (int)en->name_len, en->name);
	en->data = en->local + ZIP_LOCAL_LEN + n + m;
	if (en->csize > z->central - en->data)
		return err_cut(e, "zip member '%.*s' runs into the central "
			       "directory", (int)en->name_len, en->name);
	en->end = en->data + en->csize;
	if (desc) {
		if (read_descriptor(z, en, &dlen, e) < 0)
			return -1;
		en->end += dlen;
	}
	return 0;
}

struct at_index {
	uint64_t local;
	size_t i;
};

static int by_local(const void *a, const void *b)
{
	uint64_t x = ((const struct at_index *)a)->local;
	uint64_t y = ((const struct at_index *)b)->local;

	return x < y ? -1 : x > y;
}

/* The members tile the archive up to its central directory: none
 * overlaps another (a zip bomb's entries share their data), nothing lies
 * between them. */
static int check_tiling(struct zip *z, struct err *e)
{
	struct at_index *order = calloc(z->n + 1, sizeof(*order));
	uint64_t at = 0;

	if (!order)
		return err_nomem(e);
	for (size_t i = 0; i < z->n; i++)
		order[i] = (struct at_index){ z->entry[i].local, i };
	qsort(order, z->n, sizeof(*order), by_local);
	for (size_t i = 0; i < z->n; i++)
		z->by_offset[i] = order[i].i;
	free(order);
	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *en = &z->entry[z->by_offset[i]];

		if (en->local != at)
			return err_code_set(e, ERR_MALFORMED, "zip member "
					    "'%.*s' at %llu %s", (int)en->name_len,
					    en->name,
					    (unsigned long long)en->local,
					    en->local < at ? "overlaps the one "
					    "before it" : "leaves bytes no "
					    "member holds before it");
		at = en->end;
	}
	if (at != z->central)
		return err_code_set(e, ERR_MALFORMED, "zip archive has %llu "
				    "bytes no member holds before its central "
				    "directory",
				    (unsigned long long)(z->central - at));
	return 0;
}

int zip_open(struct zip *z, const uint8_t *buf, size_t len, struct err *e)
{
	uint64_t at;

	memset(z, 0, sizeof(*z));
	z->buf = buf;
	z->len = len;
	if (read_eocd(z, e) < 0)
		return -1;
	at = z->central;
	for (size_t i = 0; i < z->n; i++)
		if (read_central(z, i, &at, e) < 0)
			return -1;
	if (at != z->end)
		return err_code_set(e, ERR_MALFORMED, "zip central directory "
				    "holds more than its %zu records", z->n);
	for (size_t i = 0; i < z->n; i++)
		if (read_local(z, &z->entry[i], e) < 0)
			return -1;
	return check_tiling(z, e);
}

void zip_close(struct zip *z)
{
	free(z->entry);
	free(z->by_offset);
	memset(z, 0, sizeof(*z));
}

/* The extra fields x[0..len) copied to out with the ZIP64 field made of
 * the values v[0..nv) (8 bytes each) in the old one's place, or after
 * the others when there was none (none written when nv is 0): the
 * bytes written, or -1 past 65535. */
static long extra_make(const uint8_t *x, size_t len, const uint64_t *v,
		       int nv, uint8_t *out)
{
	size_t at = 0, o = 0;
	bool put = false;

	while (len - at >= 4) {
		size_t tag = get_le(x + at, 2), size = get_le(x + at + 2, 2);

		if (size > len - at - 4)
			break;
		if (tag != ZIP64_TAG) {
			memcpy(out + o, x + at, 4 + size);
			o += 4 + size;
		} else if (nv && !put) {
			put = true;
			put_le(out + o, ZIP64_TAG, 2);
			put_le(out + o + 2, (uint64_t)nv * 8, 2);
			for (int i = 0; i < nv; i++)
				put_le(out + o + 4 + 8 * (size_t)i, v[i], 8);
			o += 4 + 8 * (size_t)nv;
		}
		at += 4 + size;
	}
	/* Bytes too few to be a field: kept as they were. */
	memcpy(out + o, x + at, len - at);
	o += len - at;
	if (nv && !put) {
		put_le(out + o, ZIP64_TAG, 2);
		put_le(out + o + 2, (uint64_t)nv * 8, 2);
		for (int i = 0; i < nv; i++)
			put_le(out + o + 4 + 8 * (size_t)i, v[i], 8);
		o += 4 + 8 * (size_t)nv;
	}
	return o > 0xffff ? -1 : (long)o;
}

static uint32_t field32(uint64_t v, bool in64)
{
	return in64 ? U32_MAX_FIELD : (uint32_t)v;
}

size_t zip_local_make(const struct zip *z, const struct zip_entry *en,
		      uint32_t crc, uint64_t csize, uint64_t usize,
		      uint8_t *out)
{
	const uint8_t *p = z->buf + en->local;
	size_t n = get_le(p + 26, 2), m = get_le(p + 28, 2);
	bool big = en->local64 || csize >= U32_MAX_FIELD ||
		   usize >= U32_MAX_FIELD;
	uint64_t v[2] = { usize, csize };
	long x;

	memcpy(out, p, ZIP_LOCAL_LEN + n);
	if ((x = extra_make(p + ZIP_LOCAL_LEN + n, m, v, big ? 2 : 0,
			    out + ZIP_LOCAL_LEN + n)) < 0)
		return 0;
	put_le(out + 6, get_le(p + 6, 2) & ~(uint64_t)ZIP_FLAG_DESCRIPTOR, 2);
	put_le(out + 14, crc, 4);
	put_le(out + 18, field32(csize, big), 4);
	put_le(out + 22, field32(usize, big), 4);
	put_le(out + 28, (uint64_t)x, 2);
	return ZIP_LOCAL_LEN + n + (size_t)x;
}

size_t zip_central_make(const struct zip *z, const struct zip_entry *en,
			uint32_t crc, uint64_t csize, uint64_t usize,
			uint64_t local, bool clear_descriptor, uint8_t *out)
{
	const uint8_t *p = z->buf + en->central;
	size_t n = get_le(p + 28, 2), m = get_le(p + 30, 2);
	size_t k = get_le(p + 32, 2);
	uint64_t value[3] = { usize, csize, local }, v[3];
	uint8_t in64 = en->central64;
	int nv = 0;
	long x;

	for (int i = 0; i < 3; i++) {
		if (value[i] >= U32_MAX_FIELD)
			in64 |= (uint8_t)(1 << i);
		if (in64 & (1 << i))
			v[nv++] = value[i];
	}
	memcpy(out, p, ZIP_CENTRAL_LEN + n);
	if ((x = extra_make(p + ZIP_CENTRAL_LEN + n, m, v, nv,
			    out + ZIP_CENTRAL_LEN + n)) < 0)
		return 0;
	memcpy(out + ZIP_CENTRAL_LEN + n + (size_t)x,
	       p + ZIP_CENTRAL_LEN + n + m, k);
	if (clear_descriptor)
		put_le(out + 8, get_le(p + 8, 2) &
		       ~(uint64_t)ZIP_FLAG_DESCRIPTOR, 2);
	put_le(out + 16, crc, 4);
	put_le(out + 20, field32(csize, in64 & ZIP64_CSIZE), 4);
	put_le(out + 24, field32(usize, in64 & ZIP64_USIZE), 4);
	put_le(out + 30, (uint64_t)x, 2);
	put_le(out + 42, field32(local, in64 & ZIP64_LOCAL), 4);
	return ZIP_CENTRAL_LEN + n + (size_t)x + k;
}

/* The end record's field at off (width bytes) for value v. */
static uint64_t end_value(const struct zip *z, int off, int width, uint64_t v)
{
	uint64_t ones = width == 2 ? 0xffff : U32_MAX_FIELD;

	return v >= ones || (z->zip64_end &&
			     get_le(z->buf + z->eocd + off, width) == ones)
	       ? ones : v;
}

size_t zip_end_make(const struct zip *z, uint64_t n, uint64_t central,
		    uint64_t size, uint8_t *out)
{
	const uint8_t *old = z->buf + z->eocd;
	size_t comment = z->len - z->eocd - ZIP_EOCD_LEN, o = 0;
	bool big = z->zip64_end || n >= 0xffff || size >= U32_MAX_FIELD ||
		   central >= U32_MAX_FIELD;

	if (big) {
		const uint8_t *was = z->zip64_end ? z->buf + z->end : NULL;

		memcpy(out, EOCD64_SIG, 4);
		put_le(out + 4, EOCD64_LEN - 12, 8);
		/* Made by and needed: 4.5, ZIP64's version, unless the
		 * record said more. */
		put_le(out + 12, was ? get_le(was + 12, 2) : 45, 2);
		put_le(out + 14, was ? get_le(was + 14, 2) : 45, 2);
		put_le(out + 16, 0, 4);
		put_le(out + 20, 0, 4);
		put_le(out + 24, n, 8);
		put_le(out + 32, n, 8);
		put_le(out + 40, size, 8);
		put_le(out + 48, central, 8);
		memcpy(out + EOCD64_LEN, LOCATOR_SIG, 4);
		put_le(out + EOCD64_LEN + 4, 0, 4);
		put_le(out + EOCD64_LEN + 8, central + size, 8);
		put_le(out + EOCD64_LEN + 16, 1, 4);
		o = EOCD64_LEN + LOCATOR_LEN;
	}
	/* A field says "look in the ZIP64 record" where its value needs it
	 * or where the input's did. */
	memcpy(out + o, old, ZIP_EOCD_LEN + comment);
	put_le(out + o + 4, 0, 2);
	put_le(out + o + 6, 0, 2);
	put_le(out + o + 8, end_value(z, 8, 2, n), 2);
	put_le(out + o + 10, end_value(z, 10, 2, n), 2);
	put_le(out + o + 12, end_value(z, 12, 4, size), 4);
	put_le(out + o + 16, end_value(z, 16, 4, central), 4);
	return o + ZIP_EOCD_LEN + comment;
}

int zip_validate(const uint8_t *buf, size_t len, struct err *e)
{
	struct zip z;
	int rc = zip_open(&z, buf, len, e);

	zip_close(&z);
	return rc;
}
