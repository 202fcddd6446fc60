/* prune_bundle: binary bundles and CCOBs pruned, and bundles made CCOBs
 * (--compress); see prune_bundle.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/io_in.h"
#include "../formats/bundle_binary.h"
#include "../formats/ccob_decode.h"
#include "../formats/ccob_entries.h"
#include "../formats/fatbin.h"
#include "prune_bundle.h"
#include "prune_containers.h"
#include "prune_impl.h"

/* ---- binary bundles ---- */

/* The bundler's alignment that lays the entries out where they are: the
 * smallest power of two that reproduces every offset (LLVM's layout),
 * else the largest that divides them all. */
static uint64_t laid_out_align(const struct fatbin_entry *v, size_t n,
			       uint64_t header_end)
{
	uint64_t low = 1ULL << 16;

	for (uint64_t a = 1; a <= (1ULL << 16); a <<= 1) {
		uint64_t pos = header_end;
		size_t i;

		for (i = 0; i < n; i++) {
			pos = (pos + a - 1) / a * a;
			if (v[i].offset != pos)
				break;
			pos += v[i].size;
		}
		if (i == n)
			return a;
	}
	for (size_t i = 0; i < n; i++)
		while (v[i].offset % low)
			low >>= 1;
	return low ? low : 1;
}

/* The bundle of the kept entries, as the bundler lays it out, as pieces:
 * its header, then each kept entry's code where it is (at file offset
 * file_off + its offset when in_file).  buf may be the bundle's header
 * alone when no kept entry has a byte of code (a CCOB's, not inflated). */
static int rebuild_bundle(const uint8_t *buf, const struct fatbin_entry *v,
			  const bool *kept, size_t n, uint64_t align,
			  bool in_file, uint64_t file_off,
			  struct prune_patch *pt, struct err *e)
{
	const char **ids = calloc(n ? n : 1, sizeof(*ids));
	uint64_t *sizes = calloc(n ? n : 1, sizeof(*sizes));
	size_t *from = calloc(n ? n : 1, sizeof(*from));
	struct bundle_plan plan = { 0 };
	size_t k = 0;
	int rc = -1;

	if (!ids || !sizes || !from) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!kept[i])
			continue;
		ids[k] = strndup(v[i].id, v[i].id_len);
		if (!ids[k]) {
			err_nomem(e);
			goto out;
		}
		sizes[k] = v[i].size;
		from[k++] = i;
	}
	if (bundle_plan_binary(ids, sizes, k, align, &plan, e) < 0)
		goto out;
	pt->piece = calloc(plan.n ? plan.n : 1, sizeof(*pt->piece));
	if (!pt->piece) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < plan.n; i++) {
		const struct bundle_piece *bp = &plan.piece[i];
		struct prune_piece *pc = &pt->piece[i];

		*pc = (struct prune_piece){ .lit = bp->lit,
					    .lit_len = bp->lit_len,
					    .pad = bp->pad };
		if (bp->input >= 0 && v[from[bp->input]].size) {
			const struct fatbin_entry *src = &v[from[bp->input]];

			pc->data = buf + src->offset;
			pc->data_len = src->size;
			pc->from_file = in_file;
			pc->src = file_off + src->offset;
		}
	}
	pt->npieces = plan.n;
	pt->new_size = plan.total;
	pt->storage = plan.storage;	/* the lits live there */
	plan.storage = NULL;
	rc = 0;
out:
	for (size_t i = 0; ids && i < k; i++)
		free((char *)ids[i]);
	free(ids);
	free(sizes);
	free(from);
	bundle_plan_free(&plan);
	if (rc < 0)
		prune_patch_free(pt);
	return rc;
}

/* A bundle's entries, decided: keep() asked of each, in their order;
 * what it said, once the caller's own work cannot fail (tell). */
struct decided {
	struct fatbin_entry *v;
	size_t n, nkept;
	uint64_t header_end;
	uint64_t kept_code;	/* bytes of code in the kept entries */
	struct prune_entry *pe;
	bool *kept;
};

static void decided_free(struct decided *d)
{
	free(d->v);
	free(d->pe);
	free(d->kept);
}

/* The entries of the bundle whose first `have` bytes (its header whole)
 * are at buf, of total bytes: checked, then each one's keep() asked. */
static int ask_bundle(struct pruner *p, const uint8_t *buf, size_t have,
		      uint64_t total, struct decided *d)
{
	uint64_t extent;

	memset(d, 0, sizeof(*d));
	if (fatbin_bundle_entries(buf, have, total, &d->v, &d->n,
				  &d->header_end, &extent, p->e) != 1)
		return -1;
	d->pe = calloc(d->n ? d->n : 1, sizeof(*d->pe));
	d->kept = calloc(d->n ? d->n : 1, sizeof(*d->kept));
	if (!d->pe || !d->kept)
		return err_nomem(p->e);
	for (size_t i = 0; i < d->n; i++) {
		const struct fatbin_entry *v = d->v;

		if (memchr(v[i].id, 0, v[i].id_len))
			return err_code_set(p->e, ERR_MALFORMED, "entry %zu has "
					    "an ID with a NUL byte", i + 1);
		/* The bundler lays out repeated IDs at one offset (the
		 * later wins): a bundle of them cannot be written again. */
		for (size_t j = 0; j < i; j++)
			if (v[j].id_len == v[i].id_len &&
			    !memcmp(v[j].id, v[i].id, v[i].id_len))
				return err_code_set(p->e, ERR_MALFORMED,
						    "entries %zu and %zu have "
						    "one ID", j + 1, i + 1);
	}
	for (size_t i = 0; i < d->n; i++) {
		d->pe[i].size = d->v[i].size;
		prune_entry_from_id(&d->pe[i], d->v[i].id, d->v[i].id_len);
		d->kept[i] = prune_ask(p, &d->pe[i]);
		d->nkept += d->kept[i];
		if (d->kept[i])
			d->kept_code += d->v[i].size;
	}
	return 0;
}

static void tell_bundle(struct pruner *p, const struct decided *d)
{
	size_t device_before = 0, device_after = 0;

	for (size_t i = 0; i < d->n; i++) {
		prune_tell(p, &d->pe[i], d->kept[i]);
		device_before += !d->pe[i].sel.host;
		device_after += d->kept[i] && !d->pe[i].sel.host;
	}
	if (device_before && !device_after)
		p->plan->containers_emptied++;
}

/* The bundle of d's kept entries, their code at buf (see rebuild_bundle):
 * 1 with it in *pt, 0 when every entry stays. */
static int rebuild_decided(struct pruner *p, const uint8_t *buf,
			   const struct decided *d, bool in_file,
			   uint64_t file_off, struct prune_patch *pt)
{
	if (d->nkept == d->n)
		return 0;
	return rebuild_bundle(buf, d->v, d->kept, d->n,
			      laid_out_align(d->v, d->n, d->header_end),
			      in_file, file_off, pt, p->e) < 0 ? -1 : 1;
}

/* Prune the binary bundle buf[0, size) (at file offset file_off when
 * in_file): 1 with the new bundle in *pt, 0 when every entry stays. */
static int prune_bundle(struct pruner *p, const uint8_t *buf, uint64_t size,
			bool in_file, uint64_t file_off,
			struct prune_patch *pt)
{
	struct decided d;
	int rc = -1;

	if (ask_bundle(p, buf, (size_t)size, size, &d) == 0) {
		tell_bundle(p, &d);
		rc = rebuild_decided(p, buf, &d, in_file, file_off, pt);
	}
	decided_free(&d);
	return rc;
}

/* ---- CCOBs ---- */

/* The CCOB's bundle whole, inflated and its hash checked (*raw). */
static int inflate_ccob(struct pruner *p, const uint8_t *buf, uint64_t size,
			const struct ccob_header *h, uint8_t **raw)
{
	size_t used;
	uint64_t hash;

	if (ccob_decompress(buf, (size_t)size, h, &p->o->limits, raw, &used,
			    &hash, p->e) < 0)
		return -1;
	if (hash != h->hash)
		return err_code_set(p->e, ERR_MALFORMED, "hash mismatch: the "
				    "bundle inside is damaged");
	return 0;
}

/* The CCOB's entries decided, and the bundle of the kept ones as pieces
 * in *bundle (npieces 0: all stay), *raw holding their code when it had
 * to be inflated.  The entry IDs in the bundle header decide it, read
 * from the stream's first bytes (ccob_bundle_head, as du and ls read
 * them): a CCOB wholly kept is not inflated (it stays as it is), nor one
 * whose kept entries hold no code (their bundle is made of the header
 * alone), nor any under decide_only.  A header that cannot be read so is
 * inflated whole, for the errors that says. */
static int decide_ccob(struct pruner *p, const uint8_t *buf, uint64_t size,
		       const struct ccob_header *h, struct prune_patch *bundle,
		       uint8_t **raw)
{
	struct decided d = { 0 };
	uint8_t *head = NULL;
	size_t have, n;
	int rc = -1;

	*raw = NULL;
	if (ccob_bundle_head(buf, (size_t)size, h, &head, &have, &n,
			     p->e) < 0 ||
	    ask_bundle(p, head, have, h->raw_size, &d) < 0) {
		/* Damaged, it seems: the words of inflating it whole. */
		decided_free(&d);
		free(head);
		if (inflate_ccob(p, buf, size, h, raw) < 0)
			return -1;
		return prune_bundle(p, *raw, h->raw_size, false, 0, bundle);
	}
	if (d.nkept < d.n && d.kept_code && !p->o->decide_only &&
	    inflate_ccob(p, buf, size, h, raw) < 0)
		goto out;
	tell_bundle(p, &d);
	/* Not inflated, the pieces point at no code: head may go. */
	rc = p->o->decide_only ? 0
			       : rebuild_decided(p, *raw ? *raw : head, &d,
						 false, 0, bundle);
out:
	decided_free(&d);
	free(head);
	return rc;
}

static int prune_ccob(struct pruner *p, const uint8_t *buf, uint64_t size,
		      struct prune_patch *pt)
{
	struct ccob_header h, nh;
	struct ccob_encoder *enc = NULL;
	struct prune_patch bundle = { 0 };
	struct membuf inner = { 0 }, out = { 0 };
	uint8_t head[32] = { 0 };
	uint8_t *raw = NULL;
	int rc = -1;

	if (ccob_parse_header(buf, (size_t)size, &h, p->e) < 0)
		return -1;
	rc = decide_ccob(p, buf, size, &h, &bundle, &raw);
	if (rc <= 0 || p->o->decide_only) {
		rc = rc < 0 ? -1 : 0;
		goto out;
	}
	rc = -1;
	if (prune_materialize(&bundle, &inner, p->e) < 0)
		goto out;
	nh = (struct ccob_header){
		.version = h.version, .method = h.method,
		.header_size = h.header_size, .raw_size = inner.len,
		.hash = ccob_hash(inner.p, inner.len),
	};
	enc = ccob_encoder_new(h.method, p->o->level, inner.len, p->e);
	if (!enc || prune_mem_put(&out, head, nh.header_size, p->e) < 0 ||
	    ccob_encoder_all(enc, inner.p, inner.len, prune_mem_put, &out, p->e) < 0)
		goto out;
	nh.total_size = h.version >= 2 ? out.len : 0;
	ccob_write_header(out.p, &nh);
	if (prune_patch_whole(pt, out.p, out.len, p->e) < 0)
		goto out;
	out.p = NULL;
	rc = 1;
out:
	ccob_encoder_free(enc);
	prune_patch_free(&bundle);
	free(inner.p);
	free(out.p);
	free(raw);
	return rc;
}

/* ---- bundles compressed (--compress) ---- */

/* Not where there is no version to write, nor past what version 2 holds
 * (refused before anything is read). */
bool prune_compress_bundle_hash(const struct prune_opts *o, unsigned version,
				uint64_t size)
{
	(void)o;
	return version && !(version == 2 && size > UINT32_MAX);
}

/* The compressed bytes, after the header's room, into the spool, up to
 * its room: past that the CCOB would be no smaller (full). */
struct spooling {
	const struct prune_spool *sp;
	uint64_t pos;		/* where the next byte goes, from sp->at */
	bool full;
};

static int spool_put(void *ctx, const void *src, size_t n, struct err *e)
{
	struct spooling *k = ctx;
	const uint8_t *b = src;

	if (n >= k->sp->room - k->pos) {
		k->full = true;	/* not an error: the caller asks full */
		return -1;
	}
	while (n) {
		ssize_t w = pwrite(k->sp->fd, b, n, (off_t)(k->sp->at + k->pos));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return err_sys_for(e, NULL, w < 0 ? errno : ENOSPC,
					   "temporary file");
		b += w;
		n -= (size_t)w;
		k->pos += (uint64_t)w;
	}
	return 0;
}

/* What stays mapped behind the compressor's input, and a run fed at a
 * time.  zstd reads back into its window as it matches, the nearest
 * bytes most: with 1 MiB kept, librocsparse's compressors faulted each
 * page in three times (68,000 faults for 1.4 GB of bundles, 0.4-0.9 s
 * in the kernel), with 16 MiB twice (44,000), for 15 MiB more a thread
 * (peak RSS 77 -> 79 MB at -j1, 114 -> 117 MB at -j2). */
enum { NEAR = 16 << 20, RUN = 8 << 20 };

/* The pages wholly inside p[0, n) let go of: those of a mapped input
 * (io_in_release), or of a map of our own (own). */
static void let_go(const uint8_t *p, size_t n, bool own)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from, to;

	if (!own) {
		io_in_release(p, n);
		return;
	}
	from = ((uintptr_t)p + page - 1) & ~(page - 1);
	to = ((uintptr_t)p + n) & ~(page - 1);
	if (from < to)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

/* raw[0, len) compressed a run at a time into the spool (hashed beside
 * when hasher), the pages the compressor and hasher have passed let go
 * of (let_go); pages of the window zstd matches against fault back in
 * from the page cache, as ccob_write's. */
static int compress_runs(struct ccob_encoder *enc, const uint8_t *raw,
			 size_t len, bool own, struct ccob_hasher *hasher,
			 struct spooling *k, struct err *e)
{
	uint64_t reach = ccob_encoder_reach(enc), low = 0;
	size_t have = 0;

	do {
		size_t want = len - have < RUN ? len : have + RUN;
		uint64_t in, drop;

		if (hasher)
			ccob_hasher_add(hasher, raw + have, want - have);
		if (ccob_encoder_grow(enc, raw, want, want == len, spool_put,
				      k, e) < 0)
			return -1;
		have = want;
		in = ccob_encoder_in(enc);
		drop = in > NEAR ? in - NEAR : 0;
		if (drop > low) {
			let_go(raw + low, (size_t)(drop - low), own);
			if (in > reach && in - reach > low)
				low = in - reach < drop ? in - reach : drop;
		}
	} while (have < len);
	let_go(raw + low, len - (size_t)low, own);
	return 0;
}

/* A pruned bundle's pieces written out whole into the spool's second
 * half (sp->raw_at: the room its container has there, never another's)
 * and mapped at *raw, for the compressor to read as one run of bytes
 * without our heap holding it; *map, *map_len to unmap. */
static int pieces_spooled(const struct prune_patch *pt,
			  const struct prune_spool *sp, const uint8_t **raw,
			  uint8_t **map, size_t *map_len, struct err *e)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), at = sp->raw_at;
	uint64_t base = at / page * page;
	void *m;

	for (size_t i = 0; i < pt->npieces; i++) {
		const struct prune_piece *pc = &pt->piece[i];
		const uint8_t *part[2] = { pc->lit, pc->data };
		uint64_t len[2] = { pc->lit_len, pc->data_len };

		for (int j = 0; j < 2; j++) {
			struct spooling k = { .sp = sp, .pos = at - sp->at };
			struct prune_spool wide = *sp;

			/* Padding is the zeros of a hole, never written. */
			if (j == 1)
				k.pos += pc->pad;
			wide.room = UINT64_MAX;
			k.sp = &wide;
			for (uint64_t done = 0; done < len[j];) {
				size_t n = len[j] - done > (8u << 20)
					   ? (8u << 20) : (size_t)(len[j] - done);

				if (spool_put(&k, part[j] + done, n, e) < 0)
					return -1;
				if (j == 1 && pc->from_file)
					io_in_release(part[j] + done, n);
				done += n;
			}
			at = sp->at + k.pos;
		}
	}
	*map_len = (size_t)(at - base);
	m = *map_len ? mmap(NULL, *map_len, PROT_READ, MAP_SHARED, sp->fd,
			    (off_t)base) : MAP_FAILED;
	if (m == MAP_FAILED)
		return err_sys_for(e, NULL, *map_len ? errno : EINVAL,
				   "temporary file");
	*map = m;
	*raw = (const uint8_t *)m + (sp->raw_at - base);
	return 0;
}

/* The bundle buf[0, size) (pruned: as *pt's pieces, when npieces) made
 * a CCOB of version `version` in the spool: 1 with it as *pt's one
 * piece, 0 when it would be no smaller (it stays as it was or as pruned).
 * It reads no state of the walk: prune_region runs it on several
 * threads, each container's bytes in a range of the spool of their own. */
int prune_compress_bundle(const struct prune_opts *o, unsigned version,
			  const uint8_t *buf, uint64_t size,
			  struct prune_patch *pt, struct prune_spool *sp,
			  struct err *e)
{
	struct ccob_encoder *enc = NULL;
	uint8_t *map = NULL;
	size_t map_len = 0;
	const uint8_t *raw = buf;
	size_t raw_len = (size_t)size;
	struct ccob_hasher hasher;
	struct spooling k = { .sp = sp };
	struct prune_piece *piece = NULL;
	struct ccob_header *h = &sp->head;
	uint8_t head[32] = { 0 };
	int rc = -1;

	/* A file whose runtime was not asked about (bundles outside
	 * .hip_fatbin): as it is. */
	if (!version)
		return 0;
	/* Pruned: its pieces made one run of bytes; else the bundle where
	 * it lies. */
	if (pt->npieces) {
		if (pieces_spooled(pt, sp, &raw, &map, &map_len, e) < 0)
			goto out;
		raw_len = (size_t)pt->new_size;
	}
	if (version == 2 && raw_len > UINT32_MAX) {
		err_set(e, "a bundle of %zu bytes does not fit a version 2 "
			"CCOB (--ccob-version=3)", raw_len);
		goto out;
	}
	*h = (struct ccob_header){
		.version = version, .method = o->compress_method,
		.header_size = ccob_header_size(version),
		.raw_size = raw_len,
	};
	/* Its bytes must come out smaller than it is (or is pruned). */
	if (pt->npieces && pt->new_size < sp->room)
		sp->room = pt->new_size;
	rc = 0;
	if (sp->room <= h->header_size)
		goto out;
	k.pos = h->header_size;
	if (!sp->hash_later || pt->npieces)
		ccob_hasher_init(&hasher);
	rc = -1;
	enc = ccob_encoder_new(h->method, o->level, raw_len, e);
	if (!enc)
		goto out;
	if (compress_runs(enc, raw, raw_len, map != NULL,
			  !sp->hash_later || pt->npieces ? &hasher : NULL, &k,
			  e) < 0) {
		rc = k.full ? 0 : -1;
		goto out;
	}
	if (!sp->hash_later || pt->npieces) {
		h->hash = ccob_hasher_end(&hasher);
		sp->hash_later = false;
	}
	h->total_size = k.pos;
	/* A header whose hash is still to come is written with it. */
	if (!sp->hash_later) {
		ccob_write_header(head, h);
		k.pos = 0;
		if (spool_put(&k, head, h->header_size, e) < 0)
			goto out;
	}
	piece = calloc(1, sizeof(*piece));
	if (!piece) {
		err_nomem(e);
		goto out;
	}
	prune_patch_free(pt);
	*piece = (struct prune_piece){
		.data = sp->view->data + sp->at, .data_len = h->total_size,
		.src = sp->at, .from_file = true, .file = sp->view,
	};
	pt->piece = piece;
	pt->npieces = 1;
	pt->new_size = h->total_size;
	rc = 1;
out:
	ccob_encoder_free(enc);
	if (map) {
		munmap(map, map_len);
		/* Its room in the spool's second half, given back. */
		fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)sp->raw_at, (off_t)raw_len);
	}
	return rc;
}

/* The containers of a region, each as ops/kinds.c calls them. */
int prune_kind_bundle(struct pruner *p, const uint8_t *buf, uint64_t size,
		      uint64_t file_off, struct prune_patch *pt)
{
	/* --compress: made a CCOB after, by the row's finish. */
	return prune_bundle(p, buf, size, true, file_off, pt);
}

int prune_kind_ccob(struct pruner *p, const uint8_t *buf, uint64_t size,
		    uint64_t file_off, struct prune_patch *pt)
{
	(void)file_off;
	return prune_ccob(p, buf, size, pt);
}
