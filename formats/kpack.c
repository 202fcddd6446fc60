/* kpack: AMD's per-GPU code-object archives and the references a split
 * host binary carries (see kpack.h).  The spec points cited are from
 * ROCm/rocm-kpack docs/multi_arch_packaging_with_kpack.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "kpack.h"
#include "msgp.h"
#include "../core/bytes.h"

bool kpack_probe(const uint8_t *buf, size_t len)
{
	return len >= 4 && !memcmp(buf, "KPAK", 4);
}

const char *kpack_scheme_name(enum kpack_scheme s)
{
	switch (s) {
	case KPACK_NONE:
		return "none";
	case KPACK_ZSTD:
		return "zstd-per-kernel";
	}
	return "?";
}

void kpack_free(struct kpack *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].key);
		free(k->v[i].target);
		free(k->v[i].type);
		free(k->v[i].bundle_id);
		free(k->v[i].meta);
	}
	for (size_t i = 0; i < k->narches; i++)
		free(k->arches[i]);
	free(k->v);
	free(k->arches);
	free(k->group_name);
	free(k->arch_family);
	memset(k, 0, sizeof(*k));
}

/* An unsigned integer field, required. */
static int get_u64(const msgpack_object *map, const char *key,
		   const char *where, uint64_t *v, struct err *e)
{
	const msgpack_object *o = msgp_get(map, key);

	if (!o)
		return err_code_set(e, ERR_MALFORMED, "%s has no %s", where, key);
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return err_code_set(e, ERR_MALFORMED, "%s: %s is not an "
				    "unsigned integer", where, key);
	*v = o->via.u64;
	return 0;
}

/* Where each blob or frame is: off[i], size[i] (nblobs of them). */
struct blobs {
	uint64_t *off, *size;
	size_t n;
};

/* "NoOp Compression ... TOC: Each entry stores byte offset and size": the
 * TOC's blobs array, [{offset, size}], absolute offsets in the file. */
static int read_blobs(const msgpack_object *root, size_t len,
		      struct blobs *b, struct err *e)
{
	const msgpack_object *a = msgp_get(root, "blobs");

	if (!a || a->type != MSGPACK_OBJECT_ARRAY)
		return err_code_set(e, ERR_MALFORMED, "TOC: blobs is %s",
				    a ? "not an array" : "missing");
	b->n = a->via.array.size;
	b->off = calloc(b->n ? b->n : 1, sizeof(*b->off));
	b->size = calloc(b->n ? b->n : 1, sizeof(*b->size));
	if (!b->off || !b->size)
		return err_nomem(e);
	for (size_t i = 0; i < b->n; i++) {
		const msgpack_object *m = &a->via.array.ptr[i];
		char where[48];

		snprintf(where, sizeof(where), "TOC: blob %zu", i);
		if (m->type != MSGPACK_OBJECT_MAP)
			return err_code_set(e, ERR_MALFORMED, "%s is not a map",
					    where);
		if (get_u64(m, "offset", where, &b->off[i], e) < 0 ||
		    get_u64(m, "size", where, &b->size[i], e) < 0)
			return -1;
		if (b->off[i] > len || b->size[i] > len - b->off[i])
			return err_code_set(e, ERR_TRUNCATED, "%s (offset %llu, "
					    "%llu bytes) runs past the end of "
					    "the file's %zu bytes", where,
					    (unsigned long long)b->off[i],
					    (unsigned long long)b->size[i], len);
	}
	return 0;
}

/* "Zstd Per-Kernel ... [num_kernels: uint32] [frame_0_size: uint32]
 * [zstd_frame_0] ...", the whole zstd_size bytes at zstd_offset. */
static int read_frames(const uint8_t *buf, size_t len,
		       const msgpack_object *root, struct blobs *b,
		       struct err *e)
{
	uint64_t at, size, count, pos;

	if (get_u64(root, "zstd_offset", "TOC", &at, e) < 0 ||
	    get_u64(root, "zstd_size", "TOC", &size, e) < 0)
		return -1;
	if (at > len || size > len - at)
		return err_code_set(e, ERR_TRUNCATED, "zstd blob (offset %llu, "
				    "%llu bytes) runs past the end of the "
				    "file's %zu bytes", (unsigned long long)at,
				    (unsigned long long)size, len);
	if (size < 4)
		return err_code_set(e, ERR_TRUNCATED, "zstd blob at offset %llu "
				    "is too short for its frame count",
				    (unsigned long long)at);
	count = get_le(buf + at, 4);
	/* Each frame takes at least its 4-byte size. */
	if (count > (size - 4) / 4)
		return err_code_set(e, ERR_MALFORMED, "zstd blob at offset %llu "
				    "declares %llu frames, more than its %llu "
				    "bytes can hold", (unsigned long long)at,
				    (unsigned long long)count,
				    (unsigned long long)size);
	b->n = (size_t)count;
	b->off = calloc(b->n ? b->n : 1, sizeof(*b->off));
	b->size = calloc(b->n ? b->n : 1, sizeof(*b->size));
	if (!b->off || !b->size)
		return err_nomem(e);
	pos = 4;
	for (size_t i = 0; i < b->n; i++) {
		uint64_t fsize;

		if (size - pos < 4)
			return err_code_set(e, ERR_TRUNCATED, "zstd blob: frame "
					    "%zu's size runs past the blob's end",
					    i);
		fsize = get_le(buf + at + pos, 4);
		pos += 4;
		if (fsize > size - pos)
			return err_code_set(e, ERR_TRUNCATED, "zstd blob: frame "
					    "%zu (%llu bytes) runs past the "
					    "blob's end", i,
					    (unsigned long long)fsize);
		b->off[i] = at + pos;
		b->size[i] = fsize;
		pos += fsize;
	}
	return 0;
}

static int read_arches(const msgpack_object *root, struct kpack *k,
		       struct err *e)
{
	const msgpack_object *a = msgp_get(root, "gfx_arches");
	const msgpack_object *g = msgp_get(root, "group_name");
	const msgpack_object *f = msgp_get(root, "gfx_arch_family");

	if (g && g->type == MSGPACK_OBJECT_STR &&
	    msgp_string(g, "TOC: group_name", &k->group_name, e) < 0)
		return -1;
	if (f && f->type == MSGPACK_OBJECT_STR &&
	    msgp_string(f, "TOC: gfx_arch_family", &k->arch_family, e) < 0)
		return -1;

	if (!a)
		return 0;
	if (a->type != MSGPACK_OBJECT_ARRAY)
		return err_code_set(e, ERR_MALFORMED, "TOC: gfx_arches is not "
				    "an array");
	k->arches = calloc(a->via.array.size ? a->via.array.size : 1,
			   sizeof(*k->arches));
	if (!k->arches)
		return err_nomem(e);
	for (size_t i = 0; i < a->via.array.size; i++) {
		if (msgp_string(&a->via.array.ptr[i], "TOC: a gfx_arches item",
				&k->arches[i], e) < 0)
			return -1;
		k->narches++;
	}
	return 0;
}

/* One toc[key][target] map. */
static int read_entry(const msgpack_object *key, const msgpack_object *tgt,
		      const msgpack_object *m, const struct blobs *b,
		      struct kpack *k, struct err *e)
{
	struct kpack_entry *en = &k->v[k->n];
	const msgpack_object *o;
	uint64_t ord;
	char where[600];

	memset(en, 0, sizeof(*en));
	if (msgp_string(key, "TOC: a key", &en->key, e) < 0)
		return -1;
	if (msgp_string(tgt, "TOC: a target", &en->target, e) < 0) {
		free(en->key);
		return -1;
	}
	k->n++;		/* freed with k from here on */
	snprintf(where, sizeof(where), "TOC entry '%.256s' for '%.256s'",
		 en->key, en->target);
	if (m->type != MSGPACK_OBJECT_MAP)
		return err_code_set(e, ERR_MALFORMED, "%s is not a map", where);
	if (get_u64(m, "ordinal", where, &ord, e) < 0)
		return -1;
	if (ord >= b->n)
		return err_code_set(e, ERR_MALFORMED, "%s: ordinal %llu, but "
				    "the archive has %zu %s%s", where,
				    (unsigned long long)ord, b->n,
				    k->scheme == KPACK_ZSTD ? "frame" : "blob",
				    b->n == 1 ? "" : "s");
	en->ordinal = (uint32_t)ord;
	en->offset = b->off[ord];
	en->stored = b->size[ord];
	if ((o = msgp_get(m, "original_size"))) {
		if (get_u64(m, "original_size", where, &en->size, e) < 0)
			return -1;
		en->has_size = true;
	} else if (k->scheme == KPACK_ZSTD) {
		/* The runtime inflates to original_size: without it there is
		 * nothing to inflate to. */
		return err_code_set(e, ERR_MALFORMED, "%s has no original_size",
				    where);
	} else {
		en->size = en->stored;
	}
	if ((o = msgp_get(m, "type")) &&
	    msgp_string(o, "TOC: a type", &en->type, e) < 0)
		return -1;
	/* The splitter's metadata (artifact_splitter.py): {target: the
	 * bundle entry ID, source_prefix}; optional, kept whole (an archive
	 * written again carries it), its target read when a string. */
	if ((o = msgp_get(m, "metadata"))) {
		msgpack_sbuffer sb;
		msgpack_packer pk;
		const msgpack_object *t;

		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		if (msgpack_pack_object(&pk, *o) < 0) {
			msgpack_sbuffer_destroy(&sb);
			return err_code_set(e, ERR_NOMEM, "out of memory");
		}
		en->meta_len = sb.size;	/* (release zeroes it) */
		en->meta = (uint8_t *)msgpack_sbuffer_release(&sb);
		if (o->type == MSGPACK_OBJECT_MAP &&
		    (t = msgp_get(o, "target")) &&
		    t->type == MSGPACK_OBJECT_STR &&
		    msgp_string(t, "TOC: a metadata target", &en->bundle_id,
				e) < 0)
			return -1;
	}
	return 0;
}

static int read_toc(const msgpack_object *root, const struct blobs *b,
		    struct kpack *k, struct err *e)
{
	const msgpack_object *t = msgp_get(root, "toc");
	size_t total = 0;

	if (!t || t->type != MSGPACK_OBJECT_MAP)
		return err_code_set(e, ERR_MALFORMED, "TOC: toc is %s",
				    t ? "not a map" : "missing");
	for (size_t i = 0; i < t->via.map.size; i++) {
		const msgpack_object *v = &t->via.map.ptr[i].val;

		if (v->type != MSGPACK_OBJECT_MAP)
			return err_code_set(e, ERR_MALFORMED, "TOC: key %zu's "
					    "value is not a map", i);
		total += v->via.map.size;
	}
	k->v = calloc(total ? total : 1, sizeof(*k->v));
	if (!k->v)
		return err_nomem(e);
	for (size_t i = 0; i < t->via.map.size; i++) {
		const msgpack_object *key = &t->via.map.ptr[i].key;
		const msgpack_object *v = &t->via.map.ptr[i].val;

		for (size_t j = 0; j < v->via.map.size; j++)
			if (read_entry(key, &v->via.map.ptr[j].key,
				       &v->via.map.ptr[j].val, b, k, e) < 0)
				return -1;
	}
	return 0;
}

int kpack_parse(const uint8_t *buf, size_t len, struct kpack *k,
		struct err *e)
{
	msgpack_unpacked u;
	const msgpack_object *root, *s;
	struct blobs b = { 0 };
	int rc = -1;

	memset(k, 0, sizeof(*k));
	msgpack_unpacked_init(&u);
	if (len < KPACK_HEADER_SIZE || !kpack_probe(buf, len)) {
		err_code_set(e, ERR_MALFORMED, "not a kpack archive (no "
			     "\"KPAK\" header)");
		goto out;
	}
	k->version = (uint32_t)get_le(buf + 4, 4);
	k->toc_offset = get_le(buf + 8, 8);
	if (k->version != KPACK_VERSION) {
		err_code_set(e, ERR_MALFORMED, "kpack version %u is not known "
			     "(only %d is)", k->version, KPACK_VERSION);
		goto out;
	}
	/* The TOC runs from its offset to the end of the file. */
	if (k->toc_offset < KPACK_HEADER_SIZE || k->toc_offset >= len) {
		err_code_set(e, ERR_TRUNCATED, "TOC offset %llu is outside the "
			     "file's %zu bytes",
			     (unsigned long long)k->toc_offset, len);
		goto out;
	}
	msgpack_unpacked_destroy(&u);
	if (msgp_decode(buf + k->toc_offset, len - (size_t)k->toc_offset, &u,
			e) < 0)
		goto out;
	root = &u.data;
	if (root->type != MSGPACK_OBJECT_MAP) {
		err_code_set(e, ERR_MALFORMED, "TOC is not a map");
		goto out;
	}
	s = msgp_get(root, "compression_scheme");
	if (!s || s->type != MSGPACK_OBJECT_STR) {
		err_code_set(e, ERR_MALFORMED, "TOC: compression_scheme is %s",
			     s ? "not a string" : "missing");
		goto out;
	}
	if (s->via.str.size == 4 && !memcmp(s->via.str.ptr, "none", 4)) {
		k->scheme = KPACK_NONE;
	} else if (s->via.str.size == 15 &&
		   !memcmp(s->via.str.ptr, "zstd-per-kernel", 15)) {
		k->scheme = KPACK_ZSTD;
	} else {
		err_code_set(e, ERR_MALFORMED, "compression scheme '%.*s' is "
			     "not known", (int)(s->via.str.size < 64 ?
						s->via.str.size : 64),
			     s->via.str.ptr);
		goto out;
	}
	if ((k->scheme == KPACK_NONE ? read_blobs(root, len, &b, e)
				      : read_frames(buf, len, root, &b, e)) < 0)
		goto out;
	k->nblobs = b.n;
	if (read_arches(root, k, e) < 0 || read_toc(root, &b, k, e) < 0)
		goto out;
	rc = 0;
out:
	msgpack_unpacked_destroy(&u);
	free(b.off);
	free(b.size);
	if (rc < 0)
		kpack_free(k);
	return rc;
}

int kpack_entry_stored_whole(const struct kpack_entry *en, struct err *e)
{
	if (en->size != en->stored)
		return err_code_set(e, ERR_MALFORMED, "entry '%.256s' for "
				    "'%.64s': original_size %llu, but its blob "
				    "has %llu bytes", en->key, en->target,
				    (unsigned long long)en->size,
				    (unsigned long long)en->stored);
	return 0;
}

int kpack_entry_code(const uint8_t *buf, size_t len, const struct kpack *k,
		     size_t i, const struct ccob_limits *lim, uint8_t **out,
		     uint64_t *size, struct err *e)
{
	const struct kpack_entry *en = &k->v[i];
	uint8_t *p;
	size_t got;

	*out = NULL;
	*size = 0;
	if (en->offset > len || en->stored > len - en->offset)
		return err_code_set(e, ERR_TRUNCATED, "entry '%.256s' runs past "
				    "the end of the archive", en->key);
	switch (k->scheme) {
	case KPACK_NONE:
		if (kpack_entry_stored_whole(en, e) < 0)
			return -1;
		p = malloc(en->stored ? en->stored : 1);
		if (!p)
			return err_nomem(e);
		memcpy(p, buf + en->offset, en->stored);
		*out = p;
		*size = en->stored;
		return 0;
	case KPACK_ZSTD:
		break;
	}
	/* The declared size is believed only within the limits: the ratio
	 * first, which says the same on every machine. */
	if (en->size / lim->max_ratio > en->stored + 64)
		return err_code_set(e, ERR_MALFORMED, "entry '%.256s' declares "
				    "%llu bytes from %llu compressed ones, "
				    "beyond a ratio of %llu:1", en->key,
				    (unsigned long long)en->size,
				    (unsigned long long)en->stored,
				    (unsigned long long)lim->max_ratio);
	if (en->size > lim->max_size)
		return err_code_set(e, ERR_MALFORMED, "entry '%.256s' declares "
				    "%llu bytes, more than the limit of %llu",
				    en->key, (unsigned long long)en->size,
				    (unsigned long long)lim->max_size);
	p = malloc(en->size ? (size_t)en->size : 1);
	if (!p)
		return err_nomem(e);
	got = ZSTD_decompress(p, (size_t)en->size, buf + en->offset,
			      (size_t)en->stored);
	if (ZSTD_isError(got)) {
		free(p);
		return err_code_set(e, ERR_DECOMPRESS, "entry '%.256s': zstd: %s",
				    en->key, ZSTD_getErrorName(got));
	}
	if (got != en->size) {
		free(p);
		return err_code_set(e, ERR_TRUNCATED, "entry '%.256s' inflates "
				    "to %zu bytes, not the %llu its TOC "
				    "declares", en->key, got,
				    (unsigned long long)en->size);
	}
	*out = p;
	*size = got;
	return 0;
}

void kpack_ref_free(struct kpack_ref *r)
{
	free(r->kernel_name);
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i]);
	free(r->paths);
	memset(r, 0, sizeof(*r));
}

/* "Add .rocm_kpack_ref Marker Section": {kernel_name, kpack_search_paths},
 * the paths a non-empty array of strings (as the runtime requires). */
int kpack_ref_parse(const uint8_t *buf, size_t len, struct kpack_ref *r,
		    struct err *e)
{
	msgpack_unpacked u;
	const msgpack_object *a;
	size_t pos = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	msgpack_unpacked_init(&u);
	/* The section may be padded after its one object. */
	if (msgp_check(buf, len, &pos, e) < 0)
		goto out;
	msgpack_unpacked_destroy(&u);
	if (msgp_decode(buf, pos, &u, e) < 0)
		goto out;
	if (u.data.type != MSGPACK_OBJECT_MAP) {
		err_code_set(e, ERR_MALFORMED, ".rocm_kpack_ref is not a map");
		goto out;
	}
	if (msgp_string(msgp_get(&u.data, "kernel_name"),
			".rocm_kpack_ref kernel_name", &r->kernel_name, e) < 0)
		goto out;
	a = msgp_get(&u.data, "kpack_search_paths");
	if (!a || a->type != MSGPACK_OBJECT_ARRAY || !a->via.array.size) {
		err_code_set(e, ERR_MALFORMED, ".rocm_kpack_ref "
			     "kpack_search_paths is %s", !a ? "missing" :
			     a->type != MSGPACK_OBJECT_ARRAY ? "not an array" :
			     "empty");
		goto out;
	}
	r->paths = calloc(a->via.array.size, sizeof(*r->paths));
	if (!r->paths) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < a->via.array.size; i++) {
		if (msgp_string(&a->via.array.ptr[i], ".rocm_kpack_ref a "
				"search path", &r->paths[i], e) < 0)
			goto out;
		r->npaths++;
	}
	rc = 0;
out:
	msgpack_unpacked_destroy(&u);
	if (rc < 0)
		kpack_ref_free(r);
	return rc;
}

/* "Rewrite Magic (HIPF -> HIPK)": the wrapper keeps its layout, u32 magic,
 * u32 version, then two pointers, reserved1 the code object's index. */
int kpack_wrappers(const uint8_t *p, uint64_t n, bool is64, bool big_endian,
		   uint64_t **index, size_t *nhipk, size_t *nhipf,
		   struct err *e)
{
	unsigned ptr = is64 ? 8 : 4, size = 8 + 2 * ptr;

	*index = NULL;
	*nhipk = *nhipf = 0;
	if (n % size)
		return err_code_set(e, ERR_MALFORMED, ".hipFatBinSegment: %llu "
				    "bytes, not a whole number of %u-byte "
				    "wrappers", (unsigned long long)n, size);
	*index = calloc(n / size ? (size_t)(n / size) : 1, sizeof(**index));
	if (!*index)
		return err_nomem(e);
	for (uint64_t at = 0; at < n; at += size) {
		uint32_t magic = (uint32_t)get_endian(p + at, 4, big_endian);

		if (magic == KPACK_HIPK) {
			(*index)[(*nhipk)++] =
				get_endian(p + at + 8 + ptr, (int)ptr, big_endian);
		} else if (magic == KPACK_HIPF) {
			(*nhipf)++;
		} else {
			free(*index);
			*index = NULL;
			*nhipk = 0;
			return err_code_set(e, ERR_MALFORMED, ".hipFatBinSegment: "
					    "wrapper at offset %llu has magic "
					    "0x%08x, neither HIPF nor HIPK",
					    (unsigned long long)at, magic);
		}
	}
	return 0;
}

static const char placeholder[] = "@GFXARCH@";

char *kpack_expand(const char *pattern, const char *target)
{
	const char *at = strstr(pattern, placeholder);
	size_t head, plen = sizeof(placeholder) - 1;
	char *out;

	if (!at)
		return strdup(pattern);
	head = (size_t)(at - pattern);
	out = malloc(strlen(pattern) - plen + strlen(target) + 1);
	if (!out)
		return NULL;
	memcpy(out, pattern, head);
	strcpy(out + head, target);
	strcat(out, at + plen);
	return out;
}

bool kpack_name_matches(const char *pattern, const char *name, char **target)
{
	const char *at = strstr(pattern, placeholder);
	size_t head, tail, n = strlen(name), plen = sizeof(placeholder) - 1;

	*target = NULL;
	if (!at)
		return false;
	head = (size_t)(at - pattern);
	tail = strlen(at + plen);
	/* A target ID: "gfx" and more, with no '/' (a file name). */
	if (n < head + tail + 4 || memcmp(name, pattern, head) ||
	    memcmp(name + n - tail, at + plen, tail) ||
	    memcmp(name + head, "gfx", 3))
		return false;
	*target = strndup(name + head, n - head - tail);
	return *target != NULL;
}
