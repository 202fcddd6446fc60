/* kpack: AMD's per-GPU code-object archives (see kpack.h).  The spec
 * points cited are from ROCm/rocm-kpack
 * docs/multi_arch_packaging_with_kpack.md. */
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

enum { MEM_CHUNK = 64 << 10 };

struct kpack_mem {
	struct kpack_mem *next;
	size_t used, cap;
	unsigned char b[];
};

/* n bytes of k's memory; a big piece gets a chunk of its own, behind the
 * one being filled. */
static void *mem_get(struct kpack *k, size_t n)
{
	struct kpack_mem *m = k->mem;

	if (m && m->cap - m->used >= n) {
		m->used += n;
		return m->b + m->used - n;
	}
	if (n > MEM_CHUNK / 4 && m) {
		struct kpack_mem *big = malloc(sizeof(*big) + n);

		if (!big)
			return NULL;
		*big = (struct kpack_mem){ m->next, n, n };
		m->next = big;
		return big->b;
	}
	if (!(m = malloc(sizeof(*m) + (n > MEM_CHUNK ? n : MEM_CHUNK))))
		return NULL;
	*m = (struct kpack_mem){ k->mem, n, n > MEM_CHUNK ? n : MEM_CHUNK };
	k->mem = m;
	return m->b;
}

void kpack_free(struct kpack *k)
{
	while (k->mem) {
		struct kpack_mem *m = k->mem;

		k->mem = m->next;
		free(m);
	}
	free(k->v);
	free(k->arches);
	memset(k, 0, sizeof(*k));
}

/* A bound of this reader (kpack.h), not of the format. */
static int over(struct err *e, const char *subject, uint64_t n,
		const char *noun, uint64_t max)
{
	return err_code_set(e, ERR_OTHER, "%s %llu %s, more than the %llu "
			    "offload takes", subject, (unsigned long long)n,
			    noun, (unsigned long long)max);
}

/* The TOC being read: the archive, a cursor over its TOC. */
struct toc {
	const uint8_t *buf;
	size_t len;
	struct msgp_cur c;
	struct kpack *k;
	struct err *e;
};

/* The object at offset at of the TOC (SIZE_MAX: none, *it zeroed), its
 * head read: 1 when there, 0 when not. */
static int item_at(struct toc *t, size_t at, struct msgp_item *it)
{
	memset(it, 0, sizeof(*it));
	if (at == SIZE_MAX)
		return 0;
	t->c.pos = at;
	return msgp_read(&t->c, it, t->e) < 0 ? -1 : 1;
}

/* The string at offset at into k's memory, NUL-terminated. */
static int toc_str(struct toc *t, size_t at, const char *what, char **out)
{
	struct msgp_item it;
	int there = item_at(t, at, &it);

	if (there < 0 || msgp_str_check(&it, there, what, t->e) < 0)
		return -1;
	if (!(*out = mem_get(t->k, (size_t)it.n + 1)))
		return err_nomem(t->e);
	memcpy(*out, it.p, (size_t)it.n);
	(*out)[it.n] = '\0';
	return 0;
}

/* The unsigned integer at offset at, the field key of where, required
 * (at SIZE_MAX: missing). */
static int toc_u64(struct toc *t, size_t at, const char *key,
		   const char *where, uint64_t *v)
{
	struct msgp_item it;
	int there = item_at(t, at, &it);

	if (there < 0)
		return -1;
	if (!there)
		return err_code_set(t->e, ERR_MALFORMED, "%s has no %s", where,
				    key);
	if (it.type != MSGP_UINT)
		return err_code_set(t->e, ERR_MALFORMED, "%s: %s is not an "
				    "unsigned integer", where, key);
	*v = it.n;
	return 0;
}

/* Where each blob or frame is: off[i], size[i] (nblobs of them). */
struct blobs {
	uint64_t *off, *size;
	size_t n;
};

static int alloc_blobs(struct blobs *b, struct err *e)
{
	b->off = calloc(b->n ? b->n : 1, sizeof(*b->off));
	b->size = calloc(b->n ? b->n : 1, sizeof(*b->size));
	return b->off && b->size ? 0 : err_nomem(e);
}

/* Stored bytes lie between the header and the TOC, as the splitter lays
 * them out: none in the TOC, where they would be counted twice. */
static int in_blob_area(const struct kpack *k, uint64_t off, uint64_t size,
			const char *what, struct err *e)
{
	if (off < KPACK_HEADER_SIZE || off > k->toc_offset ||
	    size > k->toc_offset - off)
		return err_code_set(e, ERR_MALFORMED, "%s (offset %llu, %llu "
				    "bytes) is not between the header and the "
				    "TOC (at %llu)", what,
				    (unsigned long long)off,
				    (unsigned long long)size,
				    (unsigned long long)k->toc_offset);
	return 0;
}

/* "NoOp Compression ... TOC: Each entry stores byte offset and size": the
 * TOC's blobs array, [{offset, size}], absolute offsets in the file. */
static int read_blobs(struct toc *t, size_t at, struct blobs *b)
{
	static const char *const names[] = { "offset", "size" };
	struct msgp_item a;
	int there = item_at(t, at, &a);

	if (there < 0)
		return -1;
	if (!there || a.type != MSGP_ARRAY)
		return err_code_set(t->e, ERR_MALFORMED, "TOC: blobs is %s",
				    there ? "not an array" : "missing");
	if (a.n > KPACK_ENTRIES_MAX)
		return over(t->e, "TOC has", a.n, "blobs", KPACK_ENTRIES_MAX);
	b->n = (size_t)a.n;
	if (alloc_blobs(b, t->e) < 0)
		return -1;
	for (size_t i = 0; i < b->n; i++) {
		struct msgp_item m;
		size_t f[2], next;
		char where[48];

		snprintf(where, sizeof(where), "TOC: blob %zu", i);
		if (msgp_read(&t->c, &m, t->e) < 0)
			return -1;
		if (m.type != MSGP_MAP)
			return err_code_set(t->e, ERR_MALFORMED, "%s is not a "
					    "map", where);
		if (msgp_fields(&t->c, m.n, names, 2, f, t->e) < 0)
			return -1;
		next = t->c.pos;
		if (toc_u64(t, f[0], "offset", where, &b->off[i]) < 0 ||
		    toc_u64(t, f[1], "size", where, &b->size[i]) < 0)
			return -1;
		t->c.pos = next;
		if (b->off[i] > t->len || b->size[i] > t->len - b->off[i])
			return err_code_set(t->e, ERR_TRUNCATED, "%s (offset %llu, "
					    "%llu bytes) runs past the end of "
					    "the file's %zu bytes", where,
					    (unsigned long long)b->off[i],
					    (unsigned long long)b->size[i],
					    t->len);
		if (in_blob_area(t->k, b->off[i], b->size[i], where, t->e) < 0)
			return -1;
	}
	return 0;
}

/* "Zstd Per-Kernel ... [num_kernels: uint32] [frame_0_size: uint32]
 * [zstd_frame_0] ...", the whole zstd_size bytes at zstd_offset. */
static int read_frames(struct toc *t, size_t at_off, size_t at_size,
		       struct blobs *b)
{
	const uint8_t *buf = t->buf;
	uint64_t at, size, count, pos;
	char what[64];

	if (toc_u64(t, at_off, "zstd_offset", "TOC", &at) < 0 ||
	    toc_u64(t, at_size, "zstd_size", "TOC", &size) < 0)
		return -1;
	if (at > t->len || size > t->len - at)
		return err_code_set(t->e, ERR_TRUNCATED, "zstd blob (offset "
				    "%llu, %llu bytes) runs past the end of the "
				    "file's %zu bytes", (unsigned long long)at,
				    (unsigned long long)size, t->len);
	if (in_blob_area(t->k, at, size, "zstd blob", t->e) < 0)
		return -1;
	if (size < 4)
		return err_code_set(t->e, ERR_TRUNCATED, "zstd blob at offset "
				    "%llu is too short for its frame count",
				    (unsigned long long)at);
	count = get_le(buf + at, 4);
	/* Each frame takes at least its 4-byte size. */
	if (count > (size - 4) / 4)
		return err_code_set(t->e, ERR_MALFORMED, "zstd blob at offset "
				    "%llu declares %llu frames, more than its "
				    "%llu bytes can hold", (unsigned long long)at,
				    (unsigned long long)count,
				    (unsigned long long)size);
	snprintf(what, sizeof(what), "zstd blob at offset %llu has",
		 (unsigned long long)at);
	if (count > KPACK_ENTRIES_MAX)
		return over(t->e, what, count, "frames", KPACK_ENTRIES_MAX);
	b->n = (size_t)count;
	if (alloc_blobs(b, t->e) < 0)
		return -1;
	pos = 4;
	for (size_t i = 0; i < b->n; i++) {
		uint64_t fsize;

		if (size - pos < 4)
			return err_code_set(t->e, ERR_TRUNCATED, "zstd blob: frame "
					    "%zu's size runs past the blob's end",
					    i);
		fsize = get_le(buf + at + pos, 4);
		pos += 4;
		if (fsize > size - pos)
			return err_code_set(t->e, ERR_TRUNCATED, "zstd blob: frame "
					    "%zu (%llu bytes) runs past the "
					    "blob's end", i,
					    (unsigned long long)fsize);
		b->off[i] = at + pos;
		b->size[i] = fsize;
		pos += fsize;
	}
	return 0;
}

static int read_arches(struct toc *t, size_t at, size_t at_group,
		       size_t at_family)
{
	struct kpack *k = t->k;
	struct msgp_item a;
	int there;

	/* group_name and gfx_arch_family are kept when strings. */
	if ((there = item_at(t, at_group, &a)) < 0 ||
	    (there && a.type == MSGP_STR &&
	     toc_str(t, at_group, "TOC: group_name", &k->group_name) < 0))
		return -1;
	if ((there = item_at(t, at_family, &a)) < 0 ||
	    (there && a.type == MSGP_STR &&
	     toc_str(t, at_family, "TOC: gfx_arch_family",
		     &k->arch_family) < 0))
		return -1;

	if ((there = item_at(t, at, &a)) <= 0)
		return there;
	if (a.type != MSGP_ARRAY)
		return err_code_set(t->e, ERR_MALFORMED, "TOC: gfx_arches is not "
				    "an array");
	if (a.n > KPACK_ARCHES_MAX)
		return over(t->e, "TOC has", a.n, "gfx_arches",
			    KPACK_ARCHES_MAX);
	k->arches = calloc(a.n ? (size_t)a.n : 1, sizeof(*k->arches));
	if (!k->arches)
		return err_nomem(t->e);
	for (size_t i = 0, item = t->c.pos; i < a.n; i++) {
		size_t next;

		t->c.pos = item;
		if (msgp_skip(&t->c, t->e) < 0)
			return -1;
		next = t->c.pos;
		if (toc_str(t, item, "TOC: a gfx_arches item", &k->arches[i]) < 0)
			return -1;
		k->narches++;
		item = next;
	}
	return 0;
}

/* The entry's metadata, the object at offset at, in the smallest form of
 * each value: the TOC's own bytes when they are that already (the
 * splitter's are: nothing kept), else packed again into k's memory (only
 * ever shorter: a value in another form takes more bytes). */
struct meta_sink {
	uint8_t *p;		/* NULL: count */
	size_t n, cap;
};

static int meta_write(void *data, const char *buf, size_t len)
{
	struct meta_sink *m = data;

	if (m->p) {
		if (len > m->cap - m->n)
			return -1;
		memcpy(m->p + m->n, buf, len);
	}
	m->n += len;
	return 0;
}

static int read_meta(struct toc *t, size_t at, struct kpack_entry *en)
{
	static const char *const names[] = { "target" };
	struct meta_sink m = { 0 };
	msgpack_packer pk;
	struct msgp_item it;
	size_t f, raw;

	t->c.pos = at;
	if (msgp_skip(&t->c, t->e) < 0)
		return -1;
	raw = t->c.pos - at;
	msgpack_packer_init(&pk, &m, meta_write);
	t->c.pos = at;
	if (msgp_repack(&t->c, &pk, t->e) < 0)
		return -1;
	if (m.n == raw) {
		en->meta = t->c.p + at;
	} else {
		m = (struct meta_sink){ mem_get(t->k, m.n), 0, m.n };
		if (!m.p)
			return err_nomem(t->e);
		t->c.pos = at;
		if (msgp_repack(&t->c, &pk, t->e) < 0)
			return -1;
		en->meta = m.p;
	}
	en->meta_len = m.n;
	/* Its target, the bundle entry ID, read when a string. */
	if (item_at(t, at, &it) < 0)
		return -1;
	if (it.type != MSGP_MAP)
		return 0;
	if (msgp_fields(&t->c, it.n, names, 1, &f, t->e) < 0 ||
	    item_at(t, f, &it) < 0)
		return -1;
	if (it.type == MSGP_STR &&
	    toc_str(t, f, "TOC: a metadata target", &en->bundle_id) < 0)
		return -1;
	return 0;
}

/* One toc[key][target] map, the entry k->v[k->n]: its target at offset
 * tgt, its map at m. */
static int read_entry(struct toc *t, char *key, size_t tgt, size_t m,
		      const struct blobs *b)
{
	static const char *const names[] = {
		"ordinal", "original_size", "type", "metadata",
	};
	struct kpack *k = t->k;
	struct kpack_entry *en = &k->v[k->n];
	struct msgp_item it;
	size_t f[4];
	uint64_t ord;
	char where[600];

	memset(en, 0, sizeof(*en));
	en->key = key;
	snprintf(where, sizeof(where), "TOC: a target of '%.256s'", key);
	if (toc_str(t, tgt, where, &en->target) < 0)
		return -1;
	k->n++;
	snprintf(where, sizeof(where), "TOC entry '%.256s' for '%.256s'",
		 en->key, en->target);
	if (item_at(t, m, &it) < 0)
		return -1;
	if (it.type != MSGP_MAP)
		return err_code_set(t->e, ERR_MALFORMED, "%s is not a map", where);
	if (msgp_fields(&t->c, it.n, names, 4, f, t->e) < 0 ||
	    toc_u64(t, f[0], "ordinal", where, &ord) < 0)
		return -1;
	if (ord >= b->n)
		return err_code_set(t->e, ERR_MALFORMED, "%s: ordinal %llu, but "
				    "the archive has %zu %s%s", where,
				    (unsigned long long)ord, b->n,
				    k->scheme == KPACK_ZSTD ? "frame" : "blob",
				    b->n == 1 ? "" : "s");
	en->ordinal = (uint32_t)ord;
	en->offset = b->off[ord];
	en->stored = b->size[ord];
	if (f[1] != SIZE_MAX) {
		if (toc_u64(t, f[1], "original_size", where, &en->size) < 0)
			return -1;
		en->has_size = true;
	} else if (k->scheme == KPACK_ZSTD) {
		/* The runtime inflates to original_size: without it there is
		 * nothing to inflate to. */
		return err_code_set(t->e, ERR_MALFORMED, "%s has no "
				    "original_size", where);
	} else {
		en->size = en->stored;
	}
	if (f[2] != SIZE_MAX && toc_str(t, f[2], "TOC: a type", &en->type) < 0)
		return -1;
	/* The splitter's metadata (artifact_splitter.py): {target: the
	 * bundle entry ID, source_prefix}; optional, kept whole (an archive
	 * written again carries it). */
	if (f[3] != SIZE_MAX && read_meta(t, f[3], en) < 0)
		return -1;
	return 0;
}

/* toc: {key: {target: entry}}.  The entries are counted first (each value
 * a map), bounded, then read; each key is kept once. */
static int read_toc(struct toc *t, size_t at, const struct blobs *b)
{
	struct kpack *k = t->k;
	struct msgp_item m;
	uint64_t total = 0;
	size_t first;
	int there = item_at(t, at, &m);

	if (there < 0)
		return -1;
	if (!there || m.type != MSGP_MAP)
		return err_code_set(t->e, ERR_MALFORMED, "TOC: toc is %s",
				    there ? "not a map" : "missing");
	first = t->c.pos;
	for (size_t i = 0; i < m.n; i++) {
		struct msgp_item v;
		size_t vat;

		if (msgp_skip(&t->c, t->e) < 0)
			return -1;
		vat = t->c.pos;
		if (msgp_read(&t->c, &v, t->e) < 0)
			return -1;
		if (v.type != MSGP_MAP)
			return err_code_set(t->e, ERR_MALFORMED, "TOC: key %zu's "
					    "value is not a map", i);
		total += v.n;
		t->c.pos = vat;
		if (msgp_skip(&t->c, t->e) < 0)
			return -1;
	}
	if (total > KPACK_ENTRIES_MAX)
		return over(t->e, "TOC has", total, "entries",
			    KPACK_ENTRIES_MAX);
	k->v = calloc(total ? (size_t)total : 1, sizeof(*k->v));
	if (!k->v)
		return err_nomem(t->e);
	for (size_t i = 0, pos = first; i < m.n; i++) {
		struct msgp_item v;
		size_t key = pos, item;
		char *name = NULL;

		t->c.pos = pos;
		if (msgp_skip(&t->c, t->e) < 0 ||
		    msgp_read(&t->c, &v, t->e) < 0)
			return -1;
		item = t->c.pos;
		if (v.n && toc_str(t, key, "TOC: a key", &name) < 0)
			return -1;
		for (size_t j = 0; j < v.n; j++) {
			size_t tgt = item, val;

			t->c.pos = item;
			if (msgp_skip(&t->c, t->e) < 0)
				return -1;
			val = t->c.pos;
			if (msgp_skip(&t->c, t->e) < 0)
				return -1;
			item = t->c.pos;
			if (read_entry(t, name, tgt, val, b) < 0)
				return -1;
		}
		pos = item;
	}
	return 0;
}

static int by_offset(const void *a, const void *b)
{
	const struct kpack_entry *x = *(const struct kpack_entry *const *)a;
	const struct kpack_entry *y = *(const struct kpack_entry *const *)b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

/* Each entry's blob or frame its own, none overlapping another: what the
 * splitter writes (one ordinal per kernel, back to back).  Fifty keys on
 * one frame of zeros would be fifty times its code to write. */
static int check_own(const struct kpack *k, struct err *e)
{
	const char *what = k->scheme == KPACK_ZSTD ? "frame" : "blob";
	const struct kpack_entry **by = NULL;
	uint32_t *owner = NULL;
	size_t n = 0;
	int rc = -1;

	owner = calloc(k->nblobs ? k->nblobs : 1, sizeof(*owner));
	by = calloc(k->n ? k->n : 1, sizeof(*by));
	if (!owner || !by) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < k->n; i++) {
		const struct kpack_entry *en = &k->v[i], *o;

		if (owner[en->ordinal]) {
			o = &k->v[owner[en->ordinal] - 1];
			err_code_set(e, ERR_MALFORMED, "entries '%.200s' for "
				     "'%.64s' and '%.200s' for '%.64s' share "
				     "%s %u", o->key, o->target, en->key,
				     en->target, what, en->ordinal);
			goto out;
		}
		owner[en->ordinal] = (uint32_t)i + 1;
		if (en->stored)
			by[n++] = en;
	}
	if (n)
		qsort(by, n, sizeof(*by), by_offset);
	for (size_t i = 1; i < n; i++) {
		const struct kpack_entry *a = by[i - 1], *b = by[i];

		if (b->offset - a->offset < a->stored) {
			err_code_set(e, ERR_MALFORMED, "entries '%.200s' for "
				     "'%.64s' (%s %u, offset %llu, %llu bytes) "
				     "and '%.200s' for '%.64s' (%s %u, offset "
				     "%llu, %llu bytes) overlap", a->key,
				     a->target, what, a->ordinal,
				     (unsigned long long)a->offset,
				     (unsigned long long)a->stored, b->key,
				     b->target, what, b->ordinal,
				     (unsigned long long)b->offset,
				     (unsigned long long)b->stored);
			goto out;
		}
	}
	rc = 0;
out:
	free(owner);
	free(by);
	return rc;
}

int kpack_parse(const uint8_t *buf, size_t len, struct kpack *k,
		struct err *e)
{
	static const char *const names[] = {
		"compression_scheme", "blobs", "zstd_offset", "zstd_size",
		"gfx_arches", "group_name", "gfx_arch_family", "toc",
	};
	enum { SCHEME, BLOBS, ZOFF, ZSIZE, ARCHES, GROUP, FAMILY, TOC, N };
	struct toc t = { .buf = buf, .len = len, .k = k, .e = e };
	struct msgp_item root, s;
	struct blobs b = { 0 };
	size_t f[N], toc_len, pos = 0;
	int rc = -1;

	memset(k, 0, sizeof(*k));
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
	toc_len = len - (size_t)k->toc_offset;
	if (toc_len > KPACK_TOC_MAX) {
		over(e, "TOC of", toc_len, "bytes", KPACK_TOC_MAX);
		goto out;
	}
	/* Its structure checked whole first (counts, lengths, nesting),
	 * then read where it lies. */
	if (msgp_check(buf + k->toc_offset, toc_len, &pos, e) < 0)
		goto out;
	t.c = (struct msgp_cur){ buf + k->toc_offset, pos, 0 };
	if (msgp_read(&t.c, &root, e) < 0)
		goto out;
	if (root.type != MSGP_MAP) {
		err_code_set(e, ERR_MALFORMED, "TOC is not a map");
		goto out;
	}
	if (msgp_fields(&t.c, root.n, names, N, f, e) < 0 ||
	    item_at(&t, f[SCHEME], &s) < 0)
		goto out;
	if (f[SCHEME] == SIZE_MAX || s.type != MSGP_STR) {
		err_code_set(e, ERR_MALFORMED, "TOC: compression_scheme is %s",
			     f[SCHEME] != SIZE_MAX ? "not a string" : "missing");
		goto out;
	}
	if (s.n == 4 && !memcmp(s.p, "none", 4)) {
		k->scheme = KPACK_NONE;
	} else if (s.n == 15 && !memcmp(s.p, "zstd-per-kernel", 15)) {
		k->scheme = KPACK_ZSTD;
	} else {
		err_code_set(e, ERR_MALFORMED, "compression scheme '%.*s' is "
			     "not known", (int)(s.n < 64 ? s.n : 64), s.p);
		goto out;
	}
	if ((k->scheme == KPACK_NONE ? read_blobs(&t, f[BLOBS], &b)
				      : read_frames(&t, f[ZOFF], f[ZSIZE], &b)) < 0)
		goto out;
	k->nblobs = b.n;
	if (read_arches(&t, f[ARCHES], f[GROUP], f[FAMILY]) < 0 ||
	    read_toc(&t, f[TOC], &b) < 0)
		goto out;
	/* (the entries hold what they need of it) */
	free(b.off);
	free(b.size);
	b = (struct blobs){ 0 };
	if (check_own(k, e) < 0)
		goto out;
	for (size_t i = 0; i < k->n; i++)
		k->code_total = k->v[i].size > UINT64_MAX - k->code_total ?
			UINT64_MAX : k->code_total + k->v[i].size;
	rc = 0;
out:
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
	uint64_t most;
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
	/* And the archive's code in all: frames of their own each (kpack_parse)
	 * still make a bomb, one that fits the ratio frame by frame. */
	most = (uint64_t)len > (UINT64_MAX - KPACK_WORK_SLACK) / KPACK_WORK_RATIO
		? UINT64_MAX
		: KPACK_WORK_SLACK + (uint64_t)len * KPACK_WORK_RATIO;
	if (k->code_total > most)
		return err_code_set(e, ERR_MALFORMED, "its entries declare %llu "
				    "bytes of code in all, more than the %llu "
				    "an archive of %zu bytes may (1 GiB, and "
				    "%d times its size)",
				    (unsigned long long)k->code_total,
				    (unsigned long long)most, len,
				    KPACK_WORK_RATIO);
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
