/* kpack_write: an AMD kpack archive written as rocm-kpack writes it (see
 * kpack.h; the reference is python/rocm_kpack/kpack.py,
 * PackedKernelArchive.write, and compression.py, run on our inputs by
 * test/files/kpack/make.sh, never copied).  The TOC goes through
 * libmsgpackc's packer: its choices are Python msgpack's (the smallest
 * form of each integer, count and string length, str8 included), which
 * kpack_split.test checks against archives rocm-kpack wrote. */
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "kpack_write.h"
#include "../core/bytes.h"

/* "Fixed Binary Header ... Padding to 64-byte boundary" (kpack.py,
 * BLOB_ALIGNMENT): the blobs start at 64. */
enum { BLOB_START = 64 };

struct buf {
	uint8_t *p;
	size_t n, cap;
	bool nomem;
};

static int buf_put(void *ctx, const char *p, size_t n)
{
	struct buf *b = ctx;

	if (b->nomem)
		return -1;
	if (n > b->cap - b->n) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *q;

		while (cap - b->n < n) {
			if (cap > SIZE_MAX / 2) {
				b->nomem = true;
				return -1;
			}
			cap *= 2;
		}
		q = realloc(b->p, cap);
		if (!q) {
			b->nomem = true;
			return -1;
		}
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

static void str(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

int kpack_meta_strings(const char *const *kv, size_t npairs, uint8_t **out,
		       size_t *len, struct err *e)
{
	struct buf b = { 0 };
	msgpack_packer pk;

	msgpack_packer_init(&pk, &b, buf_put);
	msgpack_pack_map(&pk, npairs);
	for (size_t i = 0; i < 2 * npairs; i++)
		str(&pk, kv[i]);
	if (b.nomem) {
		free(b.p);
		return err_nomem(e);
	}
	*out = b.p;
	*len = b.n;
	return 0;
}

int kpack_ref_pack(const char *kernel_name, const char *const *paths,
		   size_t npaths, uint8_t **out, size_t *len, struct err *e)
{
	struct buf b = { 0 };
	msgpack_packer pk;

	msgpack_packer_init(&pk, &b, buf_put);
	msgpack_pack_map(&pk, 2);
	str(&pk, "kpack_search_paths");
	msgpack_pack_array(&pk, npaths);
	for (size_t i = 0; i < npaths; i++)
		str(&pk, paths[i]);
	str(&pk, "kernel_name");
	str(&pk, kernel_name);
	if (b.nomem) {
		free(b.p);
		return err_nomem(e);
	}
	*out = b.p;
	*len = b.n;
	return 0;
}

/* The kernels grouped as the TOC's dict groups them: by key, each key
 * where its first kernel came, its kernels in their order. */
struct order {
	const struct kpack_new *v;
	size_t *ix;		/* indices sorted by (key, index) */
	size_t *first;		/* first[i]: the first index of ix[i]'s key */
};

static const struct kpack_new *sort_v;

static int by_key(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_v[x].key, sort_v[y].key);

	return c ? c : (x > y) - (x < y);
}

/* Group position: by the first index of the key, then by index. */
static int by_group(const void *a, const void *b)
{
	const size_t *x = a, *y = b;	/* pairs: first, index */

	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* pairs (first index of its key, index) of every kernel, in TOC order;
 * the same key and arch twice is an error. */
static int toc_order(const struct kpack_new *v, size_t n, size_t **pairs,
		     struct err *e)
{
	size_t *ix = malloc((n ? n : 1) * sizeof(*ix));
	size_t *pr = malloc((n ? n : 1) * 2 * sizeof(*pr));

	if (!ix || !pr) {
		free(ix);
		free(pr);
		return err_nomem(e);
	}
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	sort_v = v;
	qsort(ix, n, sizeof(*ix), by_key);
	for (size_t i = 0, start = 0; i < n; i++) {
		if (i && strcmp(v[ix[i]].key, v[ix[i - 1]].key))
			start = i;
		for (size_t j = start; j < i; j++)
			if (!strcmp(v[ix[j]].arch, v[ix[i]].arch)) {
				size_t at = ix[i];

				free(ix);
				free(pr);
				return err_code_set(e, ERR_MALFORMED,
						    "kernel '%.512s' for '%.64s' "
						    "given twice", v[at].key,
						    v[at].arch);
			}
		pr[2 * i] = ix[start];
		pr[2 * i + 1] = ix[i];
	}
	qsort(pr, n, 2 * sizeof(*pr), by_group);
	free(ix);
	*pairs = pr;
	return 0;
}

/* The TOC map, its blob fields from off/size (none) or zoff/zsize. */
static int pack_toc(const struct kpack_new *v, size_t n,
		    const struct kpack_write_opts *o, const size_t *pairs,
		    const uint64_t *off, uint64_t zoff, uint64_t zsize,
		    struct buf *b, struct err *e)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, b, buf_put);
	msgpack_pack_map(&pk, o->scheme == KPACK_NONE ? 7 : 8);
	str(&pk, "format_version");
	msgpack_pack_uint64(&pk, KPACK_VERSION);
	str(&pk, "group_name");
	str(&pk, o->group_name);
	str(&pk, "gfx_arch_family");
	str(&pk, o->arch_family);
	str(&pk, "gfx_arches");
	msgpack_pack_array(&pk, o->narches);
	for (size_t i = 0; i < o->narches; i++)
		str(&pk, o->arches[i]);
	str(&pk, "toc");
	{
		size_t keys = 0;

		for (size_t i = 0; i < n; i++)
			keys += !i || pairs[2 * i] != pairs[2 * i - 2];
		msgpack_pack_map(&pk, keys);
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && pairs[2 * j] == pairs[2 * i])
			j++;
		str(&pk, v[pairs[2 * i]].key);
		msgpack_pack_map(&pk, j - i);
		for (; i < j; i++) {
			const struct kpack_new *k = &v[pairs[2 * i + 1]];

			str(&pk, k->arch);
			msgpack_pack_map(&pk, k->meta ? 4 : 3);
			str(&pk, "type");
			str(&pk, "hsaco");
			str(&pk, "ordinal");
			msgpack_pack_uint64(&pk, pairs[2 * i + 1]);
			str(&pk, "original_size");
			msgpack_pack_uint64(&pk, k->size);
			if (k->meta) {
				str(&pk, "metadata");
				buf_put(b, (const char *)k->meta, k->meta_len);
			}
		}
	}
	str(&pk, "compression_scheme");
	str(&pk, kpack_scheme_name(o->scheme));
	if (o->scheme == KPACK_NONE) {
		str(&pk, "blobs");
		msgpack_pack_array(&pk, n);
		for (size_t i = 0; i < n; i++) {
			msgpack_pack_map(&pk, 2);
			str(&pk, "offset");
			msgpack_pack_uint64(&pk, off[i]);
			str(&pk, "size");
			msgpack_pack_uint64(&pk, v[i].size);
		}
	} else {
		str(&pk, "zstd_offset");
		msgpack_pack_uint64(&pk, zoff);
		str(&pk, "zstd_size");
		msgpack_pack_uint64(&pk, zsize);
	}
	if (b->nomem)
		return err_nomem(e);
	/* What offload's own readers take (kpack.h), written no larger. */
	if (n > KPACK_ENTRIES_MAX || o->narches > KPACK_ARCHES_MAX ||
	    b->n > KPACK_TOC_MAX)
		return err_code_set(e, ERR_OTHER, "an archive of %zu kernels, "
				    "%zu targets, a TOC of %zu bytes: more than "
				    "the %d, %d and %d bytes offload reads", n,
				    o->narches, b->n, KPACK_ENTRIES_MAX,
				    KPACK_ARCHES_MAX, KPACK_TOC_MAX);
	return 0;
}

/* "zstd-per-kernel": each kernel a frame of its own (ZstdCompressor,
 * level level, one shot: the content size in the frame header), into f[i]
 * (malloc'd, fn[i] bytes), with cx. */
static int frames_cx(ZSTD_CCtx *cx, const struct kpack_new *v, size_t n,
		     int level, uint8_t **f, size_t *fn, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		size_t cap = ZSTD_compressBound(v[i].size), r;

		if (ZSTD_isError(cap) || v[i].size > SIZE_MAX ||
		    !(f[i] = malloc(cap ? cap : 1)))
			return err_nomem(e);
		r = ZSTD_compressCCtx(cx, f[i], cap, v[i].code,
				      (size_t)v[i].size, level);
		if (ZSTD_isError(r))
			return err_code_set(e, ERR_DECOMPRESS, "zstd: %s",
					    ZSTD_getErrorName(r));
		if (r > UINT32_MAX)
			return err_code_set(e, ERR_OTHER, "kernel '%.512s': "
					    "its zstd frame is 4 GiB or more",
					    v[i].key);
		fn[i] = r;
	}
	return 0;
}

static int frames(const struct kpack_new *v, size_t n, int level,
		  uint8_t **f, size_t *fn, struct err *e)
{
	ZSTD_CCtx *cx = ZSTD_createCCtx();
	int rc;

	if (!cx)
		return err_nomem(e);
	rc = frames_cx(cx, v, n, level, f, fn, e);
	ZSTD_freeCCtx(cx);
	return rc;
}

int kpack_write(const struct kpack_new *v, size_t n,
		const struct kpack_write_opts *o, kpack_sink *out, void *ctx,
		struct err *e)
{
	static const uint8_t zeros[BLOB_START - KPACK_HEADER_SIZE];
	uint8_t head[KPACK_HEADER_SIZE];
	size_t *pairs = NULL, *fn = NULL;
	uint8_t **f = NULL;
	uint64_t *off = NULL, at = BLOB_START, zsize = 0;
	struct buf toc = { 0 };
	int rc = -1;

	for (size_t i = 0; i < n; i++)
		if (!*v[i].key || !*v[i].arch)
			return err_code_set(e, ERR_MALFORMED, "kernel %zu: an "
					    "empty %s", i, *v[i].key ? "target"
					    : "key");
	if (toc_order(v, n, &pairs, e) < 0)
		return -1;
	if (o->scheme == KPACK_NONE) {
		if (!(off = calloc(n ? n : 1, sizeof(*off)))) {
			err_nomem(e);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			off[i] = at;
			at += v[i].size;
		}
	} else {
		if (!(f = calloc(n ? n : 1, sizeof(*f))) ||
		    !(fn = calloc(n ? n : 1, sizeof(*fn)))) {
			err_nomem(e);
			goto out;
		}
		if (frames(v, n, o->level, f, fn, e) < 0)
			goto out;
		zsize = 4;
		for (size_t i = 0; i < n; i++)
			zsize += 4 + fn[i];
		at += zsize;
	}
	if (pack_toc(v, n, o, pairs, off, BLOB_START, zsize, &toc, e) < 0)
		goto out;
	memcpy(head, "KPAK", 4);
	put_le(head + 4, KPACK_VERSION, 4);
	put_le(head + 8, at, 8);
	if (out(ctx, head, sizeof(head), e) < 0 ||
	    out(ctx, zeros, sizeof(zeros), e) < 0)
		goto out;
	if (o->scheme == KPACK_NONE) {
		for (size_t i = 0; i < n; i++)
			if (v[i].size && out(ctx, v[i].code, v[i].size, e) < 0)
				goto out;
	} else {
		uint8_t w[4];

		put_le(w, n, 4);
		if (out(ctx, w, 4, e) < 0)
			goto out;
		for (size_t i = 0; i < n; i++) {
			put_le(w, fn[i], 4);
			if (out(ctx, w, 4, e) < 0 ||
			    out(ctx, f[i], fn[i], e) < 0)
				goto out;
		}
	}
	rc = out(ctx, toc.p, toc.n, e);
out:
	if (f)
		for (size_t i = 0; i < n; i++)
			free(f[i]);
	free(f);
	free(fn);
	free(off);
	free(pairs);
	free(toc.p);
	return rc;
}

void kpack_stream_free(struct kpack_stream *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free((char *)st->v[i].key);
		free((char *)st->v[i].arch);
		free((uint8_t *)st->v[i].meta);
	}
	for (size_t i = 0; i < st->o.narches; i++)
		free(st->arches ? st->arches[i] : NULL);
	free(st->arches);
	free(st->group);
	free(st->family);
	free(st->v);
	free(st->off);
	ZSTD_freeCCtx(st->cctx);
	memset(st, 0, sizeof(*st));
}

int kpack_stream_begin(struct kpack_stream *st,
		       const struct kpack_write_opts *o, kpack_sink *out,
		       void *ctx, struct err *e)
{
	static const uint8_t zeros[BLOB_START];

	memset(st, 0, sizeof(*st));
	st->o = *o;
	st->o.narches = 0;
	if (!(st->group = strdup(o->group_name)) ||
	    !(st->family = strdup(o->arch_family)) ||
	    !(st->arches = calloc(o->narches + 1, sizeof(*st->arches))))
		goto oom;
	for (; st->o.narches < o->narches; st->o.narches++)
		if (!(st->arches[st->o.narches] =
		      strdup(o->arches[st->o.narches])))
			goto oom;
	st->o.group_name = st->group;
	st->o.arch_family = st->family;
	st->o.arches = (const char *const *)st->arches;
	if (o->scheme == KPACK_ZSTD && !(st->cctx = ZSTD_createCCtx()))
		goto oom;
	/* The header, the zeros to 64 and, for zstd, the count: all zeros
	 * until kpack_stream_end says what they are. */
	st->at = BLOB_START + (o->scheme == KPACK_ZSTD ? 4 : 0);
	return out(ctx, "KPAK\1\0\0\0", 8, e) < 0 ||
	       out(ctx, zeros, st->at - 8, e) < 0 ? -1 : 0;
oom:
	kpack_stream_free(st);
	return err_nomem(e);
}

int kpack_stream_add(struct kpack_stream *st, const struct kpack_new *k,
		     kpack_sink *out, void *ctx, struct err *e)
{
	struct kpack_new *n;
	uint8_t w[4], *f = NULL;
	size_t fn = 0;

	if (!*k->key || !*k->arch)
		return err_code_set(e, ERR_MALFORMED, "kernel %zu: an empty "
				    "%s", st->n, *k->key ? "target" : "key");
	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 16;
		struct kpack_new *v = realloc(st->v, cap * sizeof(*v));
		uint64_t *off;

		if (!v)
			return err_nomem(e);
		st->v = v;
		if (!(off = realloc(st->off, cap * sizeof(*off))))
			return err_nomem(e);
		st->off = off;
		st->cap = cap;
	}
	n = &st->v[st->n];
	memset(n, 0, sizeof(*n));
	n->size = k->size;
	n->meta_len = k->meta_len;
	if (!(n->key = strdup(k->key)) || !(n->arch = strdup(k->arch)) ||
	    (k->meta && !(n->meta = malloc(k->meta_len ? k->meta_len : 1)))) {
		free((char *)n->key);
		free((char *)n->arch);
		return err_nomem(e);
	}
	if (k->meta)
		memcpy((uint8_t *)n->meta, k->meta, k->meta_len);
	st->off[st->n++] = st->at;
	if (st->o.scheme == KPACK_NONE) {
		st->at += k->size;
		return k->size ? out(ctx, k->code, k->size, e) : 0;
	}
	{
		struct kpack_new one = *k;

		if (frames_cx(st->cctx, &one, 1, st->o.level, &f, &fn, e) < 0) {
			free(f);
			return -1;
		}
	}
	put_le(w, fn, 4);
	st->at += 4 + fn;
	if (out(ctx, w, 4, e) < 0 || out(ctx, f, fn, e) < 0) {
		free(f);
		return -1;
	}
	free(f);
	return 0;
}

int kpack_stream_end(struct kpack_stream *st, kpack_sink *out, void *ctx,
		     uint8_t head[KPACK_HEADER_SIZE], uint8_t count[4],
		     struct err *e)
{
	struct buf toc = { 0 };
	size_t *pairs = NULL;
	int rc = -1;

	if (st->o.scheme == KPACK_ZSTD && st->n > UINT32_MAX)
		return err_code_set(e, ERR_OTHER, "%zu kernels: more than a "
				    "zstd-per-kernel archive counts", st->n);
	if (toc_order(st->v, st->n, &pairs, e) < 0)
		return -1;
	if (pack_toc(st->v, st->n, &st->o, pairs, st->off, BLOB_START,
		     st->at - BLOB_START, &toc, e) == 0 &&
	    out(ctx, toc.p, toc.n, e) == 0) {
		memcpy(head, "KPAK", 4);
		put_le(head + 4, KPACK_VERSION, 4);
		put_le(head + 8, st->at, 8);
		put_le(count, st->n, 4);
		rc = 0;
	}
	free(pairs);
	free(toc.p);
	return rc;
}
