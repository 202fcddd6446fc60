/* inspect_ccob: a CCOB looked into without holding it; see inspect_ccob.h. */
#include <stdlib.h>
#include <string.h>

#include "../formats/bundle.h"
#include "../formats/fatbin.h"
#include "inspect_ccob.h"
#include "../core/bytes.h"
#include "../core/gather.h"
#include "../formats/ccob_decode.h"

/* An entry's first bytes, [start, end) of the bundle. */
struct want {
	uint64_t start, end;
	size_t idx;
};

struct look {
	struct ccob_look *lk;
	struct gather g;	/* the bundle's first bytes, until decided */
	uint64_t pos;		/* bytes of the bundle so far */
	bool decided;
	struct want *order;	/* by end */
	size_t next;		/* the first of order not yet filled */
	uint8_t tail[INSPECT_HEAD];	/* the stream's last bytes before pos */
	bool failed;		/* out of memory: said at the end */
};

static int by_end(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	return x->end < y->end ? -1 : x->end > y->end;
}

/* Is the header whole (or damaged)?  Then which first bytes each entry
 * wants, in the order the stream brings their last one. */
static void plan(struct look *l, bool all)
{
	struct ccob_look *lk = l->lk;
	uint64_t header_end, extent, pos = BUNDLE_MAGIC_LEN + 8;
	size_t n = 0;
	int rc = fatbin_bundle_entries(l->g.buf, l->g.have, l->g.total, NULL,
				       &n, &header_end, &extent,
				       &lk->header_err);

	if (rc == 0 && !all) {
		gather_later(&l->g, 0);
		return;
	}
	l->decided = true;
	lk->header_rc = rc > 0 ? 1 : -1;
	if (rc <= 0) {
		if (rc == 0)
			err_cut(&lk->header_err, "header cut short");
		return;
	}
	lk->n = n;
	lk->firsts = calloc(n ? n : 1, INSPECT_HEAD);
	l->order = calloc(n ? n : 1, sizeof(*l->order));
	if (!lk->firsts || !l->order) {
		l->failed = true;
		lk->n = 0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t off = get_le(l->g.buf + pos, 8);
		uint64_t size = get_le(l->g.buf + pos + 8, 8);

		l->order[i] = (struct want){
			off, off + (size < INSPECT_HEAD ? size : INSPECT_HEAD), i };
		pos += 24 + get_le(l->g.buf + pos + 16, 8);
	}
	qsort(l->order, n, sizeof(*l->order), by_end);
}

/* n bytes at l->pos: every entry whose first bytes end in them is filled
 * (they begin at most INSPECT_HEAD bytes back: in tail, or in p). */
static void fill(struct look *l, const uint8_t *p, size_t n)
{
	struct ccob_look *lk = l->lk;
	uint64_t upto = l->pos + n;

	while (l->next < lk->n && l->order[l->next].end <= upto) {
		const struct want *w = &l->order[l->next++];
		uint8_t *to = lk->firsts + w->idx * INSPECT_HEAD;

		for (uint64_t b = w->start; b < w->end; b++)
			*to++ = b >= l->pos ? p[b - l->pos]
					    : l->tail[INSPECT_HEAD - (l->pos - b)];
	}
	if (n >= INSPECT_HEAD) {
		memcpy(l->tail, p + n - INSPECT_HEAD, INSPECT_HEAD);
	} else if (n) {	/* (an empty piece may come with p NULL) */
		memmove(l->tail, l->tail + n, INSPECT_HEAD - n);
		memcpy(l->tail + INSPECT_HEAD - n, p, n);
	}
	l->pos = upto;
}

/* The sink: gather the header, then fill.  It never fails: the CCOB is
 * decompressed to its end, so that its own errors come first. */
static int look_sink(void *ctx, const void *p, size_t n, struct err *e)
{
	struct look *l = ctx;
	int rc;

	(void)e;
	if (l->decided) {
		fill(l, p, n);
		return 0;
	}
	rc = gather_add(&l->g, p, n);
	if (rc < 0) {
		l->failed = l->decided = true;
	} else if (rc) {
		plan(l, gather_whole(&l->g));
		if (l->decided)
			fill(l, l->g.buf, l->g.have);
	}
	return 0;
}

int inspect_ccob_look(const uint8_t *p, size_t size,
		      const struct ccob_header *h,
		      const struct ccob_limits *lim, struct ccob_look *lk,
		      struct err *e)
{
	struct look l = { .lk = lk };
	size_t used;
	int rc;

	memset(lk, 0, sizeof(*lk));
	gather_init(&l.g, h->raw_size);
	rc = ccob_decompress_stream(p, size, h, lim, look_sink, &l, &used,
				    &lk->hash, e);
	if (rc == 0 && !l.decided) {
		plan(&l, true);		/* an empty bundle */
		if (l.decided)
			fill(&l, l.g.buf, l.g.have);
	}
	lk->head = l.g.buf;	/* the header, kept for the caller */
	lk->have = l.g.have;
	free(l.order);
	if (rc == 0 && l.failed)
		rc = err_nomem(e);
	if (rc < 0)
		inspect_ccob_look_free(lk);
	return rc;
}

void inspect_ccob_look_free(struct ccob_look *lk)
{
	free(lk->head);
	free(lk->firsts);
	memset(lk, 0, sizeof(*lk));
}
