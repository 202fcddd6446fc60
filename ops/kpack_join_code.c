/* kpack_join_code: the code objects of a kpack join (see kpack_join.c,
 * which places what this makes): the wrappers read, the archives opened,
 * the targets -t takes, their code objects gathered, and the bundles, or
 * CCOBs, of the .hip_fatbin made again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpack_join_code.h"
#include "kpack_join_impl.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../formats/bundle.h"
#include "../formats/bundle_binary.h"
#include "../formats/ccob.h"
#include "../formats/kpack.h"

static const char amdgcn[] = "amdgcn-amd-amdhsa";

/* The host triple clang names a host entry with, by ELF machine; NULL for
 * one not known (the bundle then has no host entry: the runtime reads
 * only the device ones). */
static const char *host_triple(uint16_t machine)
{
	switch (machine) {
	case 62: return "x86_64-unknown-linux-gnu";
	case 183: return "aarch64-unknown-linux-gnu";
	case 21: return "powerpc64le-unknown-linux-gnu";
	default: return NULL;
	}
}

/* The bundle ID of entry en: the splitter's record, else clang's. */
static char *entry_id(const struct kpack_entry *en)
{
	size_t n;
	char *s;

	if (en->bundle_id)
		return strdup(en->bundle_id);
	n = sizeof("hipv4-") + sizeof(amdgcn) + 2 + strlen(en->target);
	if ((s = malloc(n)))
		snprintf(s, n, "hipv4-%s--%s", amdgcn, en->target);
	return s;
}

/* "<kernel_name>#<i>" with i < nw: i in *i. */
static bool key_index(const struct join *j, const char *key, uint64_t *i)
{
	size_t n = strlen(j->f.ref.kernel_name);
	char *end;

	/* The runtime asks for "#<index>" in decimal: no sign, no leading
	 * zero. */
	if (strncmp(key, j->f.ref.kernel_name, n) || key[n] != '#' ||
	    key[n + 1] < '0' || key[n + 1] > '9' ||
	    (key[n + 1] == '0' && key[n + 2]))
		return false;
	errno = 0;
	*i = strtoull(key + n + 1, &end, 10);
	return !*end && !errno;
}

static bool takes(struct select *sel, const struct kpack_entry *en,
		  const char *id)
{
	struct select_entry se = {
		.id = id, .id_len = strlen(id),
		.arch = en->target, .arch_len = strlen(en->target),
		.triple = amdgcn, .triple_len = sizeof(amdgcn) - 1,
	};

	/* select_match also notes the target for the "there:" list. */
	return select_match(sel, &se) || !sel->n;
}

/* Every archive the search paths find, opened and parsed
 * (ops/kpack_find.c, the resolution ls, du and extract use too). */
int kpack_join_open_archives(struct join *j)
{
	const struct kpack_find *f = &j->f;

	if (kpack_find_archives(&j->f, j->e) < 0)
		return -1;
	for (size_t i = 0; i < f->na; i++)
		if (!f->a[i].read)
			return err_code_set(j->e, f->a[i].e.code, "archive "
					    "'%s': %s", f->a[i].path,
					    f->a[i].e.why);
	if (!f->na && f->ref.npaths == 1)
		return f->no_dir[0] ?
			err_code_set(j->e, ERR_NOTHING, "search path '%s': "
				     "no directory '%s'", f->ref.paths[0],
				     f->dir[0]) :
			err_code_set(j->e, ERR_NOTHING, "search path '%s' "
				     "finds no archive", f->ref.paths[0]);
	if (!f->na)
		return err_code_set(j->e, ERR_NOTHING, "no search path of its "
				    "%zu finds an archive", f->ref.npaths);
	return 0;
}

/* The wrappers: each HIPK, its index a bundle of its own. */
int kpack_join_read_wrappers(struct join *j, const struct elfscan_section *seg)
{
	uint64_t n = seg->size / WRAPPER;

	if (seg->type == SHT_NOBITS_ || seg->size % WRAPPER)
		return err_code_set(j->e, ERR_MALFORMED, ".hipFatBinSegment: "
				    "%llu bytes, not a whole number of %d-byte "
				    "wrappers", (unsigned long long)seg->size,
				    WRAPPER);
	if (!n)
		return err_code_set(j->e, ERR_NOTHING, ".hipFatBinSegment "
				    "holds no wrapper");
	j->nw = (size_t)n;
	if (!(j->index = calloc(j->nw, sizeof(*j->index))))
		return err_nomem(j->e);
	for (size_t w = 0; w < j->nw; w++) {
		const uint8_t *p = j->buf + seg->offset + w * WRAPPER;
		uint32_t magic = (uint32_t)get_le(p, 4);

		if (magic != KPACK_HIPK)
			return err_code_set(j->e, ERR_MALFORMED, "wrapper #%zu "
					    "has magic 0x%08x, not HIPK "
					    "(0x%08x)", w, magic, KPACK_HIPK);
		j->index[w] = get_le(p + 16, 8);
		if (j->index[w] >= j->nw)
			return err_code_set(j->e, ERR_MALFORMED, "wrapper #%zu: "
					    "index %llu is out of range (%zu "
					    "wrapper%s)", w,
					    (unsigned long long)j->index[w],
					    j->nw, j->nw == 1 ? "" : "s");
		for (size_t v = 0; v < w; v++)
			if (j->index[v] == j->index[w])
				return err_code_set(j->e, ERR_MALFORMED,
						    "wrappers #%zu and #%zu "
						    "have the same index %llu",
						    v, w, (unsigned long long)
						    j->index[w]);
	}
	return 0;
}


static int by_cand(const void *x, const void *y)
{
	const struct cand *p = x, *q = y;
	int c;

	if (p->idx != q->idx)
		return p->idx < q->idx ? -1 : 1;
	if ((c = strcmp(p->target, q->target)))
		return c;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

static int by_target(const void *x, const void *y)
{
	const struct cand *p = x, *q = y;
	int c = strcmp(p->target, q->target);

	if (c)
		return c;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/* The binary's code objects sel takes, in j->cand sorted by (index,
 * target, archive, entry); the targets among them in j->targets (by
 * name), each with the first archive that holds one (j->from). */
int kpack_join_pick_targets(struct join *j, struct select *sel)
{
	size_t total = 0;

	for (size_t a = 0; a < j->f.na; a++)
		total += j->f.a[a].k.n;
	if (!(j->cand = calloc(total ? total : 1, sizeof(*j->cand))))
		return err_nomem(j->e);
	for (size_t a = 0; a < j->f.na; a++) {
		const struct kpack *k = &j->f.a[a].k;

		for (size_t i = 0; i < k->n; i++) {
			const struct kpack_entry *en = &k->v[i];
			uint64_t idx;
			char *id;
			bool take;

			if (!key_index(j, en->key, &idx))
				continue;
			if (!(id = entry_id(en)))
				return err_nomem(j->e);
			take = takes(sel, en, id);
			free(id);
			if (take)
				j->cand[j->ncand++] = (struct cand){
					.idx = idx, .target = en->target,
					.a = a, .i = i };
		}
	}
	for (size_t r = 0; r < sel->n; r++)
		if (!sel->rule[r].hit)
			return err_code_set(j->e, ERR_NOTHING, "no code object "
					    "matches --target '%s'",
					    sel->rule[r].text);
	if (!j->ncand)
		return err_code_set(j->e, ERR_NOTHING, "the archives hold no "
				    "code object of '%s'", j->f.ref.kernel_name);
	/* The targets: by name, each first in archive order. */
	qsort(j->cand, j->ncand, sizeof(*j->cand), by_target);
	j->targets = calloc(j->ncand, sizeof(*j->targets));
	j->from = calloc(j->ncand, sizeof(*j->from));
	if (!j->targets || !j->from)
		return err_nomem(j->e);
	for (size_t c = 0; c < j->ncand; c++)
		if (!c || strcmp(j->cand[c].target, j->cand[c - 1].target)) {
			j->targets[j->nt] = j->cand[c].target;
			j->from[j->nt++] = j->cand[c].a;
		}
	qsort(j->cand, j->ncand, sizeof(*j->cand), by_cand);
	return 0;
}

/* Each target's code object of each bundle, from the first archive
 * holding it. */
int kpack_join_gather(struct join *j)
{
	struct ccob_limits lim = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				   .max_size = CCOB_DEFAULT_MAX_SIZE };
	struct err sub;

	if (j->nt > SIZE_MAX / sizeof(*j->c) / j->nw ||
	    !(j->c = calloc(j->nt * j->nw, sizeof(*j->c))))
		return err_nomem(j->e);
	for (size_t b = 0; b < j->nw; b++) {
		for (size_t t = 0; t < j->nt; t++) {
			struct cand key = { .idx = b, .target = j->targets[t] };
			struct code *c = &j->c[j->nc];
			const struct cand *hit;
			size_t lo = 0, hi = j->ncand;

			/* The first candidate not before (b, target). */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (by_cand(&j->cand[mid], &key) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			hit = lo < j->ncand ? &j->cand[lo] : NULL;
			if (!hit || hit->idx != b ||
			    strcmp(hit->target, j->targets[t]))
				return err_code_set(j->e, ERR_NOTHING, "no "
						    "'%s#%zu' for %s in '%s'",
						    j->f.ref.kernel_name, b,
						    j->targets[t],
						    j->f.a[j->from[t]].path);
			if (!(c->id = entry_id(&j->f.a[hit->a].k.v[hit->i])))
				return err_nomem(j->e);
			j->nc++;
			if (kpack_entry_code(j->f.a[hit->a].in.data,
					     j->f.a[hit->a].in.len,
					     &j->f.a[hit->a].k, hit->i, &lim,
					     &c->data, &c->size, &sub) < 0)
				return err_code_set(j->e, sub.code, "archive "
						    "'%s': %s",
						    j->f.a[hit->a].path, sub.why);
		}
	}
	return 0;
}

static int by_id(const void *x, const void *y)
{
	return strcmp(((const struct code *)x)->id,
		      ((const struct code *)y)->id);
}

/* Bundle b's bytes (raw[b], rawn[b] of them, malloc'd): the host's entry
 * (when its triple is known), then the devices' by ID, at ENTRY_ALIGN. */
static int make_bundles(struct join *j, uint8_t **raw, uint64_t *rawn)
{
	const char *triple = host_triple(j->s.machine);
	const char **ids = calloc(j->nt + 1, sizeof(*ids));
	uint64_t *sizes = calloc(j->nt + 1, sizeof(*sizes));
	char host[64];
	int rc = -1;

	if (!ids || !sizes) {
		err_nomem(j->e);
		goto out;
	}
	if (triple)
		snprintf(host, sizeof(host), "host-%s-", triple);
	for (size_t b = 0; b < j->nw; b++) {
		struct code *c = j->c + b * j->nt;
		uint64_t o = 0;
		struct bundle_plan plan;
		size_t n = 0;

		qsort(c, j->nt, sizeof(*c), by_id);
		if (triple) {
			ids[n] = host;
			sizes[n++] = 0;
		}
		for (size_t t = 0; t < j->nt; t++) {
			ids[n] = c[t].id;
			sizes[n++] = c[t].size;
		}
		if (bundle_plan_binary(ids, sizes, n, ENTRY_ALIGN, &plan,
				       j->e) < 0)
			goto out;
		if (plan.total > SIZE_MAX ||
		    !(raw[b] = calloc(plan.total ? (size_t)plan.total : 1, 1))) {
			bundle_plan_free(&plan);
			err_nomem(j->e);
			goto out;
		}
		for (size_t k = 0; k < plan.n; k++) {
			const struct bundle_piece *pc = &plan.piece[k];
			long in = pc->input - (triple ? 1 : 0);

			if (pc->lit_len)
				memcpy(raw[b] + o, pc->lit, pc->lit_len);
			o += pc->lit_len + pc->pad;
			if (pc->input >= 0 && in >= 0 && c[in].size) {
				memcpy(raw[b] + o, c[in].data, c[in].size);
				o += c[in].size;
			}
		}
		rawn[b] = plan.total;
		bundle_plan_free(&plan);
	}
	rc = 0;
out:
	free(ids);
	free(sizes);
	return rc;
}

/* Bundle b at j->start[b], each at the next multiple of align after the
 * one before: the bytes they take, or UINT64_MAX past room. */
static uint64_t lay_out(struct join *j, const uint64_t *size, uint64_t align,
			uint64_t room)
{
	uint64_t at = 0;

	for (size_t b = 0; b < j->nw; b++) {
		uint64_t pad = b ? (align - at % align) % align : 0;

		if (pad > room || at > room - pad)
			return UINT64_MAX;
		at += pad;
		j->start[b] = at;
		if (size[b] > room - at)
			return UINT64_MAX;
		at += size[b];
	}
	return at;
}

/* The HIP runtime the binary needs (libamdhip64.so.N): N, or 0. */
static unsigned hip_runtime(const struct join *j)
{
	static const char name[] = "libamdhip64.so.";

	for (size_t i = 1; i < j->s.n; i++) {
		const struct elfscan_section *d = &j->s.sec[i];

		if (d->type != 6 /* SHT_DYNAMIC */ || d->link >= j->s.n)
			continue;
		for (uint64_t o = 0; o + 16 <= d->size; o += 16) {
			const uint8_t *ent = j->buf + d->offset + o;
			const char *lib;
			size_t len;

			if (get_le(ent, 8) == 0)
				break;
			if (get_le(ent, 8) != 1 /* DT_NEEDED */)
				continue;
			lib = elfscan_string(j->buf, &j->s.sec[d->link],
					     get_le(ent + 8, 8), &len);
			if (lib && len > sizeof(name) - 1 &&
			    !strncmp(lib, name, sizeof(name) - 1))
				return (unsigned)strtoul(lib + sizeof(name) - 1,
							 NULL, 10);
		}
	}
	return 0;
}

/* Bytes gathered in memory (a ccob_sink). */
struct ccob_buf {
	uint8_t *p;
	size_t len, cap;
};

static int ccob_buf_put(void *ctx, const void *src, size_t n, struct err *e)
{
	struct ccob_buf *b = ctx;

	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *q;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2)
				return err_nomem(e);
			cap *= 2;
		}
		if (!(q = realloc(b->p, cap)))
			return err_nomem(e);
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
	return 0;
}

/* raw, n bytes, made one CCOB in *out (what clang --offload-compress
 * makes: LLVM's bundler's zstd at its default level, 3), of the version
 * the binary's HIP runtime reads (ROCm 6's: 2; else 3, LLVM 22's). */
static int compress(struct join *j, const uint8_t *raw, uint64_t n,
		    struct ccob_buf *out)
{
	unsigned rt = hip_runtime(j), version = rt == 6 ? 2 : 3;
	struct ccob_header h = {
		.version = version, .method = CCOB_ZSTD,
		.header_size = ccob_header_size(version),
		.raw_size = n, .hash = ccob_hash(raw, (size_t)n),
	};
	struct ccob_encoder *enc;
	uint8_t head[32] = { 0 };
	int rc = -1;

	if (version == 2 && n > UINT32_MAX)
		return err_code_set(j->e, ERR_MALFORMED, "a bundle of %llu "
				    "bytes does not fit a version 2 CCOB",
				    (unsigned long long)n);
	if (!(enc = ccob_encoder_new(h.method, 3, n, j->e)))
		return -1;
	if (ccob_buf_put(out, head, h.header_size, j->e) < 0 ||
	    ccob_encoder_all(enc, raw, (size_t)n, ccob_buf_put, out, j->e) < 0)
		goto out;
	h.total_size = out->len;
	ccob_write_header(out->p, &h);
	rc = 0;
out:
	ccob_encoder_free(enc);
	return rc;
}

/* The .hip_fatbin: the bundles one after another at align.  Where they
 * do not fit room (the bytes the original took) but their CCOBs do, the
 * original's were compressed: CCOBs.  *in_room says whether what is made
 * fits (when neither does: the bundles, to go elsewhere).  *fat
 * (malloc'd), *size bytes; bundle b at j->start[b]. */
int kpack_join_make_fatbin(struct join *j, uint64_t align, uint64_t room,
			   uint8_t **fat, uint64_t *size, bool *in_room)
{
	uint8_t **raw = calloc(j->nw, sizeof(*raw));
	uint64_t *rawn = calloc(j->nw, sizeof(*rawn)), *ccn = NULL, at;
	struct ccob_buf *cc = NULL;
	uint8_t *p = NULL;
	int rc = -1;

	if (!raw || !rawn || !(j->start = calloc(j->nw, sizeof(*j->start)))) {
		err_nomem(j->e);
		goto out;
	}
	if (make_bundles(j, raw, rawn) < 0)
		goto out;
	*in_room = lay_out(j, rawn, align, UINT64_MAX) <= room;
	if (!*in_room) {
		if (!(cc = calloc(j->nw, sizeof(*cc))) ||
		    !(ccn = calloc(j->nw, sizeof(*ccn)))) {
			err_nomem(j->e);
			goto out;
		}
		for (size_t b = 0; b < j->nw; b++) {
			if (compress(j, raw[b], rawn[b], &cc[b]) < 0)
				goto out;
			ccn[b] = cc[b].len;
		}
		if (lay_out(j, ccn, align, UINT64_MAX) <= room) {
			for (size_t b = 0; b < j->nw; b++) {
				free(raw[b]);
				raw[b] = cc[b].p;
				rawn[b] = ccn[b];
				cc[b].p = NULL;
			}
			*in_room = true;
		}
	}
	at = lay_out(j, rawn, align, UINT64_MAX);
	if (at > SIZE_MAX) {
		err_code_set(j->e, ERR_MALFORMED, "the code objects make a "
			     ".hip_fatbin too large to write");
		goto out;
	}
	if (!(p = calloc(at ? (size_t)at : 1, 1))) {
		err_nomem(j->e);
		goto out;
	}
	for (size_t b = 0; b < j->nw; b++)
		memcpy(p + j->start[b], raw[b], rawn[b]);
	*fat = p;
	*size = at;
	rc = 0;
out:
	for (size_t b = 0; raw && b < j->nw; b++)
		free(raw[b]);
	for (size_t b = 0; cc && b < j->nw; b++)
		free(cc[b].p);
	free(cc);
	free(ccn);
	free(raw);
	free(rawn);
	return rc;
}
