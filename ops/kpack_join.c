/* kpack_join: undo what a kpack splitter did to a host binary (rocm-kpack's:
 * python/rocm_kpack/elf/kpack_transform.py, kpack_offload_binary; ours:
 * ops/kpack_host.c; spec: docs/multi_arch_packaging_with_kpack.md,
 * "Binary Conversion"), with the code objects its archives hold.
 *
 * What the splitters did, and what is undone:
 *   - .hip_fatbin's bytes were dropped.  rocm-kpack "zero-pages" it: the
 *     section NOBITS, its whole pages cut from the file, its PT_LOAD split
 *     into pieces (one with no file bytes); address, size and alignment
 *     stay.  offload kpack split puts .rocm_kpack_ref at its start and
 *     makes the rest an unallocated NOBITS section (a hole, or cut out of
 *     the file, the program headers perhaps moved there).  Either way the
 *     range it had is known (struct region), and where each bundle was:
 *     one bundle per wrapper, in wrapper order, each at the section's
 *     alignment after the one before (the linker's concatenation of one
 *     .hip_fatbin per translation unit).  The bundles are made again:
 *     entries in clang's order (the host's, empty, then the devices' by
 *     bundle ID) at 4096-byte alignment (clang's HIP driver bundles with
 *     -bundle-align=4096), entry IDs the splitter's TOC metadata "target"
 *     (else hipv4-amdgcn-amd-amdhsa--<target>), the host's host-<triple>-
 *     from the ELF machine.  For every target of the original that makes
 *     the original .hip_fatbin byte for byte.  When they do not fit the
 *     range but their CCOBs do, the original's were compressed: CCOBs
 *     (clang's, byte for byte).  They go in that range where the file can
 *     take them there (enum place), else into a new segment.
 *   - each wrapper (.hipFatBinSegment, 24 bytes) became HIPK, its pointer
 *     aimed at .rocm_kpack_ref (the R_*_RELATIVE addend; the slot
 *     zeroed), its reserved1 the index of its code object (the "#<i>" of
 *     the TOC key, the i-th bundle).  It is HIPF again, reserved1 0, the
 *     pointer the address of bundle i: the RELATIVE addend when there is
 *     one, and the slot's bytes (what the linker writes there, and what
 *     a RELR-relocated or absolute pointer is).
 *   - .rocm_kpack_ref was added (rocm-kpack maps it with a PT_LOAD of its
 *     own).  It is dropped: a binary with it reads as split (offload ls,
 *     AMD's tools, whose splitter refuses to split it again), and what it
 *     says is no longer true.  Its section header goes (drop_header), its
 *     PT_LOAD becomes PT_NULL when it maps that section alone.
 * Everything else is the split binary's bytes.  64-bit little-endian
 * linked ELF files (the only HIP hosts there are). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpack_find.h"
#include "kpack_join.h"
#include "../core/bytes.h"
#include "../core/elfscan.h"
#include "../core/io_in.h"
#include "../core/io_write.h"
#include "../formats/bundle.h"
#include "../formats/bundle_binary.h"
#include "../formats/ccob.h"
#include "../formats/kpack.h"
#include "../formats/kpack_ref.h"

enum {
	WRAPPER = 24,		/* u32 magic, u32 version, ptr, reserved1 */
	ENTRY_ALIGN = 4096,	/* clang HIP: -bundle-align=4096 */
	HIP_FATBIN_ALIGN = 4096,	/* clang's .hip_fatbin sections */
	HIP_FATBIN_ALIGN_MAX = 1u << 20,
	SHT_PROGBITS_ = 1, SHT_SYMTAB_ = 2, SHT_RELA_ = 4, SHT_NOBITS_ = 8,
	SHT_REL_ = 9, SHT_DYNSYM_ = 11, SHT_GROUP_ = 17, SHT_SYMTAB_SHNDX_ = 18,
	SHF_ALLOC_ = 2, SHF_INFO_LINK_ = 0x40, SHN_LORESERVE_ = 0xff00,
	SHN_XINDEX_ = 0xffff,
	PT_NULL_ = 0, PT_LOAD_ = 1, PT_PHDR_ = 6, PF_R_ = 4,
	EHDR_PHOFF = 32, EHDR_SHOFF = 40, EHDR_PHENTSIZE = 54, EHDR_PHNUM = 56,
	EHDR_SHENTSIZE = 58, EHDR_SHNUM = 60, EHDR_SHSTRNDX = 62, SHDR = 64,
	PHDR = 56,
};

static const char amdgcn[] = "amdgcn-amd-amdhsa";

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
	struct kpack_find f;	/* its reference and the archives found */
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
static int open_archives(struct join *j)
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
static int make_fatbin(struct join *j, uint64_t align, uint64_t room,
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

/* Where the original .hip_fatbin was (its address range and alignment):
 * the section's, when still allocated (the reference splitter keeps it,
 * NOBITS); when offload kpack split put .rocm_kpack_ref at its start, that
 * with the rest (an older split: the section allocated after it; now:
 * unallocated, its size the rest's), the alignment then clang's. */
struct region {
	uint64_t addr, size, align;
};

static int region_of(struct join *j, const struct elfscan_section *hf,
		     const struct elfscan_section *ref, struct region *r)
{
	bool ref_alloc = ref->flags & SHF_ALLOC_;

	r->addr = hf->addr;
	r->size = hf->size;
	r->align = hf->align;
	if (hf->flags & SHF_ALLOC_) {
		if (ref_alloc && ref->addr <= hf->addr &&
		    hf->addr - ref->addr == ref->size) {
			r->addr = ref->addr;
			r->size += ref->size;
			if (r->align <= 1)
				r->align = HIP_FATBIN_ALIGN;
		}
	} else if (ref_alloc && hf->type == SHT_NOBITS_) {
		r->addr = ref->addr;
		r->size = ref->size + hf->size;
		r->align = HIP_FATBIN_ALIGN;
		if (r->size < hf->size)
			return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: "
					    "%llu bytes, too many",
					    (unsigned long long)hf->size);
	} else {
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin is not "
				    "in memory, nor .rocm_kpack_ref where it "
				    "was: its place is not known");
	}
	if (!r->align)
		r->align = 1;
	if (r->align & (r->align - 1))
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: "
				    "alignment %llu is not a power of two",
				    (unsigned long long)r->align);
	if (r->align > HIP_FATBIN_ALIGN_MAX)
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: "
				    "alignment %llu is beyond %u",
				    (unsigned long long)r->align,
				    HIP_FATBIN_ALIGN_MAX);
	if (r->size > UINT64_MAX - r->addr)
		return err_code_set(j->e, ERR_MALFORMED, ".hip_fatbin: its "
				    "%llu bytes at 0x%llx run past the address "
				    "space", (unsigned long long)r->size,
				    (unsigned long long)r->addr);
	return 0;
}

static bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an && a + an > a &&
	       b + bn > b;
}

/* The program headers, checked. */
struct phdrs {
	uint64_t off;
	size_t n;
};

/* Whether nothing but .hip_fatbin and .rocm_kpack_ref is in the range:
 * no other allocated section in memory, no program header table; when
 * file_len, no other section's bytes nor a header table in the file range
 * [file_off, +file_len). */
static bool clear(const struct join *j, const struct phdrs *ph,
		  const struct region *rg, uint64_t file_off,
		  uint64_t file_len)
{
	uint64_t shoff = get_le(j->buf + EHDR_SHOFF, 8);

	for (size_t k = 1; k < j->s.n; k++) {
		const struct elfscan_section *x = &j->s.sec[k];

		if (x->kind == SECTION_HIP_FATBIN ||
		    x->kind == SECTION_KPACK_REF)
			continue;
		if ((x->flags & SHF_ALLOC_) &&
		    overlap(x->addr, x->size, rg->addr, rg->size))
			return false;
		if (file_len && x->type != SHT_NOBITS_ &&
		    overlap(x->offset, x->size, file_off, file_len))
			return false;
	}
	for (size_t i = 0; i < ph->n; i++) {
		const uint8_t *p = j->buf + ph->off + i * PHDR;

		if (get_le(p, 4) == PT_PHDR_ &&
		    overlap(get_le(p + 16, 8), get_le(p + 40, 8), rg->addr,
			    rg->size))
			return false;
	}
	return !file_len ||
	       (!overlap(ph->off, ph->n * PHDR, file_off, file_len) &&
		!overlap(shoff, j->s.n * SHDR, file_off, file_len));
}

/* Where the bytes of .hip_fatbin go. */
enum place {
	IN_PLACE,	/* a segment has file bytes for the whole range */
	REPOINT,	/* the segments over parts of it lie inside it (the
			 * reference splitter's pieces): they map new bytes
			 * at the end of the file */
	NEW_SEGMENT,	/* elsewhere: a new PT_LOAD past the others, the
			 * program headers moved into it */
};

/* Which, and for IN_PLACE the file offset of the range's start. */
static enum place choose(const struct join *j, const struct phdrs *ph,
			 const struct region *rg, bool in_room, uint64_t *at)
{
	uint64_t end = rg->addr + rg->size;
	bool inside = true;

	if (!in_room)
		return NEW_SEGMENT;
	for (size_t i = 0; i < ph->n; i++) {
		const uint8_t *p = j->buf + ph->off + i * PHDR;
		uint64_t off = get_le(p + 8, 8), va = get_le(p + 16, 8);
		uint64_t fs = get_le(p + 32, 8);

		if (get_le(p, 4) == PT_LOAD_ && va <= rg->addr &&
		    fs <= j->len && off <= j->len - fs &&
		    rg->addr - va <= fs && rg->size <= fs - (rg->addr - va) &&
		    clear(j, ph, rg, off + (rg->addr - va), rg->size)) {
			*at = off + (rg->addr - va);
			return IN_PLACE;
		}
	}
	for (size_t i = 0; i < ph->n; i++) {
		const uint8_t *p = j->buf + ph->off + i * PHDR;
		uint64_t va = get_le(p + 16, 8), mem = get_le(p + 40, 8);

		if (get_le(p, 4) == PT_LOAD_ && overlap(va, mem, rg->addr,
							rg->size) &&
		    (va < rg->addr || mem > end - va))
			inside = false;
	}
	return inside && clear(j, ph, rg, 0, 0) ? REPOINT : NEW_SEGMENT;
}

/* The largest power-of-two alignment of the loadable segments (a page
 * at least), and where the highest one ends. */
static void loads(const struct join *j, const struct phdrs *ph,
		  uint64_t *page, uint64_t *top)
{
	*page = 4096;
	*top = 0;
	for (size_t i = 0; i < ph->n; i++) {
		const uint8_t *p = j->buf + ph->off + i * PHDR;
		uint64_t va = get_le(p + 16, 8), mem = get_le(p + 40, 8);
		uint64_t al = get_le(p + 48, 8);

		if (get_le(p, 4) != PT_LOAD_)
			continue;
		if (al > *page && !(al & (al - 1)) && al <= (1u << 30))
			*page = al;
		if (va + mem >= va && va + mem > *top)
			*top = va + mem;
	}
}

/* Section k's header taken out of the table at shoff in o: the ones
 * after it move down, and every index past it that the file holds goes
 * down by one (e_shstrndx, sh_link, the sh_info of relocation sections
 * and of SHF_INFO_LINK ones, symbols' st_shndx, group members). */
static void drop_header(const struct join *j, uint8_t *o, uint64_t shoff,
			size_t k)
{
	uint8_t *t = o + shoff;
	size_t n = j->s.n;
	uint64_t v;

	memmove(t + k * SHDR, t + (k + 1) * SHDR, (n - k - 1) * SHDR);
	memset(t + (n - 1) * SHDR, 0, SHDR);
	n--;
	if (get_le(o + EHDR_SHNUM, 2))
		put_le(o + EHDR_SHNUM, n, 2);
	else
		put_le(t + 32, n, 8);		/* extended: sh[0].sh_size */
	if ((v = get_le(o + EHDR_SHSTRNDX, 2)) == SHN_XINDEX_) {
		if ((v = get_le(t + 40, 4)) > k)
			put_le(t + 40, v - 1, 4);
	} else if (v > k && v < SHN_LORESERVE_) {
		put_le(o + EHDR_SHSTRNDX, v - 1, 2);
	}
	for (size_t i = 1; i < n; i++) {
		uint8_t *h = t + i * SHDR;
		uint32_t type = (uint32_t)get_le(h + 4, 4);
		uint64_t flags = get_le(h + 8, 8);
		uint64_t off = get_le(h + 24, 8), size = get_le(h + 32, 8);

		if ((v = get_le(h + 40, 4)) >= k)
			put_le(h + 40, v > k ? v - 1 : 0, 4);
		if ((type == SHT_RELA_ || type == SHT_REL_ ||
		     (flags & SHF_INFO_LINK_)) && (v = get_le(h + 44, 4)) > k)
			put_le(h + 44, v - 1, 4);
		/* (elfscan_open checked every section's bytes are in the
		 * file) */
		if (type == SHT_SYMTAB_ || type == SHT_DYNSYM_) {
			for (uint64_t at = 0; at + 24 <= size; at += 24) {
				v = get_le(o + off + at + 6, 2);
				if (v > k && v < SHN_LORESERVE_)
					put_le(o + off + at + 6, v - 1, 2);
			}
		} else if (type == SHT_SYMTAB_SHNDX_ || type == SHT_GROUP_) {
			for (uint64_t at = type == SHT_GROUP_ ? 4 : 0;
			     at + 4 <= size; at += 4)
				if ((v = get_le(o + off + at, 4)) > k)
					put_le(o + off + at, v - 1, 4);
		}
	}
}

/* The bytes of the fat binary, from the split one's, .hip_fatbin's
 * (fsize bytes at fat) placed as choose() says. */
static int rewrite(struct join *j, const struct region *rg, bool in_room,
		   const uint8_t *fat, uint64_t fsize, struct io_out *out)
{
	const struct elfscan_section *hf =
		elfscan_find(&j->s, SECTION_HIP_FATBIN);
	const struct elfscan_section *seg =
		elfscan_find(&j->s, SECTION_HIP_WRAPPERS);
	const struct elfscan_section *ref =
		elfscan_find(&j->s, SECTION_KPACK_REF);
	struct phdrs ph = { .off = get_le(j->buf + EHDR_PHOFF, 8),
			    .n = (size_t)get_le(j->buf + EHDR_PHNUM, 2) };
	uint64_t shoff = get_le(j->buf + EHDR_SHOFF, 8);
	uint64_t total = j->len, at = 0, addr = rg->addr, page, top;
	uint64_t newph = 0, tbl = 0, fo = 0;
	uint8_t *o = NULL, *sh, *pht;
	enum place where;
	int rc = -1;

	if (get_le(j->buf + EHDR_PHENTSIZE, 2) != PHDR ||
	    get_le(j->buf + EHDR_SHENTSIZE, 2) != SHDR || ph.off > j->len ||
	    ph.n > (j->len - ph.off) / PHDR)
		return err_code_set(j->e, ERR_MALFORMED, "program headers "
				    "run past the end of the file");
	if (!ph.n)
		return err_code_set(j->e, ERR_MALFORMED, "no program headers: "
				    "not a linked file");
	where = choose(j, &ph, rg, in_room, &at);
	loads(j, &ph, &page, &top);
	switch (where) {
	case IN_PLACE:
		break;
	case REPOINT:
		/* Past the end, congruent to the address. */
		at = j->len + ((rg->addr % page) - (j->len % page) + page) %
			      page;
		total = at + fsize;
		break;
	case NEW_SEGMENT:
		if (ph.n >= 0xfffe)
			return err_code_set(j->e, ERR_MALFORMED, "%zu program "
					    "headers: no room for one more",
					    ph.n);
		tbl = (ph.n + 1) * PHDR;
		fo = (tbl + rg->align - 1) / rg->align * rg->align;
		addr = (top + page - 1) / page * page;
		newph = (j->len + page - 1) / page * page;
		if (addr < top || newph < j->len || fsize > UINT64_MAX - fo ||
		    fo + fsize > UINT64_MAX - newph ||
		    fo + fsize > UINT64_MAX - addr)
			return err_code_set(j->e, ERR_MALFORMED, "no address "
					    "space left for .hip_fatbin");
		at = newph + fo;
		addr += fo;
		total = at + fsize;
		break;
	}
	if (total > SIZE_MAX || !(o = malloc(total ? (size_t)total : 1)))
		return err_nomem(j->e);
	memcpy(o, j->buf, j->len);
	memset(o + j->len, 0, total - j->len);
	memcpy(o + at, fat, fsize);
	pht = o + ph.off;
	switch (where) {
	case IN_PLACE:
		memset(o + at + fsize, 0, rg->size - fsize);
		break;
	case REPOINT:
		for (size_t i = 0; i < ph.n; i++) {
			uint8_t *p = pht + i * PHDR;
			uint64_t va = get_le(p + 16, 8), mem = get_le(p + 40, 8);
			uint64_t rel = va - rg->addr;

			if (get_le(p, 4) != PT_LOAD_ ||
			    !overlap(va, mem, rg->addr, rg->size))
				continue;
			put_le(p + 8, at + rel, 8);
			put_le(p + 32, fsize > rel ? (fsize - rel < mem ?
						      fsize - rel : mem) : 0, 8);
		}
		break;
	case NEW_SEGMENT:
		/* The table, one more: PT_PHDR (if any) names it, the new
		 * PT_LOAD (highest, so last) maps it and the bundles. */
		pht = o + newph;
		memcpy(pht, j->buf + ph.off, ph.n * PHDR);
		for (size_t i = 0; i < ph.n; i++) {
			uint8_t *p = pht + i * PHDR;

			if (get_le(p, 4) != PT_PHDR_)
				continue;
			put_le(p + 8, newph, 8);
			put_le(p + 16, addr - fo, 8);
			put_le(p + 24, addr - fo, 8);
			put_le(p + 32, tbl, 8);
			put_le(p + 40, tbl, 8);
		}
		{
			uint8_t *p = pht + ph.n * PHDR;

			put_le(p, PT_LOAD_, 4);
			put_le(p + 4, PF_R_, 4);
			put_le(p + 8, newph, 8);
			put_le(p + 16, addr - fo, 8);
			put_le(p + 24, addr - fo, 8);
			put_le(p + 32, fo + fsize, 8);
			put_le(p + 40, fo + fsize, 8);
			put_le(p + 48, page, 8);
		}
		put_le(o + EHDR_PHOFF, newph, 8);
		put_le(o + EHDR_PHNUM, ph.n + 1, 2);
		break;
	}
	sh = o + shoff + (uint64_t)hf->index * SHDR;
	put_le(sh + 4, SHT_PROGBITS_, 4);
	put_le(sh + 8, get_le(sh + 8, 8) | SHF_ALLOC_, 8);
	put_le(sh + 16, addr, 8);
	put_le(sh + 24, at, 8);
	put_le(sh + 32, fsize, 8);
	put_le(sh + 48, rg->align, 8);
	for (size_t w = 0; w < j->nw; w++) {
		uint64_t off = seg->offset + w * WRAPPER;
		uint64_t v = addr + j->start[j->index[w]];

		put_le(o + off, KPACK_HIPF, 4);
		put_le(o + off + 16, 0, 8);
		if (set_pointer(j, o, seg->addr + w * WRAPPER + 8, off + 8, v) < 0)
			goto out;
	}
	/* .rocm_kpack_ref: its PT_LOAD when it maps it alone, its header. */
	if (ref->flags & SHF_ALLOC_) {
		size_t n = where == NEW_SEGMENT ? ph.n + 1 : ph.n;

		for (size_t i = 0; i < n; i++) {
			uint8_t *p = pht + i * PHDR;
			uint64_t va = get_le(p + 16, 8), mem = get_le(p + 40, 8);
			bool alone = get_le(p, 4) == PT_LOAD_ &&
				     va == ref->addr && mem == ref->size;

			for (size_t k = 1; alone && k < j->s.n; k++) {
				const struct elfscan_section *x = &j->s.sec[k];

				if (k != ref->index && k != hf->index &&
				    (x->flags & SHF_ALLOC_) &&
				    overlap(x->addr, x->size, va, mem))
					alone = false;
			}
			if (alone)
				put_le(p, PT_NULL_, 4);
		}
	}
	drop_header(j, o, shoff, ref->index);
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
	struct join j = { .path = path, .buf = buf, .len = len, .e = e,
			  .f = { .path = path } };
	struct select all = { 0 };
	const struct elfscan_section *ref, *seg, *hf;
	uint8_t *fat = NULL;
	uint64_t fsize = 0;
	struct region rg;
	bool in_room;
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
	ref = elfscan_find(&j.s, SECTION_KPACK_REF);
	seg = elfscan_find(&j.s, SECTION_HIP_WRAPPERS);
	hf = elfscan_find(&j.s, SECTION_HIP_FATBIN);
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
	    kpack_ref_parse(buf + ref->offset, (size_t)ref->size, &j.f.ref,
			    e) < 0) {
		if (ref->index == j.s.shstrndx || ref->type == SHT_NOBITS_)
			err_code_set(e, ERR_MALFORMED, ".rocm_kpack_ref is not "
				     "a reference");
		goto out;
	}
	if (region_of(&j, hf, ref, &rg) < 0 || read_wrappers(&j, seg) < 0 ||
	    open_archives(&j) < 0 || pick_targets(&j, sel) < 0 ||
	    gather(&j) < 0 ||
	    make_fatbin(&j, rg.align, rg.size, &fat, &fsize, &in_room) < 0 ||
	    rewrite(&j, &rg, in_room, fat, fsize, out) < 0)
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
	free(j.targets);
	free(j.cand);
	free(j.from);
	free(j.index);
	free(j.start);
	kpack_find_close(&j.f);
	elfscan_free(&j.s);
	return rc;
}
