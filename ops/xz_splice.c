/* xz_splice: an xz tar written again, its unchanged blocks copied
 * (xz_splice.h). */
#include <stdlib.h>
#include <string.h>
#include <lzma.h>

#include "xz_splice.h"
#include "layer_codec.h"
#include "../core/io_write.h"

enum {
	CHUNK = 128 * 1024,
	/* The most memory liblzma may take for the original's index:
	 * dpkg-deb's 24 MiB blocks need 16 bytes a block, a 4 GiB tar a
	 * few KiB; past this the original is compressed anew. */
	INDEX_MEMORY = 32 << 20,
};

struct xz_splice {
	const struct io_in *in;
	uint64_t off, len;	/* the original stream in in */
	struct io_out *out;
	int level;
	lzma_check check;
	lzma_index *orig;	/* the original's blocks, or NULL: none copied */
	lzma_index *idx;	/* the blocks written */
	uint64_t size;		/* bytes written */
	uint64_t written;	/* uncompressed bytes given */

	/* Where the walk is in the original: while synced, the bytes given
	 * are the original's from in_pos on; the block holding in_pos is
	 * it's (have: there is one, [b0, b1) its bytes); clean: the bytes
	 * given since b0 are all the original's and none went to the
	 * encoder, so the block can be copied when b1 is reached. */
	bool synced, have, clean;
	uint64_t in_pos, b0, b1;
	lzma_index_iter it;

	/* The encoder's run, when active: its stream's header dropped
	 * (skip), each block's header gathered (head, head_len of
	 * head_need) and its rest passed (pass), its index and footer
	 * dropped (ended: the index's indicator was seen). */
	lzma_stream xz;
	bool xz_init, active, ended;
	size_t skip, head_len, head_need;
	uint64_t pass, run_in, run_out;
	uint8_t head[LZMA_BLOCK_HEADER_SIZE_MAX];

	struct xz_splice_told told;
	uint8_t *buf, *dec;
};

static int put(struct xz_splice *s, const uint8_t *p, size_t n, struct err *e)
{
	s->size += n;
	return io_out_write(s->out, p, n, e);
}

static void block_options_free(lzma_filter *f)
{
	for (size_t i = 0; i < LZMA_FILTERS_MAX && f[i].id != LZMA_VLI_UNKNOWN;
	     i++) {
		free(f[i].options);
		f[i].options = NULL;
	}
}

/* A block header of the encoder's run: its sizes into the index, then
 * the header written. */
static int run_block(struct xz_splice *s, struct err *e)
{
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_block b = { .version = 1, .check = s->check, .filters = filters,
			 .header_size = (uint32_t)s->head_need };
	lzma_ret r = lzma_block_header_decode(&b, NULL, s->head);

	if (r == LZMA_OK)
		block_options_free(filters);
	/* The threaded encoder writes both sizes in every header. */
	if (r != LZMA_OK || b.compressed_size == LZMA_VLI_UNKNOWN ||
	    b.uncompressed_size == LZMA_VLI_UNKNOWN)
		return err_code_set(e, ERR_DECOMPRESS, "xz: the encoder wrote "
				    "a block header without its sizes");
	if (lzma_index_append(s->idx, NULL, lzma_block_unpadded_size(&b),
			      b.uncompressed_size) != LZMA_OK)
		return err_code_set(e, ERR_DECOMPRESS, "xz: an index of too "
				    "many blocks");
	s->run_out += b.uncompressed_size;
	s->told.blocks_made++;
	s->pass = lzma_block_total_size(&b) - s->head_need;
	s->head_len = 0;
	return put(s, s->head, s->head_need, e);
}

/* What the encoder gave: its blocks taken out of its stream. */
static int run_take(struct xz_splice *s, const uint8_t *p, size_t n,
		    struct err *e)
{
	while (n && !s->ended) {
		size_t k;

		if (s->skip) {
			k = n < s->skip ? n : s->skip;
			s->skip -= k;
		} else if (s->pass) {
			k = n < s->pass ? n : (size_t)s->pass;
			if (put(s, p, k, e) < 0)
				return -1;
			s->pass -= k;
		} else if (!s->head_len && !p[0]) {
			s->ended = true;	/* the index: ours is made */
			return 0;
		} else {
			if (!s->head_len)
				s->head_need = lzma_block_header_size_decode(p[0]);
			k = s->head_need - s->head_len;
			if (k > n)
				k = n;
			memcpy(s->head + s->head_len, p, k);
			s->head_len += k;
			if (s->head_len == s->head_need && run_block(s, e) < 0)
				return -1;
		}
		p += k;
		n -= k;
	}
	return 0;
}

static int run_code(struct xz_splice *s, lzma_action a, struct err *e)
{
	lzma_ret r;

	do {
		s->xz.next_out = s->buf;
		s->xz.avail_out = CHUNK;
		r = lzma_code(&s->xz, a);
		if (r != LZMA_OK && r != LZMA_STREAM_END)
			return err_code_set(e, ERR_DECOMPRESS, "xz: cannot "
					    "compress");
		if (run_take(s, s->buf, CHUNK - s->xz.avail_out, e) < 0)
			return -1;
	} while (a == LZMA_FINISH ? r != LZMA_STREAM_END
				  : s->xz.avail_in || !s->xz.avail_out);
	return 0;
}

/* Bytes for the encoder: a run begun when none is. */
static int feed(struct xz_splice *s, const uint8_t *p, size_t n,
		struct err *e)
{
	if (!n)
		return 0;
	if (!s->active) {
		if (!s->xz_init)
			s->xz = (lzma_stream)LZMA_STREAM_INIT;
		if (layer_xz_encoder(&s->xz, s->level, s->check) < 0)
			return err_nomem(e);
		s->xz_init = s->active = true;
		s->ended = false;
		s->skip = LZMA_STREAM_HEADER_SIZE;
		s->head_len = 0;
		s->pass = s->run_in = s->run_out = 0;
	}
	s->run_in += n;
	s->told.bytes_made += n;
	s->xz.next_in = p;
	s->xz.avail_in = n;
	return run_code(s, LZMA_RUN, e);
}

/* The encoder's run ended, its last block written. */
static int run_end(struct xz_splice *s, struct err *e)
{
	if (!s->active)
		return 0;
	s->xz.next_in = NULL;
	s->xz.avail_in = 0;
	if (run_code(s, LZMA_FINISH, e) < 0)
		return -1;
	s->active = false;
	if (!s->ended || s->pass || s->head_len || s->run_out != s->run_in)
		return err_code_set(e, ERR_DECOMPRESS, "xz: the encoder's "
				    "blocks hold %llu bytes, not the %llu "
				    "given", (unsigned long long)s->run_out,
				    (unsigned long long)s->run_in);
	return 0;
}

/* The original's block holding at (forward only, as the walk goes). */
static void locate(struct xz_splice *s, uint64_t at)
{
	s->have = !lzma_index_iter_locate(&s->it, at);
	if (s->have) {
		s->b0 = s->it.block.uncompressed_file_offset;
		s->b1 = s->b0 + s->it.block.uncompressed_size;
	}
}

/* The current block copied, compressed, as it is. */
static int copy_block(struct xz_splice *s, struct err *e)
{
	if (run_end(s, e) < 0)
		return -1;
	if (lzma_index_append(s->idx, NULL, s->it.block.unpadded_size,
			      s->it.block.uncompressed_size) != LZMA_OK)
		return err_code_set(e, ERR_DECOMPRESS, "xz: an index of too "
				    "many blocks");
	s->told.blocks_copied++;
	s->told.bytes_copied += s->it.block.uncompressed_size;
	s->size += s->it.block.total_size;
	return io_out_copy(s->out, s->in, s->off +
			   s->it.block.compressed_file_offset,
			   s->it.block.total_size, e);
}

/* The current block's first want bytes, given as the original's until
 * now, decoded again from it for the encoder: its bytes from want on
 * are not the original's. */
static int redecode(struct xz_splice *s, uint64_t want, struct err *e)
{
	const uint8_t *p = s->in->data + s->off +
			   s->it.block.compressed_file_offset;
	uint64_t total = s->it.block.total_size;
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_block b = { .version = 1, .check = s->check, .filters = filters };
	lzma_stream d = LZMA_STREAM_INIT;
	lzma_ret r = LZMA_OK;
	int rc = -1;

	if (!want)
		return 0;
	b.header_size = lzma_block_header_size_decode(p[0]);
	if (b.header_size > total ||
	    lzma_block_header_decode(&b, NULL, p) != LZMA_OK)
		return err_bad(e, "xz block at %llu: a bad header",
			       (unsigned long long)s->it.block.
			       compressed_file_offset);
	if (lzma_block_decoder(&d, &b) != LZMA_OK) {
		err_nomem(e);
		goto out;
	}
	d.next_in = p + b.header_size;
	d.avail_in = (size_t)(total - b.header_size);
	while (want && r == LZMA_OK) {
		d.next_out = s->dec;
		d.avail_out = want < CHUNK ? (size_t)want : CHUNK;
		r = lzma_code(&d, LZMA_RUN);
		if (r == LZMA_BUF_ERROR)	/* no progress: it is cut */
			r = LZMA_STREAM_END;
		if (r != LZMA_OK && r != LZMA_STREAM_END) {
			err_code_set(e, ERR_DECOMPRESS, "xz: bad data");
			goto out;
		}
		if (feed(s, s->dec, (size_t)(d.next_out - s->dec), e) < 0)
			goto out;
		want -= (uint64_t)(d.next_out - s->dec);
		if (want && r == LZMA_STREAM_END) {
			err_cut(e, "xz block at %llu ends before its index says",
				(unsigned long long)s->it.block.
				compressed_file_offset);
			goto out;
		}
	}
	rc = 0;
out:
	lzma_end(&d);
	block_options_free(filters);
	return rc;
}

/* The original's index, when it is one stream whose blocks can be
 * copied: its check taken for ours. */
static void read_index(struct xz_splice *s)
{
	const uint8_t *p = s->in->data + s->off;
	lzma_stream_flags head, foot;
	uint64_t memlimit = INDEX_MEMORY;
	size_t pos = 0;

	if (s->len < 2 * LZMA_STREAM_HEADER_SIZE ||
	    lzma_stream_header_decode(&head, p) != LZMA_OK ||
	    lzma_stream_footer_decode(&foot, p + s->len -
				      LZMA_STREAM_HEADER_SIZE) != LZMA_OK ||
	    lzma_stream_flags_compare(&head, &foot) != LZMA_OK ||
	    !lzma_check_is_supported(head.check) ||
	    foot.backward_size > s->len - 2 * LZMA_STREAM_HEADER_SIZE)
		return;
	if (lzma_index_buffer_decode(&s->orig, &memlimit, NULL, p + s->len -
				     LZMA_STREAM_HEADER_SIZE -
				     foot.backward_size, &pos,
				     (size_t)foot.backward_size) != LZMA_OK) {
		s->orig = NULL;
		return;
	}
	/* One stream, no padding: its blocks lie where the index says. */
	if (pos != foot.backward_size ||
	    lzma_index_stream_flags(s->orig, &foot) != LZMA_OK ||
	    lzma_index_file_size(s->orig) != s->len) {
		lzma_index_end(s->orig, NULL);
		s->orig = NULL;
		return;
	}
	s->check = head.check;
	lzma_index_iter_init(&s->it, s->orig);
	locate(s, 0);
	s->synced = true;
	s->clean = s->have;
}

int xz_splice_open(struct xz_splice **sp, const struct io_in *in, uint64_t off,
		   uint64_t len, int level, struct io_out *out, struct err *e)
{
	struct xz_splice *s = calloc(1, sizeof(*s));
	lzma_stream_flags f = { .version = 0 };
	uint8_t head[LZMA_STREAM_HEADER_SIZE];

	*sp = s;
	if (!s || !(s->buf = malloc(CHUNK)) || !(s->dec = malloc(CHUNK)) ||
	    !(s->idx = lzma_index_init(NULL)))
		return err_nomem(e);
	s->in = in;
	s->off = off;
	s->len = len;
	s->out = out;
	s->level = level;
	s->check = LZMA_CHECK_CRC64;	/* dpkg-deb's */
	read_index(s);
	f.check = s->check;
	if (lzma_stream_header_encode(&f, head) != LZMA_OK)
		return err_code_set(e, ERR_DECOMPRESS, "xz: cannot compress");
	return put(s, head, sizeof(head), e);
}

int xz_splice_write(void *sp, const uint8_t *buf, size_t n, struct err *e)
{
	struct xz_splice *s = sp;

	s->written += n;
	if (!s->synced)
		return feed(s, buf, n, e);
	while (n) {
		size_t k = s->have && s->b1 - s->in_pos < n ?
			   (size_t)(s->b1 - s->in_pos) : n;

		if (!s->clean && feed(s, buf, k, e) < 0)
			return -1;
		buf += k;
		n -= k;
		s->in_pos += k;
		if (s->have && s->in_pos == s->b1) {
			if (s->clean && copy_block(s, e) < 0)
				return -1;
			locate(s, s->in_pos);
			s->clean = s->have;
		}
	}
	return 0;
}

int xz_splice_span(void *sp, uint64_t at, bool same, struct err *e)
{
	struct xz_splice *s = sp;

	if (!s->orig)
		return 0;
	if (!s->synced) {
		if (same) {
			s->synced = true;
			s->in_pos = at;
			locate(s, at);
			s->clean = s->have && at == s->b0;
		}
		return 0;
	}
	if (at != s->in_pos)
		return err_code_set(e, ERR_DECOMPRESS, "xz: the tar's member "
				    "at %llu was written at %llu",
				    (unsigned long long)at,
				    (unsigned long long)s->in_pos);
	if (same)
		return 0;
	/* What was given of this block goes to the encoder after all. */
	if (s->clean && redecode(s, at - s->b0, e) < 0)
		return -1;
	s->synced = s->clean = false;
	return 0;
}

int xz_splice_finish(struct xz_splice *s, uint64_t *size, struct err *e)
{
	lzma_stream_flags f = { .version = 0, .check = s->check };
	uint8_t foot[LZMA_STREAM_HEADER_SIZE], *index;
	size_t pos = 0;
	int rc;

	/* A stream that ended inside a block it gave unchanged. */
	if (s->synced && s->clean && s->in_pos > s->b0 &&
	    redecode(s, s->in_pos - s->b0, e) < 0)
		return -1;
	if (run_end(s, e) < 0)
		return -1;
	if (lzma_index_uncompressed_size(s->idx) != s->written)
		return err_code_set(e, ERR_DECOMPRESS, "xz: the blocks written "
				    "hold %llu bytes, not the %llu given",
				    (unsigned long long)
				    lzma_index_uncompressed_size(s->idx),
				    (unsigned long long)s->written);
	f.backward_size = lzma_index_size(s->idx);
	if (!(index = malloc((size_t)f.backward_size)))
		return err_nomem(e);
	if (lzma_index_buffer_encode(s->idx, index, &pos,
				     (size_t)f.backward_size) != LZMA_OK ||
	    lzma_stream_footer_encode(&f, foot) != LZMA_OK) {
		free(index);
		return err_code_set(e, ERR_DECOMPRESS, "xz: cannot write the "
				    "index");
	}
	rc = put(s, index, pos, e) < 0 || put(s, foot, sizeof(foot), e) < 0 ?
	     -1 : 0;
	free(index);
	*size = s->size;
	return rc;
}

void xz_splice_told(const struct xz_splice *s, struct xz_splice_told *t)
{
	*t = s->told;
}

void xz_splice_close(struct xz_splice *s)
{
	if (!s)
		return;
	if (s->xz_init)
		lzma_end(&s->xz);
	if (s->orig)
		lzma_index_end(s->orig, NULL);
	if (s->idx)
		lzma_index_end(s->idx, NULL);
	free(s->buf);
	free(s->dec);
	free(s);
}
