/* tar: ustar, GNU and pax headers read and given a new size (tar.h). */
#include <stdio.h>
#include <string.h>

#include "tar.h"

/* Offsets and widths of the ustar fields used here. */
enum {
	F_NAME = 0, W_NAME = 100,
	F_MODE = 100, W_MODE = 8,
	F_UID = 108, W_UID = 8,
	F_GID = 116, W_GID = 8,
	F_SIZE = 124, W_SIZE = 12,
	F_MTIME = 136, W_MTIME = 12,
	F_CHKSUM = 148, W_CHKSUM = 8,
	F_TYPE = 156,
	F_LINK = 157, W_LINK = 100,
	F_MAGIC = 257,
	F_PREFIX = 345, W_PREFIX = 155,
};

bool tar_block_zero(const uint8_t *b)
{
	for (size_t i = 0; i < TAR_BLOCK; i++)
		if (b[i])
			return false;
	return true;
}

uint64_t tar_padded(uint64_t size)
{
	return (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
}

/* A numeric field: octal digits, led by spaces and ended by a space or
 * NUL; or GNU's base-256, its first byte's high bit set (positive values
 * only: a negative size or id is refused). */
static int number(const uint8_t *p, size_t w, uint64_t *v, bool *b256)
{
	size_t i = 0;

	*v = 0;
	if (b256)
		*b256 = false;
	if (p[0] & 0x80) {
		if (p[0] != 0x80)
			return -1;
		for (i = 1; i < w; i++) {
			if (*v >> 56)
				return -1;
			*v = *v << 8 | p[i];
		}
		if (b256)
			*b256 = true;
		return 0;
	}
	while (i < w && p[i] == ' ')
		i++;
	for (; i < w && p[i] >= '0' && p[i] <= '7'; i++) {
		if (*v >> 61)
			return -1;
		*v = *v << 3 | (uint64_t)(p[i] - '0');
	}
	for (; i < w; i++)
		if (p[i] != ' ' && p[i] != '\0')
			return -1;
	return 0;
}

static void checksums(const uint8_t *b, uint64_t *unsigned_sum,
		      int64_t *signed_sum)
{
	*unsigned_sum = 0;
	*signed_sum = 0;
	for (size_t i = 0; i < TAR_BLOCK; i++) {
		uint8_t c = i >= F_CHKSUM && i < F_CHKSUM + W_CHKSUM ? ' ' : b[i];

		*unsigned_sum += c;
		*signed_sum += (int8_t)c;
	}
}

static enum tar_kind kind_of(char t)
{
	switch (t) {
	case '0': case '\0': case '7':
		return TAR_FILE;
	case '1':
		return TAR_HARDLINK;
	case '2':
		return TAR_SYMLINK;
	case '3': case '4':
		return TAR_DEVICE;
	case '5':
		return TAR_DIRECTORY;
	case '6':
		return TAR_FIFO;
	case 'x':
		return TAR_PAX;
	case 'g':
		return TAR_PAX_GLOBAL;
	case 'L':
		return TAR_GNU_LONGNAME;
	case 'K':
		return TAR_GNU_LONGLINK;
	}
	return TAR_OTHER;
}

/* A NUL-ended copy of a field of up to w bytes. */
static size_t field(char *out, const uint8_t *p, size_t w)
{
	size_t n = strnlen((const char *)p, w);

	memcpy(out, p, n);
	out[n] = '\0';
	return n;
}

int tar_header_parse(const uint8_t *b, struct tar_header *h, struct err *e)
{
	uint64_t sum, want, usum;
	int64_t ssum;
	size_t n = 0;

	memset(h, 0, sizeof(*h));
	if (number(b + F_CHKSUM, W_CHKSUM, &want, NULL) < 0)
		return err_bad(e, "not a tar header (no checksum)");
	checksums(b, &usum, &ssum);
	sum = usum;
	if (want != sum && (ssum < 0 || want != (uint64_t)ssum))
		return err_bad(e, "tar header checksum mismatch");
	if (number(b + F_SIZE, W_SIZE, &h->size, &h->size_base256) < 0 ||
	    number(b + F_MODE, W_MODE, &h->mode, NULL) < 0 ||
	    number(b + F_UID, W_UID, &h->uid, NULL) < 0 ||
	    number(b + F_GID, W_GID, &h->gid, NULL) < 0 ||
	    number(b + F_MTIME, W_MTIME, &h->mtime, NULL) < 0)
		return err_bad(e, "tar header with a bad number");
	h->typeflag = (char)b[F_TYPE];
	h->kind = kind_of(h->typeflag);
	/* POSIX ustar ("ustar\0") has a prefix; GNU's ("ustar  ") does
	 * not, it keeps times there. */
	if (!memcmp(b + F_MAGIC, "ustar\0", 6) && b[F_PREFIX]) {
		n = field(h->name, b + F_PREFIX, W_PREFIX);
		h->name[n++] = '/';
	}
	field(h->name + n, b + F_NAME, W_NAME);
	field(h->linkname, b + F_LINK, W_LINK);
	return 0;
}

void tar_header_set_size(uint8_t *b, uint64_t size)
{
	uint64_t usum, v = size;
	int64_t ssum;
	char digits[W_CHKSUM + 1];

	if (!(b[F_SIZE] & 0x80) && size < (uint64_t)1 << 33) {
		char octal[W_SIZE + 1];

		snprintf(octal, sizeof(octal), "%011llo",
			 (unsigned long long)size);
		memcpy(b + F_SIZE, octal, W_SIZE);	/* the NUL ends it */
	} else {
		b[F_SIZE] = 0x80;
		for (int i = W_SIZE - 1; i > 0; i--, v >>= 8)
			b[F_SIZE + i] = (uint8_t)v;
	}
	checksums(b, &usum, &ssum);
	/* Six digits, a NUL and a space, as tar writes it. */
	snprintf(digits, sizeof(digits), "%06llo", (unsigned long long)usum);
	memcpy(b + F_CHKSUM, digits, 7);
	b[F_CHKSUM + 7] = ' ';
}

int tar_header_make(uint8_t *b, const char *name, char typeflag,
		    uint64_t mode, uint64_t size)
{
	size_t len = strlen(name);
	char num[W_SIZE + 1];

	if (!len || len > W_NAME)
		return -1;
	memset(b, 0, TAR_BLOCK);
	memcpy(b + F_NAME, name, len);
	snprintf(num, sizeof(num), "%07llo", (unsigned long long)(mode & 07777));
	memcpy(b + F_MODE, num, W_MODE);
	memcpy(b + F_UID, "0000000", W_UID);
	memcpy(b + F_GID, "0000000", W_GID);
	memcpy(b + F_MTIME, "00000000000", W_MTIME);
	b[F_TYPE] = (uint8_t)typeflag;
	memcpy(b + F_MAGIC, "ustar\00000", 8);
	tar_header_set_size(b, size);
	return 0;
}

/* One record at buf[*off..len): its key and value; -1 when malformed. */
static int record(const uint8_t *buf, size_t len, size_t *off,
		  const char **key, size_t *key_len, const char **val,
		  size_t *val_len)
{
	size_t at = *off, rec = 0, i = at, eq;

	while (i < len && buf[i] >= '0' && buf[i] <= '9') {
		if (rec > TAR_META_MAX)
			return -1;
		rec = rec * 10 + (size_t)(buf[i++] - '0');
	}
	if (i == at || i >= len || buf[i] != ' ' || rec > len - at ||
	    rec < i - at + 3 || buf[at + rec - 1] != '\n')
		return -1;
	i++;
	for (eq = i; eq < at + rec - 1 && buf[eq] != '='; eq++)
		;
	if (eq == at + rec - 1 || eq == i)
		return -1;
	*key = (const char *)buf + i;
	*key_len = eq - i;
	*val = (const char *)buf + eq + 1;
	*val_len = at + rec - 1 - (eq + 1);
	*off = at + rec;
	return 0;
}

static bool is_key(const char *key, size_t n, const char *want)
{
	return n == strlen(want) && !memcmp(key, want, n);
}

int tar_pax_parse(const uint8_t *buf, size_t len, struct tar_pax *p,
		  struct err *e)
{
	size_t off = 0;

	memset(p, 0, sizeof(*p));
	while (off < len) {
		const char *key, *val;
		size_t kn, vn;

		/* A writer may pad the records with NULs. */
		if (buf[off] == '\0')
			break;
		if (record(buf, len, &off, &key, &kn, &val, &vn) < 0) {
			err_bad(e, "malformed pax record");
			return err_at(e, off);
		}
		if (is_key(key, kn, "path")) {
			p->path = val;
			p->path_len = vn;
		} else if (is_key(key, kn, "linkpath")) {
			p->linkpath = val;
			p->linkpath_len = vn;
		} else if (is_key(key, kn, "size")) {
			uint64_t v = 0;

			if (!vn || vn > 19)
				return err_bad(e, "pax size record out of range");
			for (size_t i = 0; i < vn; i++) {
				if (val[i] < '0' || val[i] > '9')
					return err_bad(e, "pax size record is "
						       "not a number");
				v = v * 10 + (uint64_t)(val[i] - '0');
			}
			p->has_size = true;
			p->size = v;
		}
	}
	return 0;
}

/* The record "LEN size=VALUE\n" whose LEN counts its own digits. */
static size_t size_record(uint64_t size, char *out, size_t cap)
{
	char body[40];
	int bn = snprintf(body, sizeof(body), " size=%llu\n",
			  (unsigned long long)size);
	size_t total = (size_t)bn + 1;

	while ((size_t)snprintf(NULL, 0, "%zu", total) + (size_t)bn != total)
		total++;
	return (size_t)snprintf(out, cap, "%zu%s", total, body);
}

size_t tar_pax_set_size(const uint8_t *buf, size_t len, uint64_t size,
			uint8_t *out, size_t cap)
{
	size_t off = 0, n = 0;

	while (off < len) {
		size_t at = off, kn, vn;
		const char *key, *val;

		if (buf[off] == '\0' ||
		    record(buf, len, &off, &key, &kn, &val, &vn) < 0) {
			/* The rest as it was (read before: valid). */
			if (len - at <= cap - n) {
				memcpy(out + n, buf + at, len - at);
				n += len - at;
			}
			break;
		}
		if (is_key(key, kn, "size")) {
			char rec[48];
			size_t rn = size_record(size, rec, sizeof(rec));

			if (rn <= cap - n) {
				memcpy(out + n, rec, rn);
				n += rn;
			}
		} else if (off - at <= cap - n) {
			memcpy(out + n, buf + at, off - at);
			n += off - at;
		}
	}
	return n;
}

bool tar_name_escapes(const char *name, size_t len)
{
	size_t i = 0;

	if (len && name[0] == '/')
		return true;
	while (i < len) {
		size_t start = i;

		while (i < len && name[i] != '/')
			i++;
		if (i - start == 2 && name[start] == '.' && name[start + 1] == '.')
			return true;
		i++;
	}
	return false;
}
