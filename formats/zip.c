/* zip: archives read and checked, header fields set (zip.h). */
#include <stdlib.h>
#include <string.h>

#include "tar.h"
#include "zip.h"
#include "../core/bytes.h"

static const uint8_t LOCAL_SIG[4] = { 'P', 'K', 3, 4 };
static const uint8_t CENTRAL_SIG[4] = { 'P', 'K', 1, 2 };
static const uint8_t EOCD_SIG[4] = { 'P', 'K', 5, 6 };
static const uint8_t DESCRIPTOR_SIG[4] = { 'P', 'K', 7, 8 };
/* The end record's comment is at most 65535 bytes. */
enum { EOCD_SEARCH = ZIP_EOCD_LEN + 0xffff };

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

static int read_eocd(struct zip *z, struct err *e)
{
	const uint8_t *p;
	uint64_t entries;

	if (find_eocd(z, e) < 0)
		return -1;
	p = z->buf + z->eocd;
	entries = get_le(p + 10, 2);
	z->central_size = get_le(p + 12, 4);
	z->central = get_le(p + 16, 4);
	if (get_le(p + 4, 2) || get_le(p + 6, 2) || get_le(p + 8, 2) != entries)
		return err_code_set(e, ERR_MALFORMED, "zip archive spans disks");
	if (entries == 0xffff || z->central_size == 0xffffffff ||
	    z->central == 0xffffffff)
		return err_code_set(e, ERR_MALFORMED, "ZIP64 archives are not "
				    "read");
	if (z->central > z->eocd || z->central_size != z->eocd - z->central)
		return err_code_set(e, ERR_MALFORMED, "zip central directory "
				    "at %llu (%llu bytes) is not before its end "
				    "record at %llu",
				    (unsigned long long)z->central,
				    (unsigned long long)z->central_size,
				    (unsigned long long)z->eocd);
	z->n = (size_t)entries;
	z->entry = calloc(z->n + 1, sizeof(*z->entry));
	z->by_offset = calloc(z->n + 1, sizeof(*z->by_offset));
	if (!z->entry || !z->by_offset)
		return err_nomem(e);
	return 0;
}

static int read_central(struct zip *z, size_t i, uint64_t *at, struct err *e)
{
	struct zip_entry *en = &z->entry[i];
	const uint8_t *p = z->buf + *at;
	size_t n, m, k;

	if (z->eocd - *at < ZIP_CENTRAL_LEN || memcmp(p, CENTRAL_SIG, 4))
		return err_code_set(e, ERR_MALFORMED, "zip central record %zu "
				    "at %llu is not one", i,
				    (unsigned long long)*at);
	n = get_le(p + 28, 2);
	m = get_le(p + 30, 2);
	k = get_le(p + 32, 2);
	if (z->eocd - *at - ZIP_CENTRAL_LEN < n + m + k)
		return err_code_set(e, ERR_MALFORMED, "zip central record %zu "
				    "runs into the end record", i);
	en->central = *at;
	en->central_len = ZIP_CENTRAL_LEN + n + m + k;
	en->name = (const char *)p + ZIP_CENTRAL_LEN;
	en->name_len = n;
	en->flags = (uint16_t)get_le(p + 8, 2);
	en->method = (uint16_t)get_le(p + 10, 2);
	en->crc = (uint32_t)get_le(p + 16, 4);
	en->csize = (uint32_t)get_le(p + 20, 4);
	en->usize = (uint32_t)get_le(p + 24, 4);
	en->local = get_le(p + 42, 4);
	*at += en->central_len;
	if (!n || memchr(en->name, 0, n) || memchr(en->name, '\\', n) ||
	    tar_name_escapes(en->name, n))
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s' is "
				    "outside the root", (int)n, en->name);
	if (en->flags & 1)
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s' is "
				    "encrypted", (int)n, en->name);
	if (en->csize == 0xffffffff || en->usize == 0xffffffff ||
	    en->local == 0xffffffff)
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s' is "
				    "ZIP64", (int)n, en->name);
	return 0;
}

/* The local header agrees with the central record; the data and the
 * descriptor are inside the archive. */
static int read_local(struct zip *z, struct zip_entry *en, struct err *e)
{
	const uint8_t *p = z->buf + en->local;
	size_t n, m;
	bool desc = en->flags & ZIP_FLAG_DESCRIPTOR;

	if (en->local > z->central || z->central - en->local < ZIP_LOCAL_LEN ||
	    memcmp(p, LOCAL_SIG, 4))
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s': no "
				    "local header at %llu", (int)en->name_len,
				    en->name, (unsigned long long)en->local);
	n = get_le(p + 26, 2);
	m = get_le(p + 28, 2);
	if (z->central - en->local - ZIP_LOCAL_LEN < n + m)
		return err_cut(e, "zip member '%.*s' runs into the central "
			       "directory", (int)en->name_len, en->name);
	if (n != en->name_len || memcmp(p + ZIP_LOCAL_LEN, en->name, n) ||
	    get_le(p + 8, 2) != en->method ||
	    (get_le(p + 6, 2) & ZIP_FLAG_DESCRIPTOR) != (unsigned)desc * 8 ||
	    (!desc && (get_le(p + 14, 4) != en->crc ||
		       get_le(p + 18, 4) != en->csize ||
		       get_le(p + 22, 4) != en->usize)))
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s': the "
				    "central directory disagrees with its local "
				    "header", (int)en->name_len, en->name);
	en->data = en->local + ZIP_LOCAL_LEN + n + m;
	en->end = en->data + en->csize;
	if (en->end > z->central)
		return err_cut(e, "zip member '%.*s' runs into the central "
			       "directory", (int)en->name_len, en->name);
	if (desc) {
		const uint8_t *d = z->buf + en->end;
		size_t sig = z->central - en->end >= 16 &&
			     !memcmp(d, DESCRIPTOR_SIG, 4) ? 4 : 0;

		if (z->central - en->end < 12 + sig ||
		    get_le(d + sig, 4) != en->crc ||
		    get_le(d + sig + 4, 4) != en->csize ||
		    get_le(d + sig + 8, 4) != en->usize)
			return err_code_set(e, ERR_MALFORMED, "zip member "
					    "'%.*s': its data descriptor "
					    "disagrees with the central "
					    "directory", (int)en->name_len,
					    en->name);
		en->end += 12 + sig;
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
	if (at != z->eocd)
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

void zip_local_set(uint8_t *h, uint32_t crc, uint32_t csize, uint32_t usize)
{
	put_le(h + 6, get_le(h + 6, 2) & ~(uint64_t)ZIP_FLAG_DESCRIPTOR, 2);
	put_le(h + 14, crc, 4);
	put_le(h + 18, csize, 4);
	put_le(h + 22, usize, 4);
}

void zip_central_set(uint8_t *c, uint32_t crc, uint32_t csize,
		     uint32_t usize)
{
	put_le(c + 8, get_le(c + 8, 2) & ~(uint64_t)ZIP_FLAG_DESCRIPTOR, 2);
	put_le(c + 16, crc, 4);
	put_le(c + 20, csize, 4);
	put_le(c + 24, usize, 4);
}

void zip_central_set_local(uint8_t *c, uint32_t local)
{
	put_le(c + 42, local, 4);
}

void zip_eocd_set(uint8_t *eocd, uint32_t central, uint32_t size)
{
	put_le(eocd + 12, size, 4);
	put_le(eocd + 16, central, 4);
}

int zip_validate(const uint8_t *buf, size_t len, struct err *e)
{
	struct zip z;
	int rc = zip_open(&z, buf, len, e);

	zip_close(&z);
	return rc;
}
