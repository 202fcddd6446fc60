/* ccob_entries: a CCOB's bundle header, and its code objects as they are
 * inflated; see ccob_entries.h. */
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "ccob_entries.h"
#include "fatbin.h"
#include "../core/bytes.h"
#include "ccob_decode.h"

/* The first look into a CCOB inflates this much; more if the bundle
 * header inside is longer. */
enum { PEEK_FIRST = 64 << 10 };

int ccob_bundle_head(const uint8_t *buf, size_t len,
		     const struct ccob_header *h, uint8_t **head, size_t *have,
		     size_t *n, struct err *e)
{
	size_t want = PEEK_FIRST;
	uint64_t header_end, extent;

	*head = NULL;
	*have = 0;
	for (;;) {
		uint8_t *grown;
		size_t got;
		int rc;

		if (want > h->raw_size)
			want = (size_t)h->raw_size;
		grown = realloc(*head, want ? want : 1);
		if (!grown) {
			err_nomem(e);
			goto fail;
		}
		*head = grown;
		if (ccob_peek(buf, len, h, grown, want, &got, e) < 0)
			goto fail;
		if (got < want) {
			err_cut(e, "its stream ends after %zu of the %llu bytes "
				"its header declares", got,
				(unsigned long long)h->raw_size);
			goto fail;
		}
		rc = fatbin_bundle_entries(grown, got, h->raw_size, NULL, n,
					   &header_end, &extent, e);
		if (rc > 0) {
			*have = got;
			return 0;
		}
		if (rc < 0) {
			err_wrap(e, e ? e->code : ERR_OTHER, "the bundle inside");
			goto fail;
		}
		if (want >= h->raw_size) {
			err_cut(e, "the bundle inside: header cut short");
			goto fail;
		}
		want = want > SIZE_MAX / 8 ? SIZE_MAX : want * 8;
	}
fail:
	free(*head);
	*head = NULL;
	return -1;
}

/* Entry i's offset and size in a bundle header (fatbin_bundle_entries
 * checked them); the entry after it in *pos. */
static void entry_at(const uint8_t *hdr, uint64_t *pos, uint64_t *off,
		     uint64_t *size)
{
	*off = get_le(hdr + *pos, 8);
	*size = get_le(hdr + *pos + 8, 8);
	*pos += 24 + get_le(hdr + *pos + 16, 8);
}

bool ccob_entries_in_order(const uint8_t *hdr, size_t n)
{
	uint64_t pos = BUNDLE_MAGIC_LEN + 8, end = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t off, size;

		entry_at(hdr, &pos, &off, &size);
		if (off < end)
			return false;
		end = off + size;
	}
	return true;
}

struct gather {
	const uint8_t *hdr;
	size_t n, next;		/* entries; the one being gathered */
	uint64_t hdr_pos;	/* its row in hdr */
	uint64_t off, size;	/* its place in the stream */
	uint64_t at;		/* stream bytes seen so far */
	uint8_t *buf;
	size_t cap;
	uint8_t *between;	/* where bytes outside every entry go */
	ccob_entry_fn fn;
	void *ctx;
	int stop;		/* what fn returned */
};

/* Make entry g->next the one gathered (its buffer large enough). */
static int start_entry(struct gather *g, struct err *e)
{
	if (g->next == g->n)
		return 0;
	entry_at(g->hdr, &g->hdr_pos, &g->off, &g->size);
	if (g->size > g->cap || !g->buf) {
		uint8_t *b = realloc(g->buf, g->size ? (size_t)g->size : 1);

		if (!b)
			return err_code_set(e, ERR_NOMEM, "out of memory for an entry of %llu "
				       "bytes", (unsigned long long)g->size);
		g->buf = b;
		g->cap = (size_t)g->size;
	}
	return 0;
}

/* The next len bytes of the stream: copied into the entry gathered, each
 * entry handed to fn as its last byte comes (entries of no bytes as the
 * stream reaches them, so a call with len 0 hands those over). */
static int sink(void *ctx, const void *p, size_t len, struct err *e)
{
	struct gather *g = ctx;
	const uint8_t *b = p;
	uint64_t from = g->at;

	g->at += len;
	while (g->next < g->n) {
		uint64_t lo = g->off > from ? g->off : from;
		uint64_t hi = g->off + g->size < g->at ? g->off + g->size : g->at;
		int rc;

		/* (Placed, the bytes are already there.) */
		if (lo < hi && g->buf + (lo - g->off) != b + (lo - from))
			memcpy(g->buf + (lo - g->off), b + (lo - from),
			       (size_t)(hi - lo));
		if (g->at < g->off + g->size)
			return 0;
		if ((rc = g->fn(g->ctx, g->next, g->buf, g->size))) {
			g->stop = rc;
			return -1;
		}
		g->next++;
		if (start_entry(g, e) < 0)
			return -1;
	}
	return 0;
}

enum { BETWEEN = 1 << 20 };

/* Where the stream's next bytes are to be inflated: into the entry being
 * gathered, where they belong (inflated there, never copied), or, before
 * an entry and after the last one, into a buffer of bytes nobody keeps. */
static uint8_t *place(void *ctx, size_t *room, struct err *e)
{
	struct gather *g = ctx;
	uint64_t upto = g->next < g->n ? g->off : UINT64_MAX;

	if (g->next < g->n && g->at >= g->off) {
		*room = (size_t)(g->off + g->size - g->at);
		return g->buf + (g->at - g->off);
	}
	if (!g->between && !(g->between = malloc(BETWEEN))) {
		err_nomem(e);
		return NULL;
	}
	*room = upto - g->at < BETWEEN ? (size_t)(upto - g->at) : BETWEEN;
	return g->between;
}

int ccob_stream_entries(const uint8_t *buf, size_t len,
			const struct ccob_header *h,
			const struct ccob_limits *lim, const uint8_t *hdr,
			size_t n, ccob_entry_fn fn, void *ctx, uint64_t *hash,
			struct err *e)
{
	struct gather g = { .hdr = hdr, .n = n, .hdr_pos = BUNDLE_MAGIC_LEN + 8,
			    .fn = fn, .ctx = ctx };
	size_t used;
	int rc = -1;

	if (start_entry(&g, e) < 0)
		goto out;
	if (sink(&g, NULL, 0, e) < 0)
		goto out;
	/* Without a hash to make, the code objects are inflated where they
	 * are kept: no copy of each byte into them. */
	if (hash ? ccob_decompress_stream(buf, len, h, lim, sink, &g, &used,
					  hash, e) < 0
		 : ccob_decompress_placed(buf, len, h, lim, place, sink, &g,
					  &used, e) < 0)
		goto out;
	rc = 0;
out:
	free(g.between);
	free(g.buf);
	return g.stop ? g.stop : rc;
}
