/* kpack_join: undo what rocm-kpack's splitter did to a host binary
 * (python/rocm_kpack/elf/kpack_transform.py, kpack_offload_binary; spec:
 * docs/multi_arch_packaging_with_kpack.md, "Binary Conversion"), with the
 * code objects its archives hold.
 *
 * What the splitter did, and what is undone:
 *   - .hip_fatbin's whole pages were cut from the file ("zero-paging"):
 *     the section became SHT_NOBITS, its PT_LOAD split into pieces, the
 *     bytes of its address range a piece with no file bytes.  Its address
 *     and size stay, and so does where each bundle was: one bundle per
 *     wrapper, in wrapper order, each at the section's alignment after
 *     the one before (the linker's concatenation of one .hip_fatbin per
 *     translation unit).  The bundles are made again there: entries in
 *     clang's order (the host's, empty, then the devices' by bundle ID)
 *     at 4096-byte alignment (clang's HIP driver bundles with
 *     -bundle-align=4096), entry IDs the splitter's TOC metadata
 *     "target" (else hipv4-amdgcn-amd-amdhsa--<target>), the host's
 *     host-<triple>- from the ELF machine.  For every target of the
 *     original that makes the original .hip_fatbin byte for byte (an
 *     original of compressed bundles, CCOBs, made larger ones: an error,
 *     as is anything that does not fit the address range).  The bytes go
 *     at the end of the file, at an offset congruent to the address, and
 *     the pieces that mapped the range map them; the section is PROGBITS
 *     again, its size what the bundles take.  A .hip_fatbin the splitter
 *     left in place (too small to zero-page) is overwritten where it is.
 *   - each wrapper (.hipFatBinSegment, 24 bytes) became HIPK, its pointer
 *     aimed at .rocm_kpack_ref (the R_*_RELATIVE addend; the slot
 *     zeroed), its reserved1 the index of its code object (the "#<i>" of
 *     the TOC key, the i-th bundle).  It is HIPF again, reserved1 0, the
 *     pointer the address of bundle i: the RELATIVE addend when there is
 *     one, and the slot's bytes (what the linker writes there, and what
 *     a RELR-relocated or absolute pointer is).
 *   - .rocm_kpack_ref was added, mapped by a PT_LOAD of its own.  It is
 *     dropped: a binary with it reads as split (offload ls, AMD's tools,
 *     whose splitter refuses to split it again), and what it says is no
 *     longer true.  Its section header goes (the last one, where the
 *     splitter appends it; else the header is zeroed, SHT_NULL), and its
 *     PT_LOAD becomes PT_NULL when it maps that section alone.
 * Everything else is the split binary's bytes.  64-bit little-endian ELF
 * (the only HIP hosts there are). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpack_find.h"
#include "kpack_join.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"
#include "../formats/bundle.h"
#include "../formats/ccob.h"
#include "../formats/kpack.h"

enum {
	WRAPPER = 24,		/* u32 magic, u32 version, ptr, reserved1 */
	ENTRY_ALIGN = 4096,	/* clang HIP: -bundle-align=4096 */
	HIP_FATBIN_ALIGN = 4096,	/* clang's .hip_fatbin sections */
	SHT_PROGBITS_ = 1, SHT_RELA_ = 4, SHT_NOBITS_ = 8, SHF_ALLOC_ = 2,
	PT_NULL_ = 0, PT_LOAD_ = 1,
	EHDR_PHOFF = 32, EHDR_SHOFF = 40, EHDR_PHENTSIZE = 54, EHDR_PHNUM = 56,
	EHDR_SHENTSIZE = 58, EHDR_SHNUM = 60, SHDR = 64, PHDR = 56,
};

static const char amdgcn[] = "amdgcn-amd-amdhsa";

struct archive {
	struct io_in in;
	struct kpack k;
	bool open, parsed;
};

/* A code object of a bundle: bundle b's are c[b * nt, (b + 1) * nt). */
struct code {
	char *id;		/* its bundle entry ID */
	uint8_t *data;
	uint64_t size;
};

struct join {
	const char *path;
	const uint8_t *buf;
	size_t len;
	struct elfscan s;
	struct kpack_ref ref;
	struct archive *a;
	char **apath;
	size_t na;
	struct cand *cand;	/* the code objects -t takes */
	size_t ncand;
	const char **targets;	/* their targets, by name (in cand's) */
	size_t *from;		/* the first archive holding each */
	size_t nt;
	struct code *c;
	size_t nc;
	size_t nw;		/* wrappers */
	uint64_t *index;	/* wrapper -> bundle */
	uint64_t *start;	/* bundle -> its offset in .hip_fatbin */
	struct err *e;
};

static const struct elfscan_section *section(const struct elfscan *s,
					     const char *name)
{
	for (size_t i = 1; i < s->n; i++)
		if (!strcmp(s->sec[i].name, name))
			return &s->sec[i];
	return NULL;
}

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

static uint32_t relative_type(uint16_t machine)
{
	switch (machine) {
	case 62: return 8;		/* R_X86_64_RELATIVE */
	case 183: return 1027;		/* R_AARCH64_RELATIVE */
	case 21: return 22;		/* R_PPC64_RELATIVE */
	default: return 0;
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
	size_t n = strlen(j->ref.kernel_name);
	char *end;

	/* The runtime asks for "#<index>" in decimal: no sign, no leading
	 * zero. */
	if (strncmp(key, j->ref.kernel_name, n) || key[n] != '#' ||
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

/* Every archive the search paths find, opened and parsed. */
static int open_archives(struct join *j)
{
	struct err sub;
	size_t cap = 0;

	for (size_t p = 0; p < j->ref.npaths; p++) {
		struct kpack_finds f;

		if (kpack_find(j->path, j->ref.paths[p], &f, j->e) < 0)
			return -1;
		for (size_t i = 0; i < f.n; i++) {
			struct archive *a;

			if (j->na == cap) {
				size_t c = cap ? 2 * cap : 8;
				struct archive *v = realloc(j->a, c * sizeof(*v));
				char **pv;

				if (v)
					j->a = v;
				pv = v ? realloc(j->apath, c * sizeof(*pv)) : NULL;
				if (!v || !pv) {
					kpack_finds_free(&f);
					return err_nomem(j->e);
				}
				j->apath = pv;
				cap = c;
			}
			a = &j->a[j->na];
			memset(a, 0, sizeof(*a));
			j->apath[j->na] = f.v[i].path;
			f.v[i].path = NULL;
			j->na++;
			if (io_in_open(&a->in, j->apath[j->na - 1], &sub) < 0) {
				kpack_finds_free(&f);
				return err_code_set(j->e, sub.code, "archive "
						    "'%s': %s",
						    j->apath[j->na - 1],
						    sub.why);
			}
			a->open = true;
			if (kpack_parse(a->in.data, a->in.len, &a->k, &sub) < 0) {
				kpack_finds_free(&f);
				return err_code_set(j->e, sub.code, "archive "
						    "'%s': %s", j->apath[j->na - 1],
						    sub.why);
			}
			a->parsed = true;
		}
		if (!f.n && j->ref.npaths == 1) {
			int rc = f.no_dir ?
				err_code_set(j->e, ERR_NOTHING, "search path "
					     "'%s': no directory '%s'",
					     j->ref.paths[p], f.dir) :
				err_code_set(j->e, ERR_NOTHING, "search path "
					     "'%s' finds no archive",
					     j->ref.paths[p]);
			kpack_finds_free(&f);
			return rc;
		}
		kpack_finds_free(&f);
	}
	if (!j->na)
		return err_code_set(j->e, ERR_NOTHING, "no search path of its "
				    "%zu finds an archive", j->ref.npaths);
	return 0;
}

/* The wrappers: each HIPK, its index a bundle of its own. */
static int read_wrappers(struct join *j, const struct elfscan_section *seg)
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

/* A code object of this binary that -t takes: its index, target, and
 * where (archive a, entry i). */
struct cand {
	uint64_t idx;
	const char *target;
	size_t a, i;
};

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
static int pick_targets(struct join *j, struct select *sel)
{
	size_t total = 0;

	for (size_t a = 0; a < j->na; a++)
		total += j->a[a].k.n;
	if (!(j->cand = calloc(total ? total : 1, sizeof(*j->cand))))
		return err_nomem(j->e);
	for (size_t a = 0; a < j->na; a++) {
		const struct kpack *k = &j->a[a].k;

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
				    "code object of '%s'", j->ref.kernel_name);
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
static int gather(struct join *j)
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
						    j->ref.kernel_name, b,
						    j->targets[t],
						    j->apath[j->from[t]]);
			if (!(c->id = entry_id(&j->a[hit->a].k.v[hit->i])))
				return err_nomem(j->e);
			j->nc++;
			if (kpack_entry_code(j->a[hit->a].in.data,
					     j->a[hit->a].in.len,
					     &j->a[hit->a].k, hit->i, &lim,
					     &c->data, &c->size, &sub) < 0)
				return err_code_set(j->e, sub.code, "archive "
						    "'%s': %s",
						    j->apath[hit->a], sub.why);
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

/* The .hip_fatbin, within room bytes: the bundles, each at the
 * alignment after the one before; CCOBs of them when the bundles do not
 * fit (the original's were compressed).  *fat (malloc'd), *size bytes. */
static int make_fatbin(struct join *j, uint64_t align, uint64_t room,
		       uint8_t **fat, uint64_t *size)
{
	uint8_t **raw = calloc(j->nw, sizeof(*raw));
	uint64_t *rawn = calloc(j->nw, sizeof(*rawn));
	struct ccob_buf *cc = NULL;
	uint64_t at, first = 0;
	uint8_t *p = NULL;
	int rc = -1;

	if (!raw || !rawn || !(j->start = calloc(j->nw, sizeof(*j->start)))) {
		err_nomem(j->e);
		goto out;
	}
	if (make_bundles(j, raw, rawn) < 0)
		goto out;
	at = lay_out(j, rawn, align, UINT64_MAX);
	first = at;
	if (at > room) {
		if (!(cc = calloc(j->nw, sizeof(*cc)))) {
			err_nomem(j->e);
			goto out;
		}
		for (size_t b = 0; b < j->nw; b++) {
			if (compress(j, raw[b], rawn[b], &cc[b]) < 0)
				goto out;
			free(raw[b]);
			raw[b] = cc[b].p;
			rawn[b] = cc[b].len;
			cc[b].p = NULL;
		}
		at = lay_out(j, rawn, align, UINT64_MAX);
		if (at > room) {
			err_code_set(j->e, ERR_MALFORMED, "the code objects "
				     "make a .hip_fatbin of %llu bytes (%llu as "
				     "CCOBs), more than the %llu it had",
				     (unsigned long long)first,
				     (unsigned long long)at,
				     (unsigned long long)room);
			goto out;
		}
	}
	if (at > SIZE_MAX || !(p = calloc(at ? (size_t)at : 1, 1))) {
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
	free(raw);
	free(rawn);
	return rc;
}

/* Point the wrapper slot at address `at` (file offset off) to v. */
static int set_pointer(struct join *j, uint8_t *o, uint64_t at, uint64_t off,
		       uint64_t v)
{
	uint32_t rel = relative_type(j->s.machine);

	for (size_t i = 1; i < j->s.n; i++) {
		const struct elfscan_section *r = &j->s.sec[i];

		if (r->type != SHT_RELA_ || !(r->flags & SHF_ALLOC_))
			continue;
		for (uint64_t k = 0; k + 24 <= r->size; k += 24) {
			const uint8_t *x = j->buf + r->offset + k;

			if (get_le(x, 8) != at)
				continue;
			if ((get_le(x + 8, 8) & 0xffffffff) != rel || !rel)
				return err_code_set(j->e, ERR_MALFORMED, "the "
						    "wrapper pointer at 0x%llx "
						    "has a relocation of type "
						    "%llu, not RELATIVE",
						    (unsigned long long)at,
						    (unsigned long long)
						    (get_le(x + 8, 8) &
						     0xffffffff));
			put_le(o + r->offset + k + 16, v, 8);
		}
	}
	put_le(o + off, v, 8);
	return 0;
}

/* Where the original .hip_fatbin was: its address range now, and, when
 * .rocm_kpack_ref was put at its start (offload kpack split maps it
 * there: the section then starts after it), that too. */
struct region {
	uint64_t addr, size, align;
};

static int region_of(struct join *j, const struct elfscan_section *hf,
		     const struct elfscan_section *ref, struct region *r)
{
	r->addr = hf->addr;
	r->size = hf->size;
	r->align = hf->align;
	if ((ref->flags & SHF_ALLOC_) && ref->addr <= hf->addr &&
	    hf->addr - ref->addr == ref->size) {
		r->addr = ref->addr;
		r->size += ref->size;
		/* Its alignment went with its start: clang's. */
		if (r->align <= 1)
			r->align = HIP_FATBIN_ALIGN;
	}
	if (!r->align)
		r->align = 1;
	if (r->align & (r->align - 1))
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: "
				    "alignment %llu is not a power of two",
				    (unsigned long long)r->align);
	if (r->size > UINT64_MAX - r->addr)
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: its "
				    "%llu bytes at 0x%llx run past the address "
				    "space", (unsigned long long)r->size,
				    (unsigned long long)r->addr);
	return 0;
}

/* The bytes of the fat binary, from the split one's: the .hip_fatbin
 * (fsize bytes at fat) at the region's address, where a segment maps
 * file bytes over all of it (written there), else in new file bytes the
 * segments that map parts of it (and nothing else) map. */
static int rewrite(struct join *j, const struct region *rg,
		   const uint8_t *fat, uint64_t fsize, struct io_out *out)
{
	const struct elfscan_section *hf = section(&j->s, ".hip_fatbin");
	const struct elfscan_section *seg = section(&j->s, ".hipFatBinSegment");
	const struct elfscan_section *ref = section(&j->s, ".rocm_kpack_ref");
	uint64_t phoff = get_le(j->buf + EHDR_PHOFF, 8);
	uint64_t shoff = get_le(j->buf + EHDR_SHOFF, 8);
	size_t phnum = (size_t)get_le(j->buf + EHDR_PHNUM, 2);
	uint64_t total = j->len, at = UINT64_MAX, malign = 1;
	uint64_t end = rg->addr + rg->size;
	uint8_t *o = NULL, *sh;
	int rc = -1;

	if (get_le(j->buf + EHDR_PHENTSIZE, 2) != PHDR ||
	    get_le(j->buf + EHDR_SHENTSIZE, 2) != SHDR || phoff > j->len ||
	    phnum > (j->len - phoff) / PHDR)
		return err_code_set(j->e, ERR_MALFORMED, "program headers "
				    "run past the end of the file");
	/* A segment with file bytes over the whole range: in place. */
	for (size_t i = 0; i < phnum && at == UINT64_MAX; i++) {
		const uint8_t *ph = j->buf + phoff + i * PHDR;
		uint64_t off = get_le(ph + 8, 8), va = get_le(ph + 16, 8);
		uint64_t fs = get_le(ph + 32, 8);

		if (get_le(ph, 4) == PT_LOAD_ && va <= rg->addr &&
		    fs <= j->len && off <= j->len - fs &&
		    rg->addr - va <= fs && rg->size <= fs - (rg->addr - va))
			at = off + (rg->addr - va);
	}
	if (at == UINT64_MAX) {
		/* Else each segment over part of it must lie inside it (the
		 * splitter's pieces): they map new bytes at the end, at an
		 * offset congruent to the address modulo their alignment. */
		for (size_t i = 0; i < phnum; i++) {
			const uint8_t *ph = j->buf + phoff + i * PHDR;
			uint64_t va = get_le(ph + 16, 8), mem = get_le(ph + 40, 8);
			uint64_t al = get_le(ph + 48, 8);

			if (get_le(ph, 4) != PT_LOAD_ || va >= end ||
			    (va < rg->addr && mem <= rg->addr - va))
				continue;
			if (va < rg->addr || mem > end - va)
				return err_code_set(j->e, ERR_MALFORMED,
						    "program header %zu maps "
						    "more than .hip_fatbin", i);
			if (al > malign && !(al & (al - 1)) && al <= (1u << 30))
				malign = al;
		}
		at = j->len + ((rg->addr % malign) - (j->len % malign) +
			       malign) % malign;
		total = at + fsize;
	}
	if (total > SIZE_MAX || !(o = malloc(total ? (size_t)total : 1)))
		return err_nomem(j->e);
	memcpy(o, j->buf, j->len);
	memset(o + j->len, 0, total - j->len);
	if (total == j->len) {
		memcpy(o + at, fat, fsize);
		memset(o + at + fsize, 0, rg->size - fsize);
	} else {
		memcpy(o + at, fat, fsize);
		for (size_t i = 0; i < phnum; i++) {
			uint8_t *ph = o + phoff + i * PHDR;
			uint64_t va = get_le(ph + 16, 8), mem = get_le(ph + 40, 8);
			uint64_t rel = va - rg->addr;

			if (get_le(ph, 4) != PT_LOAD_ || va >= end ||
			    va < rg->addr)
				continue;
			put_le(ph + 8, at + rel, 8);
			put_le(ph + 32, fsize > rel ? (fsize - rel < mem ?
						       fsize - rel : mem) : 0, 8);
		}
	}
	sh = o + shoff + (uint64_t)hf->index * SHDR;
	put_le(sh + 4, SHT_PROGBITS_, 4);
	put_le(sh + 16, rg->addr, 8);
	put_le(sh + 24, at, 8);
	put_le(sh + 32, fsize, 8);
	put_le(sh + 48, rg->align, 8);
	for (size_t w = 0; w < j->nw; w++) {
		uint64_t off = seg->offset + w * WRAPPER;
		uint64_t v = rg->addr + j->start[j->index[w]];

		put_le(o + off, KPACK_HIPF, 4);
		put_le(o + off + 16, 0, 8);
		if (set_pointer(j, o, seg->addr + w * WRAPPER + 8, off + 8, v) < 0)
			goto out;
	}
	/* .rocm_kpack_ref: its PT_LOAD when it maps it alone, its header. */
	if (ref->flags & SHF_ALLOC_) {
		for (size_t i = 0; i < phnum; i++) {
			uint8_t *ph = o + phoff + i * PHDR;
			uint64_t va = get_le(ph + 16, 8), mem = get_le(ph + 40, 8);
			bool alone = get_le(ph, 4) == PT_LOAD_ &&
				     va == ref->addr && mem == ref->size;

			for (size_t k = 1; alone && k < j->s.n; k++) {
				const struct elfscan_section *x = &j->s.sec[k];

				if (k != ref->index && (x->flags & SHF_ALLOC_) &&
				    x->addr < va + mem && va < x->addr + x->size)
					alone = false;
			}
			if (alone)
				put_le(ph, PT_NULL_, 4);
		}
	}
	if (ref->index == j->s.n - 1 && get_le(o + EHDR_SHNUM, 2) == j->s.n)
		put_le(o + EHDR_SHNUM, j->s.n - 1, 2);
	else
		memset(o + shoff + (uint64_t)ref->index * SHDR, 0, SHDR);
	if (io_out_write(out, o, (size_t)total, j->e) < 0)
		goto out;
	rc = 0;
out:
	free(o);
	return rc;
}

int kpack_join(const char *path, const uint8_t *buf, size_t len,
	       struct select *sel, struct io_out *out,
	       struct kpack_join_stats *st, struct err *e)
{
	struct join j = { .path = path, .buf = buf, .len = len, .e = e };
	struct select all = { 0 };
	const struct elfscan_section *ref, *seg, *hf;
	uint8_t *fat = NULL;
	uint64_t fsize = 0;
	struct region rg;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (!sel)
		sel = &all;
	if (!elfscan_is_elf(buf, len))
		return err_code_set(e, ERR_MALFORMED, "not an ELF file");
	if (elfscan_open(&j.s, buf, len, e) < 0)
		return -1;
	if (!j.s.is64 || j.s.big_endian) {
		err_code_set(e, ERR_MALFORMED, "not a 64-bit little-endian ELF "
			     "file");
		goto out;
	}
	ref = section(&j.s, ".rocm_kpack_ref");
	seg = section(&j.s, ".hipFatBinSegment");
	hf = section(&j.s, ".hip_fatbin");
	if (!ref) {
		err_code_set(e, ERR_NOTHING, "not a kpack-split binary (no "
			     ".rocm_kpack_ref section)");
		goto out;
	}
	if (!seg || !hf) {
		err_code_set(e, ERR_MALFORMED, "no %s section",
			     seg ? ".hip_fatbin" : ".hipFatBinSegment");
		goto out;
	}
	if (ref->index == j.s.shstrndx || ref->type == SHT_NOBITS_ ||
	    kpack_ref_parse(buf + ref->offset, (size_t)ref->size, &j.ref,
			    e) < 0) {
		if (ref->index == j.s.shstrndx || ref->type == SHT_NOBITS_)
			err_code_set(e, ERR_MALFORMED, ".rocm_kpack_ref is not "
				     "a reference");
		goto out;
	}
	if (region_of(&j, hf, ref, &rg) < 0 || read_wrappers(&j, seg) < 0 ||
	    open_archives(&j) < 0 || pick_targets(&j, sel) < 0 ||
	    gather(&j) < 0 ||
	    make_fatbin(&j, rg.align, rg.size, &fat, &fsize) < 0 ||
	    rewrite(&j, &rg, fat, fsize, out) < 0)
		goto out;
	st->bundles = j.nw;
	st->codes = j.nc;
	st->fatbin = fsize;
	rc = 0;
out:
	free(fat);
	for (size_t i = 0; i < j.nc; i++) {
		free(j.c[i].id);
		free(j.c[i].data);
	}
	free(j.c);
	for (size_t i = 0; i < j.na; i++) {
		if (j.a[i].parsed)
			kpack_free(&j.a[i].k);
		if (j.a[i].open)
			io_in_close(&j.a[i].in);
		free(j.apath[i]);
	}
	free(j.a);
	free(j.apath);
	free(j.targets);
	free(j.cand);
	free(j.from);
	free(j.index);
	free(j.start);
	kpack_ref_free(&j.ref);
	elfscan_free(&j.s);
	return rc;
}
