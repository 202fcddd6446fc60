/* package: LLVM's offload binary; see package.h.  Version 1 is written
 * exactly as LLVM 22 writes it; versions 1 to 3 are read, with every offset
 * checked against the binary that holds it.  Over 800 lines because each
 * release's checks (22, 23, 24: which error, in which order) must stand
 * beside the one reader they order; split, they would be read apart. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
/* ZSTD_WINDOWLOG_MAX is in the "experimental" part of the API: fine here,
 * built and run against the same libzstd package (as in ccob.c). */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "package.h"
#include "../core/strtab.h"
#include "../core/bytes.h"

static const uint8_t magic[4] = { 0x10, 0xff, 0x10, 0xad };

enum {
	V2_HEADER = 32,
	V3_HEADER = 40,
	V2_RECORD = 24,
};

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/* ---- names ---- */

static const char *const image_ext[] = { "", "o", "bc", "cubin", "fatbin", "s",
					 "spv" };

uint16_t package_image_kind_from_ext(const char *ext, size_t len, bool spirv)
{
	uint16_t n = spirv ? PACKAGE_IMG_SPIRV + 1 : PACKAGE_IMG_SPIRV;

	for (uint16_t k = 1; k < n; k++)
		if (strlen(image_ext[k]) == len && !memcmp(image_ext[k], ext, len))
			return k;
	return PACKAGE_IMG_NONE;
}

const char *package_image_kind_ext(uint16_t kind, bool spirv)
{
	return kind < (spirv ? PACKAGE_IMG_SPIRV + 1 : PACKAGE_IMG_SPIRV)
		? image_ext[kind] : "";
}

static const struct {
	uint16_t kind;
	const char *name;
} offload_names[] = {
	{ PACKAGE_OFK_OPENMP, "openmp" },
	{ PACKAGE_OFK_CUDA, "cuda" },
	{ PACKAGE_OFK_HIP, "hip" },
	{ PACKAGE_OFK_SYCL, "sycl" },
};

uint16_t package_offload_kind_from_name(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(offload_names) / sizeof(offload_names[0]); i++)
		if (strlen(offload_names[i].name) == len &&
		    !memcmp(offload_names[i].name, name, len))
			return offload_names[i].kind;
	return PACKAGE_OFK_NONE;
}

const char *package_offload_kind_describe(uint16_t kind)
{
	if (kind == PACKAGE_OFK_HIP_LLVM20)
		return "hip (LLVM 15-20 numbering)";
	for (size_t i = 0; i < sizeof(offload_names) / sizeof(offload_names[0]); i++)
		if (offload_names[i].kind == kind)
			return offload_names[i].name;
	return "none";
}

/* ---- writing ---- */

int package_write_head(const struct package_meta *m, uint64_t image_size,
		       uint8_t **head, size_t *head_len, size_t *tail_pad,
		       struct err *e)
{
	struct strtab tab = { 0 };
	uint64_t strtab_off, image_off, total;
	uint8_t *h = NULL;
	int rc = -1;

	*head = NULL;
	for (size_t i = 0; i < m->nstrings; i++)
		if (strtab_add(&tab, m->strings[i].key, m->strings[i].key_len) < 0 ||
		    strtab_add(&tab, m->strings[i].value,
			       m->strings[i].value_len) < 0)
			goto nomem;
	if (strtab_finalize(&tab) < 0)
		goto nomem;
	strtab_off = PACKAGE_V1_HEADER + PACKAGE_ENTRY +
		     (uint64_t)m->nstrings * PACKAGE_V1_RECORD;
	image_off = align8(strtab_off + tab.size);
	if (image_size > UINT64_MAX - 8 - image_off) {
		err_set(e, "an image of %llu bytes is too large to package",
			(unsigned long long)image_size);
		goto out;
	}
	total = align8(image_off + image_size);
	h = calloc(1, (size_t)image_off);
	if (!h)
		goto nomem;
	memcpy(h, magic, 4);
	put_le(h + 4, 1, 4);
	put_le(h + 8, total, 8);
	put_le(h + 16, PACKAGE_V1_HEADER, 8);
	put_le(h + 24, PACKAGE_ENTRY, 8);
	put_le(h + 32, m->image_kind, 2);
	put_le(h + 34, m->offload_kind, 2);
	put_le(h + 40, PACKAGE_V1_HEADER + PACKAGE_ENTRY, 8);
	put_le(h + 48, m->nstrings, 8);
	put_le(h + 56, image_off, 8);
	put_le(h + 64, image_size, 8);
	for (size_t i = 0; i < m->nstrings; i++) {
		const struct package_string *s = &m->strings[i];
		uint8_t *rec = h + PACKAGE_V1_HEADER + PACKAGE_ENTRY +
			       i * PACKAGE_V1_RECORD;

		put_le(rec, strtab_off + strtab_offset(&tab, s->key, s->key_len), 8);
		put_le(rec + 8, strtab_off + strtab_offset(&tab, s->value,
							   s->value_len), 8);
	}
	strtab_write(&tab, h + strtab_off);
	*head = h;
	*head_len = (size_t)image_off;
	*tail_pad = (size_t)(total - image_off - image_size);
	h = NULL;
	rc = 0;
	goto out;
nomem:
	err_nomem(e);
out:
	free(h);
	strtab_free(&tab);
	return rc;
}

int package_write_multi_head(unsigned version, const struct package_meta *m,
			     const uint32_t *flags, const uint64_t *sizes,
			     size_t n, uint8_t **head,
			     size_t *head_len, uint64_t *image_off,
			     size_t *tail_pad, struct err *e)
{
	struct strtab tab = { 0 };
	uint64_t header = version == 2 ? V2_HEADER : V3_HEADER;
	uint64_t nrec = 0, rec_off, strtab_off, data_off, at, total;
	uint8_t *h = NULL;
	int rc = -1;

	*head = NULL;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < m[i].nstrings; k++)
			if (strtab_add(&tab, m[i].strings[k].key,
				       m[i].strings[k].key_len) < 0 ||
			    strtab_add(&tab, m[i].strings[k].value,
				       m[i].strings[k].value_len) < 0)
				goto nomem;
		nrec += m[i].nstrings;
	}
	if (strtab_finalize(&tab) < 0)
		goto nomem;
	rec_off = header + (uint64_t)n * PACKAGE_ENTRY;
	strtab_off = rec_off + nrec * V2_RECORD;
	data_off = align8(strtab_off + tab.size);
	at = data_off;
	for (size_t i = 0; i < n; i++) {
		if (sizes[i] > UINT64_MAX - 8 - at) {
			err_set(e, "images of more than 2^64 bytes cannot be "
				"packaged");
			goto out;
		}
		image_off[i] = at;
		at += sizes[i];
	}
	total = align8(at);
	if (data_off > SIZE_MAX || !(h = calloc(1, (size_t)data_off)))
		goto nomem;
	memcpy(h, magic, 4);
	put_le(h + 4, version, 4);
	put_le(h + 8, total, 8);
	put_le(h + 16, header, 8);
	put_le(h + 24, n, 8);
	for (size_t i = 0, r = 0; i < n; i++) {
		uint8_t *ent = h + header + i * PACKAGE_ENTRY;

		put_le(ent, m[i].image_kind, 2);
		put_le(ent + 2, m[i].offload_kind, 2);
		put_le(ent + 4, flags ? flags[i] : 0, 4);
		put_le(ent + 8, rec_off + r * V2_RECORD, 8);
		put_le(ent + 16, m[i].nstrings, 8);
		put_le(ent + 24, image_off[i], 8);
		put_le(ent + 32, sizes[i], 8);
		for (size_t k = 0; k < m[i].nstrings; k++, r++) {
			const struct package_string *s = &m[i].strings[k];
			uint8_t *rec = h + rec_off + r * V2_RECORD;

			put_le(rec, strtab_off + strtab_offset(&tab, s->key,
							       s->key_len), 8);
			put_le(rec + 8, strtab_off + strtab_offset(&tab, s->value,
								   s->value_len), 8);
			put_le(rec + 16, s->value_len, 8);
		}
	}
	strtab_write(&tab, h + strtab_off);
	*head = h;
	*head_len = (size_t)data_off;
	*tail_pad = (size_t)(total - at);
	h = NULL;
	rc = 0;
	goto out;
nomem:
	err_nomem(e);
out:
	free(h);
	strtab_free(&tab);
	return rc;
}

enum package_codec package_codec_of(const uint8_t *bin, size_t len)
{
	static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

	return len >= V3_HEADER + 4 && !memcmp(bin + V3_HEADER, zstd_magic, 4)
	       ? PACKAGE_ZSTD : PACKAGE_ZLIB;
}

int package_compress(const uint8_t *bin, size_t len, enum package_codec codec,
		     int level, uint8_t **out, size_t *out_len, struct err *e)
{
	size_t body, bound, packed;
	uint8_t *o;

	*out = NULL;
	if (len < V3_HEADER)
		return err_cut(e, "a binary of %zu bytes has no version 3 "
			       "header", len);
	body = len - V3_HEADER;
	if (codec == PACKAGE_ZSTD) {
		bound = ZSTD_compressBound(body);
	} else {
		uLong b = compressBound((uLong)body);

		bound = (size_t)b;
	}
	if (bound > SIZE_MAX - V3_HEADER - 8 ||
	    !(o = calloc(1, V3_HEADER + bound + 8)))
		return err_nomem(e);
	if (codec == PACKAGE_ZSTD) {
		/* One frame, its content size in its header, no checksum:
		 * what ZSTD_compress2 makes with only the level set. */
		packed = ZSTD_compress(o + V3_HEADER, bound, bin + V3_HEADER,
				       body, level);
		if (ZSTD_isError(packed)) {
			err_set(e, "zstd: %s", ZSTD_getErrorName(packed));
			free(o);
			return -1;
		}
	} else {
		uLongf got = (uLongf)bound;
		int zr = compress2(o + V3_HEADER, &got, bin + V3_HEADER,
				   (uLong)body, level);

		if (zr != Z_OK) {
			err_set(e, "zlib: %s", zError(zr));
			free(o);
			return -1;
		}
		packed = (size_t)got;
	}
	memcpy(o, bin, V3_HEADER);
	put_le(o + 8, V3_HEADER + packed, 8);
	put_le(o + 32, len, 8);
	*out = o;
	*out_len = (size_t)align8(V3_HEADER + packed);
	return 0;
}

/* ---- reading ---- */

bool package_is(const uint8_t *buf, size_t len)
{
	return len >= 4 && !memcmp(buf, magic, 4);
}

unsigned package_version(const uint8_t *buf, size_t len)
{
	return len >= 8 ? (unsigned)get_le(buf + 4, 4) : 0;
}

size_t package_run(const uint8_t *buf, size_t len)
{
	size_t pos = 0, end = 0;

	while (len - pos >= PACKAGE_V1_HEADER) {
		uint64_t size;

		if (!get_le(buf + pos, 8)) {	/* zeros between them */
			pos += 8;
			continue;
		}
		if (!package_is(buf + pos, len - pos))
			break;
		size = get_le(buf + pos + 8, 8);

		size = (size + PACKAGE_ALIGN - 1) & ~(uint64_t)(PACKAGE_ALIGN - 1);
		if (size < PACKAGE_V1_HEADER)
			break;
		if (size > len - pos) {
			/* The last one's padding may be cut. */
			if (get_le(buf + pos + 8, 8) > len - pos)
				break;
			size = len - pos;
		}
		pos += (size_t)size;
		end = pos;
	}
	return end;
}

bool package_err_is_llvm(const struct err *e)
{
	return e->llvm_words;
}

static int llvm_parse_failed(struct err *e)
{
	return err_llvm(e, ERR_MALFORMED, PACKAGE_ERR_PARSE);
}

static int llvm_unexpected_eof(struct err *e)
{
	return err_llvm(e, ERR_TRUNCATED, PACKAGE_ERR_EOF);
}

/* One binary being read: b[0, size) with its own offsets; `at` is where it
 * starts in the scanned bytes (for messages and image offsets). */
struct binary {
	const uint8_t *b;
	uint64_t size, at;
	unsigned version;
	bool inflated;
};

static int bad(struct err *e, const struct binary *bin, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct err *e, const struct binary *bin, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_bad(e, "offload binary at offset %llu (version %u, %llu "
		       "bytes): %s", (unsigned long long)bin->at, bin->version,
		       (unsigned long long)bin->size, what);
}

/* The NUL-terminated string at off, wholly inside the binary. */
static int read_cstr(const struct binary *bin, uint64_t off, uint64_t rec,
		     const char *what, const char **s, size_t *len,
		     struct err *e)
{
	const uint8_t *nul;

	if (off >= bin->size)
		return bad(e, bin, "string %llu: the %s offset %llu is past its "
			   "end", (unsigned long long)rec, what,
			   (unsigned long long)off);
	nul = memchr(bin->b + off, 0, (size_t)(bin->size - off));
	if (!nul)
		return bad(e, bin, "string %llu: the %s at offset %llu has no "
			   "NUL before its end", (unsigned long long)rec, what,
			   (unsigned long long)off);
	*s = (const char *)bin->b + off;
	*len = (size_t)(nul - (bin->b + off));
	return 0;
}

static int grow_list(struct package_list *l, struct err *e)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct package_image *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return err_nomem(e);
		l->v = v;
		l->cap = cap;
	}
	return 0;
}

/* The entry at entry_off of bin, appended to out.  Checks what LLVM 22
 * does not: records, strings and image inside the binary. */
static int read_entry(const struct binary *bin, uint64_t entry_off,
		      struct package_list *out, struct err *e)
{
	const uint8_t *p = bin->b + entry_off;
	uint64_t str_off = get_le(p + 8, 8), nstr = get_le(p + 16, 8);
	uint64_t img_off = get_le(p + 24, 8), img_size = get_le(p + 32, 8);
	uint64_t rec_size = bin->version == 1 ? PACKAGE_V1_RECORD : V2_RECORD;
	struct package_image *img;
	struct package_string *strs = NULL;

	if (str_off > bin->size || nstr > (bin->size - str_off) / rec_size)
		return bad(e, bin, "%llu string records at offset %llu run past "
			   "its end", (unsigned long long)nstr,
			   (unsigned long long)str_off);
	if (img_off > bin->size || img_size > bin->size - img_off)
		return bad(e, bin, "the image (offset %llu, %llu bytes) runs "
			   "past its end", (unsigned long long)img_off,
			   (unsigned long long)img_size);
	if (grow_list(out, e) < 0)
		return -1;
	if (nstr && !(strs = calloc((size_t)nstr, sizeof(*strs))))
		return err_nomem(e);
	for (uint64_t i = 0; i < nstr; i++) {
		const uint8_t *rec = bin->b + str_off + i * rec_size;
		struct package_string *s = &strs[i];

		if (read_cstr(bin, get_le(rec, 8), i, "key", &s->key,
			      &s->key_len, e) < 0)
			goto fail;
		if (bin->version == 1) {
			if (read_cstr(bin, get_le(rec + 8, 8), i, "value",
				      &s->value, &s->value_len, e) < 0)
				goto fail;
		} else {
			uint64_t voff = get_le(rec + 8, 8);
			uint64_t vlen = get_le(rec + 16, 8);

			if (voff > bin->size || vlen > bin->size - voff) {
				bad(e, bin, "string %llu: the value (offset "
				    "%llu, %llu bytes) runs past its end",
				    (unsigned long long)i,
				    (unsigned long long)voff,
				    (unsigned long long)vlen);
				goto fail;
			}
			s->value = (const char *)bin->b + voff;
			s->value_len = (size_t)vlen;
		}
	}
	img = &out->v[out->n++];
	*img = (struct package_image){
		.version = bin->version,
		.image_kind = (uint16_t)get_le(p, 2),
		.offload_kind = (uint16_t)get_le(p + 2, 2),
		.flags = (uint32_t)get_le(p + 4, 4),
		.strings = strs,
		.nstrings = (size_t)nstr,
		.image = bin->b + img_off,
		.image_size = img_size,
		.inflated = bin->inflated,
		.image_offset = bin->inflated ? 0 : bin->at + img_off,
		.binary_offset = bin->at,
	};
	return 0;
fail:
	free(strs);
	return -1;
}

/* Version 1, checked in LLVM 22's order with LLVM's messages for what it
 * rejects, then ours for what it would crash on or misread.  rem is what
 * is left of the scanned bytes from the binary on. */
static int read_v1(const uint8_t *b, uint64_t rem, uint64_t at,
		   struct package_list *out, uint64_t *used, struct err *e)
{
	struct binary bin = { b, 0, at, 1, false };
	uint64_t size, entry, entry_size, str_off, img_off;

	if (rem < PACKAGE_V1_HEADER + PACKAGE_ENTRY)
		return llvm_parse_failed(e);
	size = get_le(b + 8, 8);
	entry = get_le(b + 16, 8);
	entry_size = get_le(b + 24, 8);
	if (size > rem || size < PACKAGE_ENTRY)
		return llvm_unexpected_eof(e);
	if (entry > size - PACKAGE_ENTRY ||
	    entry_size > size - PACKAGE_V1_HEADER)
		return llvm_unexpected_eof(e);
	str_off = get_le(b + entry + 8, 8);
	img_off = get_le(b + entry + 24, 8);
	if (img_off > rem || str_off > rem)
		return llvm_unexpected_eof(e);
	/* LLVM then reads the binary again from a copy of exactly its size. */
	if (size < PACKAGE_V1_HEADER + PACKAGE_ENTRY)
		return llvm_parse_failed(e);
	if (img_off > size || str_off > size)
		return llvm_unexpected_eof(e);
	bin.size = size;
	if (size % PACKAGE_ALIGN)
		return bad(e, &bin, "its size is not a multiple of %d",
			   PACKAGE_ALIGN);
	*used = size;
	return read_entry(&bin, entry, out, e);
}

/* The entries of a version 2 or 3 binary (not compressed). */
static int read_entries(const struct binary *bin, uint64_t header,
			struct package_list *out, struct err *e)
{
	uint64_t entries = get_le(bin->b + 16, 8), count = get_le(bin->b + 24, 8);

	if (bin->size % PACKAGE_ALIGN)
		return bad(e, bin, "its size is not a multiple of %d",
			   PACKAGE_ALIGN);
	if (entries < header || entries > bin->size ||
	    count > (bin->size - entries) / PACKAGE_ENTRY)
		return bad(e, bin, "%llu entries at offset %llu are not inside "
			   "it after its header", (unsigned long long)count,
			   (unsigned long long)entries);
	for (uint64_t i = 0; i < count; i++)
		if (read_entry(bin, entries + i * PACKAGE_ENTRY, out, e) < 0)
			return -1;
	return 0;
}

/* Inflate src into exactly dst_len bytes: the codec must fill dst and end
 * there, using all of src. */
static int inflate_exact(const struct binary *bin, const uint8_t *src,
			 size_t src_len, uint8_t *dst, size_t dst_len,
			 bool llvm24, struct err *e)
{
	static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	size_t got = 0, used = 0;
	bool ended = false, corrupt = false;
	char why[200] = "";

	if (src_len >= 4 && !memcmp(src, zstd_magic, 4)) {
		ZSTD_DCtx *dc = ZSTD_createDCtx();
		ZSTD_inBuffer in = { src, src_len, 0 };
		ZSTD_outBuffer o = { dst, dst_len, 0 };
		size_t r = 1;

		if (!dc)
			return err_nomem(e);
		/* Decode straight into dst, whose size is the declared one:
		 * no window buffer of zstd's own, whatever window the frame
		 * claims (a crafted frame could otherwise claim gigabytes). */
		ZSTD_DCtx_setParameter(dc, ZSTD_d_stableOutBuffer, 1);
		ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX);
		while (r && !ZSTD_isError(r)) {
			size_t before_in = in.pos, before_out = o.pos;

			r = ZSTD_decompressStream(dc, &o, &in);
			if (!ZSTD_isError(r) && r && in.pos == before_in &&
			    o.pos == before_out)
				break;		/* stuck: input or room gone */
		}
		ZSTD_freeDCtx(dc);
		got = o.pos;
		used = in.pos;
		ended = r == 0;
		if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall) {
			got = dst_len;	/* more to come than was declared */
		} else if (ZSTD_isError(r)) {
			corrupt = true;
			snprintf(why, sizeof(why), "zstd: %s", ZSTD_getErrorName(r));
		}
	} else {
		z_stream zs;
		int rc = Z_OK;

		memset(&zs, 0, sizeof(zs));
		if (inflateInit(&zs) != Z_OK)
			return err_nomem(e);
		zs.next_in = (Bytef *)src;
		zs.next_out = dst;
		while (rc == Z_OK) {
			size_t in_left = src_len - (size_t)(zs.next_in - src);
			size_t out_left = dst_len - (size_t)(zs.next_out - dst);

			zs.avail_in = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
			zs.avail_out = out_left > (1u << 30) ? (1u << 30) : (uInt)out_left;
			/* Z_BUF_ERROR: no input or no room left, sorted out
			 * below. */
			rc = inflate(&zs, Z_NO_FLUSH);
		}
		got = (size_t)(zs.next_out - dst);
		used = (size_t)(zs.next_in - src);
		ended = rc == Z_STREAM_END;
		if (rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			corrupt = true;
			snprintf(why, sizeof(why), "zlib: %s",
				 zs.msg ? zs.msg : zError(rc));
		}
		inflateEnd(&zs);
	}
	if (corrupt)
		return bad(e, bin, "%s", why);
	if (!ended && got == dst_len)
		return bad(e, bin, "it inflates to more than the %zu bytes its "
			   "header declares", dst_len);
	if (!ended)
		return bad(e, bin, "its compressed data is cut short (%zu of %zu "
			   "bytes inflated)", got, dst_len);
	/* LLVM 24 checks the size it inflated to itself, in its words. */
	if (got != dst_len && llvm24)
		return llvm_parse_failed(e);
	if (got != dst_len)
		return bad(e, bin, "it inflates to %zu bytes, but its header "
			   "declares %zu", got, dst_len);
	if (used != src_len)
		return bad(e, bin, "%zu bytes follow its compressed data",
			   src_len - used);
	return 0;
}

/* A compressed version 3 binary: inflate it whole (header restored with
 * its inflated size) into a buffer out owns, then read that. */
static int read_compressed(struct binary *bin, const struct package_limits *lim,
			   struct package_list *out, struct err *e)
{
	uint64_t entries = get_le(bin->b + 16, 8);
	uint64_t inflated = get_le(bin->b + 32, 8);
	uint8_t *body, **bodies;
	uint64_t packed;

	if (entries < V3_HEADER || entries > bin->size)
		return bad(e, bin, "its compressed data at offset %llu is not "
			   "inside it after its header",
			   (unsigned long long)entries);
	packed = bin->size - entries;
	if (inflated < entries || inflated % PACKAGE_ALIGN)
		return bad(e, bin, "its inflated size %llu is not a multiple of "
			   "%d past its header", (unsigned long long)inflated,
			   PACKAGE_ALIGN);
	if (inflated > lim->max_size)
		return bad(e, bin, "its inflated size %llu is more than the "
			   "limit of %llu", (unsigned long long)inflated,
			   (unsigned long long)lim->max_size);
	if ((inflated - entries) / lim->max_ratio > packed + 64)
		return bad(e, bin, "its inflated size %llu from %llu compressed "
			   "bytes is beyond a ratio of %llu:1",
			   (unsigned long long)inflated,
			   (unsigned long long)packed,
			   (unsigned long long)lim->max_ratio);
	if (inflated > SIZE_MAX)
		return err_nomem(e);
	bodies = realloc(out->bodies, (out->nbodies + 1) * sizeof(*bodies));
	if (!bodies)
		return err_nomem(e);
	out->bodies = bodies;
	body = malloc((size_t)inflated);
	if (!body)
		return err_code_set(e, ERR_NOMEM, "out of memory for an offload binary that "
			       "inflates to %llu bytes",
			       (unsigned long long)inflated);
	out->bodies[out->nbodies++] = body;
	memcpy(body, bin->b, (size_t)entries);
	if (inflate_exact(bin, bin->b + entries, (size_t)packed, body + entries,
			  (size_t)(inflated - entries), lim->llvm24, e) < 0)
		return -1;
	put_le(body + 8, inflated, 8);
	put_le(body + 32, 0, 8);
	*bin = (struct binary){ body, inflated, bin->at, 3, true };
	return read_entries(bin, V3_HEADER, out, e);
}

/* What LLVM 23 (OffloadBinary::extractHeader, on what is left and then on
 * a copy of the binary's size, and create) rejects of a version 1 or 2
 * binary, in its words: its sums wrap as LLVM's do.  Version 3 is left to
 * us in 23's mode (LLVM 23 cannot read it).  What passes is checked further by the
 * readers, in our words where LLVM would read past the binary.  LLVM 24
 * asks any binary for its 40-byte header alone, where 23 asks for an
 * entry too (a package of no image is a header alone; measured). */
static int llvm23_check(const uint8_t *b, uint64_t rem, bool llvm24,
			struct err *e)
{
	uint64_t version, size, entries, count, span;
	uint64_t least = PACKAGE_V1_HEADER + PACKAGE_ENTRY;

	if (llvm24)
		least = V3_HEADER;
	if (rem < least || memcmp(b, magic, 4))
		return llvm_parse_failed(e);
	version = get_le(b + 4, 4);
	if (version == 3 && !llvm24)
		return 0;
	if (version == 0 || version > (llvm24 ? 3u : 2u))
		return llvm_parse_failed(e);
	size = get_le(b + 8, 8);
	/* LLVM 24 reads an uncompressed version 3 binary as a version 2
	 * one; a compressed one it holds to its size before it inflates it
	 * (its entries are checked inflated, by us). */
	if (version == 3 && get_le(b + 32, 8))
		return size > rem ? llvm_unexpected_eof(e) : 0;
	entries = get_le(b + 16, 8);
	count = version == 1 ? 1 : get_le(b + 24, 8);
	span = count * PACKAGE_ENTRY;
	if (size > rem || size < PACKAGE_ENTRY)
		return llvm_unexpected_eof(e);
	if (entries > size - span || span > size - PACKAGE_V1_HEADER)
		return llvm_unexpected_eof(e);
	if (size < least)
		return llvm_parse_failed(e);
	/* The entries, where they are inside it (else ours to report). */
	if (entries > size || count > (size - entries) / PACKAGE_ENTRY)
		return 0;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *p = b + entries + i * PACKAGE_ENTRY;
		uint64_t str = get_le(p + 8, 8);

		if (get_le(p + 24, 8) > size || str > size ||
		    str + get_le(p + 16, 8) * V2_RECORD > size)
			return llvm_unexpected_eof(e);
		/* LLVM 24 checks the image's end too (no sum to wrap). */
		if (llvm24 && get_le(p + 32, 8) > size - get_le(p + 24, 8))
			return llvm_unexpected_eof(e);
	}
	return 0;
}

static int read_binary(const uint8_t *b, uint64_t rem, uint64_t at,
		       const struct package_limits *lim,
		       struct package_list *out, uint64_t *used, struct err *e)
{
	unsigned version;
	uint64_t header;
	struct binary bin;

	if (lim->llvm23 && llvm23_check(b, rem, lim->llvm24, e) < 0)
		return -1;
	if (rem < 8 || memcmp(b, magic, 4))
		return llvm_parse_failed(e);
	version = (unsigned)get_le(b + 4, 4);
	if (version == 1 && lim->llvm23) {
		/* Checked as LLVM 23 does above: ours from here. */
		bin = (struct binary){ b, get_le(b + 8, 8), at, 1, false };
		if (bin.size % PACKAGE_ALIGN)
			return bad(e, &bin, "its size is not a multiple of %d",
				   PACKAGE_ALIGN);
		*used = bin.size;
		return read_entry(&bin, get_le(b + 16, 8), out, e);
	}
	if (version == 1)
		return read_v1(b, rem, at, out, used, e);
	if (version != 2 && version != 3)
		return llvm_parse_failed(e);
	header = version == 2 ? V2_HEADER : V3_HEADER;
	bin = (struct binary){ b, rem, at, version, false };
	if (rem < header)
		return bad(e, &bin, "its %llu-byte header is cut short",
			   (unsigned long long)header);
	bin.size = get_le(b + 8, 8);
	if (bin.size > rem || bin.size < header)
		return bad(e, &bin, "its size is not between its %llu-byte "
			   "header and the %llu bytes left",
			   (unsigned long long)header, (unsigned long long)rem);
	/* Compressed binaries are padded to 8 without counting it. */
	*used = bin.size + ((PACKAGE_ALIGN - bin.size % PACKAGE_ALIGN) %
			    PACKAGE_ALIGN);
	if (*used > rem)
		*used = rem;
	if (version == 3 && get_le(b + 32, 8))
		return read_compressed(&bin, lim, out, e);
	return read_entries(&bin, header, out, e);
}

int package_scan(const uint8_t *buf, size_t len,
		 const struct package_limits *lim, struct package_list *out,
		 struct err *e)
{
	uint64_t off = 0;

	while (off < len) {
		uint64_t used = 0;

		if (read_binary(buf + off, len - off, off, lim, out, &used,
				e) < 0)
			return -1;
		off += used;
	}
	return 0;
}

const char *package_get(const struct package_image *img, const char *key,
			size_t key_len, size_t *value_len)
{
	for (size_t i = img->nstrings; i-- > 0;) {
		const struct package_string *s = &img->strings[i];

		if (s->key_len == key_len && !memcmp(s->key, key, key_len)) {
			*value_len = s->value_len;
			return s->value;
		}
	}
	return NULL;
}

void package_list_free(struct package_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].strings);
	free(l->v);
	for (size_t i = 0; i < l->nbodies; i++)
		free(l->bodies[i]);
	free(l->bodies);
	*l = (struct package_list){ 0 };
}
