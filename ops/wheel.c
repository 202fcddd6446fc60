/* wheel: a wheel's members and RECORD (wheel.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "layer_codec.h"
#include "wheel.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/io_write.h"

bool wheel_probe(const char *name, const uint8_t *buf, size_t len)
{
	size_t n = strlen(name);

	return n >= 4 && !strcmp(name + n - 4, ".whl") && zip_probe(buf, len);
}

bool wheel_is(const char *path)
{
	size_t n = strlen(path);
	uint8_t head[4];
	struct io_in in;
	struct stat st;
	struct err e;
	bool is;

	if (n < 4 || strcmp(path + n - 4, ".whl"))
		return false;
	/* A FIFO is never opened to look (deb_is says why). */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    io_in_open_part(&in, path, sizeof(head), &e) < 0)
		return false;
	memcpy(head, in.data, in.len < 4 ? in.len : 4);
	is = zip_probe(head, in.len < 4 ? in.len : 4);
	io_in_close(&in);
	return is;
}

static bool is_record(const struct zip_entry *en)
{
	static const char tail[] = ".dist-info/RECORD";
	size_t t = sizeof(tail) - 1;
	const char *slash = memchr(en->name, '/', en->name_len);

	/* At the top: "<name>-<version>.dist-info/RECORD". */
	return en->name_len > t && slash == en->name + en->name_len - 7 &&
	       !memcmp(en->name + en->name_len - t, tail, t);
}

/* Codec of a member's method: 0, or -1 for one not read. */
static int member_codec(const struct zip_entry *en, enum layer_codec *c)
{
	if (en->method == ZIP_STORED)
		*c = LAYER_NONE;
	else if (en->method == ZIP_DEFLATED)
		*c = LAYER_DEFLATE;
	else
		return -1;
	return 0;
}

/* Inflate en into out (its first min(usize, head_len) bytes to head
 * first, *head_got told), to its end when out is not NULL: its size and
 * CRC checked. */
static int inflate_member(const struct wheel *w, const struct zip_entry *en,
			  uint8_t *head, size_t head_len, size_t *head_got,
			  struct io_out *out, struct err *e)
{
	struct layer_reader *r = NULL;
	enum layer_codec c;
	uint8_t *buf = NULL;
	uint64_t total = 0;
	uLong crc = crc32(0, NULL, 0);
	int rc = -1;

	if (member_codec(en, &c) < 0)
		return err_code_set(e, ERR_MALFORMED, "zip member '%.*s': "
				    "compression method %u is not read",
				    (int)en->name_len, en->name, en->method);
	if (layer_reader_open(&r, c, w->in.data + en->data, en->csize, e) < 0)
		return -1;
	if (!(buf = malloc(LAYER_PEEK))) {
		err_nomem(e);
		goto out;
	}
	for (;;) {
		size_t got;

		if (layer_reader_read(r, buf, LAYER_PEEK, &got, e) < 0)
			goto out;
		if (got > en->usize - total) {
			err_code_set(e, ERR_MALFORMED, "zip member '%.*s' "
				     "inflates past its declared %llu bytes",
				     (int)en->name_len, en->name,
				     (unsigned long long)en->usize);
			goto out;
		}
		if (total < head_len) {
			size_t part = head_len - total < got ?
				      head_len - total : got;

			memcpy(head + total, buf, part);
			*head_got = total + part;
		}
		crc = crc32(crc, buf, (uInt)got);
		total += got;
		if (out && got && io_out_write(out, buf, got, e) < 0)
			goto out;
		if (got < LAYER_PEEK || (!out && total >= head_len))
			break;
	}
	if (out && (total != en->usize || crc != en->crc)) {
		err_code_set(e, ERR_MALFORMED, "zip member '%.*s' %s",
			     (int)en->name_len, en->name, total != en->usize ?
			     "is shorter than its declared size" :
			     "does not match its CRC");
		goto out;
	}
	rc = 0;
out:
	free(buf);
	layer_reader_close(r);
	return rc;
}

int wheel_open(struct wheel *w, const char *path, struct err *e)
{
	struct io_in in = { .fd = -1 };

	memset(w, 0, sizeof(*w));
	w->in.fd = -1;
	if (io_in_open(&in, path, e) < 0)
		return -1;
	return wheel_open_in(w, &in, path, e);
}

int wheel_open_in(struct wheel *w, struct io_in *in, const char *path,
		  struct err *e)
{
	const struct zip_entry *en;
	struct io_out out = { .fd = -1 };
	size_t got = 0;

	memset(w, 0, sizeof(*w));
	w->in = *in;
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	w->path = path;
	if (zip_open(&w->zip, w->in.data, w->in.len, e) < 0)
		return -1;
	w->record = w->zip.n;
	for (size_t i = 0; i < w->zip.n; i++)
		if (is_record(&w->zip.entry[i])) {
			if (w->record != w->zip.n)
				return err_code_set(e, ERR_MALFORMED, "wheel "
						    "has two RECORD files");
			w->record = i;
		}
	if (w->record == w->zip.n)
		return err_code_set(e, ERR_MALFORMED, "wheel has no "
				    "*.dist-info/RECORD");
	en = &w->zip.entry[w->record];
	if (en->usize > WHEEL_RECORD_MAX)
		return err_code_set(e, ERR_MALFORMED, "RECORD of %llu bytes "
				    "(at most %d)", (unsigned long long)en->usize,
				    WHEEL_RECORD_MAX);
	if (!(w->record_text = malloc((size_t)en->usize + 1)))
		return err_nomem(e);
	if (io_scratch_open(&out, e) < 0)
		return -1;
	if (inflate_member(w, en, (uint8_t *)w->record_text, en->usize, &got,
			   &out, e) < 0) {
		io_out_discard(&out);
		return -1;
	}
	io_out_discard(&out);
	w->record_text[en->usize] = 0;
	w->record_len = en->usize;
	return 0;
}

void wheel_close(struct wheel *w)
{
	io_in_close(&w->in);
	zip_close(&w->zip);
	free(w->record_text);
	memset(w, 0, sizeof(*w));
	w->in.fd = -1;
}

int wheel_walk(struct wheel *w, layer_wants_fn *wants, layer_member_fn *member,
	       wheel_replaced_fn *done, void *ctx, struct err *e)
{
	uint8_t *head = malloc(LAYER_PEEK);
	int rc = -1;

	if (!head)
		return err_nomem(e);
	for (size_t k = 0; k < w->zip.n; k++) {
		size_t i = w->zip.by_offset[k], got = 0;
		const struct zip_entry *en = &w->zip.entry[i];
		struct io_out out = { .fd = -1 };
		struct io_in data, repl = { .fd = -1 };
		struct layer_member m = {
			.name = en->name, .name_len = en->name_len,
			.size = en->usize, .index = i,
		};
		int r;

		/* A method not read is refused (inflate_member), not passed
		 * over: the member may hold offload code. */
		if (i == w->record || !en->usize ||
		    (en->name_len && en->name[en->name_len - 1] == '/'))
			continue;
		if (inflate_member(w, en, head, LAYER_PEEK, &got, NULL, e) < 0)
			goto out;
		if (!wants(ctx, head, got))
			continue;
		/* A scratch file that fails (a full disk) is said with
		 * the member it was for. */
		if (io_scratch_open(&out, e) < 0) {
			err_wrap(e, e->code, "'%.*s'", (int)en->name_len,
				 en->name);
			goto out;
		}
		if (inflate_member(w, en, head, 0, &got, &out, e) < 0 ||
		    io_scratch_view(&out, &data, e) < 0) {
			if (e->path[0])
				err_wrap(e, e->code, "'%.*s'",
					 (int)en->name_len, en->name);
			io_out_discard(&out);
			goto out;
		}
		r = member(ctx, &m, &data, &repl, e);
		if (r == 1 && done)
			r = done(ctx, i, &repl, e) < 0 ? -1 : 1;
		io_out_discard(&out);
		if (r < 0)
			goto out;
	}
	rc = 0;
out:
	free(head);
	return rc;
}

/* A RECORD name field at p (quoted or not) equal to name[0..len): the
 * offset after its comma, or 0. */
static size_t name_matches(const char *p, const char *end, const char *name,
			   size_t len)
{
	const char *q = p;
	size_t i = 0;

	if (*q != '"') {
		const char *comma = memchr(q, ',', (size_t)(end - q));

		return comma && (size_t)(comma - q) == len &&
		       !memcmp(q, name, len) ? (size_t)(comma + 1 - p) : 0;
	}
	for (q++; q < end; q++) {
		if (*q == '"') {
			if (q + 1 < end && q[1] == '"')
				q++;
			else
				break;
		}
		if (i >= len || name[i++] != *q)
			return 0;
	}
	return q + 1 < end && q[1] == ',' && i == len ?
	       (size_t)(q + 2 - p) : 0;
}

int wheel_record_find(const struct wheel *w, const char *name, size_t len,
		      size_t *hash, size_t *size)
{
	const char *p = w->record_text, *end = p + w->record_len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t at;

		if (!nl)
			nl = end;
		if ((at = name_matches(p, nl, name, len))) {
			const char *h = p + at;
			const char *comma = memchr(h, ',', (size_t)(nl - h));

			if (!comma)
				return -1;
			*hash = (size_t)(h - w->record_text);
			*size = (size_t)(comma + 1 - w->record_text);
			return 0;
		}
		p = nl + 1;
	}
	return -1;
}

void wheel_hash(const char *hex, char *b64)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789-_";
	uint8_t raw[33] = { 0 };
	size_t o = 0;

	for (int i = 0; i < 32; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		raw[i] = (uint8_t)v;
	}
	for (int i = 0; i < 33; i += 3) {
		uint32_t v = (uint32_t)raw[i] << 16 | (uint32_t)raw[i + 1] << 8 |
			     raw[i + 2];

		b64[o++] = digits[v >> 18 & 63];
		b64[o++] = digits[v >> 12 & 63];
		b64[o++] = digits[v >> 6 & 63];
		b64[o++] = digits[v & 63];
	}
	b64[43] = 0;
}
