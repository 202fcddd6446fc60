/* layer: a tar stream walked and written again (layer.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layer.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/io_write.h"

/* The headers read before a member (pax 'x' and 'g', GNU 'L' and 'K'),
 * kept as they were to be written before it. */
struct meta {
	uint8_t *buf;
	size_t len, cap;
	/* The last 'x' header's block and records in buf, when one came:
	 * its size record is what a replaced file changes. */
	bool pax;
	size_t pax_at, pax_len;
	struct tar_pax over;
	char *longname, *longlink;
	size_t longname_len, longlink_len;
};

static int meta_reserve(struct meta *m, size_t n, struct err *e)
{
	size_t cap = m->cap ? m->cap : 4096;
	uint8_t *nb;

	if (n <= m->cap - m->len)
		return 0;
	while (cap - m->len < n)
		cap *= 2;
	if (!(nb = realloc(m->buf, cap)))
		return err_nomem(e);
	m->buf = nb;
	m->cap = cap;
	return 0;
}

static void meta_reset(struct meta *m)
{
	m->len = 0;
	m->pax = false;
	memset(&m->over, 0, sizeof(m->over));
	free(m->longname);
	free(m->longlink);
	m->longname = m->longlink = NULL;
	m->longname_len = m->longlink_len = 0;
}

static int get(struct layer_walk *w, uint8_t *buf, size_t n, size_t *got,
	       struct err *e)
{
	if (w->read(w->read_ctx, buf, n, got, e) < 0)
		return -1;
	w->pos += *got;
	return 0;
}

static int get_all(struct layer_walk *w, uint8_t *buf, size_t n,
		   const char *what, struct err *e)
{
	size_t got;

	if (get(w, buf, n, &got, e) < 0)
		return -1;
	if (got < n)
		return err_cut(e, "tar stream ends inside %s", what);
	return 0;
}

static int put(struct layer_walk *w, const uint8_t *p, size_t n, struct err *e)
{
	if (!w->write || !n)
		return 0;
	return w->write(w->write_ctx, p, n, e);
}

/* The writer told what comes from at on (layer_walk.span). */
static int span(struct layer_walk *w, uint64_t at, bool same, struct err *e)
{
	if (!w->write || !w->span)
		return 0;
	return w->span(w->write_ctx, at, same, e);
}

/* n bytes of the stream passed through (the data blocks of a member). */
static int pass(struct layer_walk *w, uint64_t n, uint8_t *chunk, struct err *e)
{
	while (n) {
		size_t want = n < LAYER_PEEK ? (size_t)n : LAYER_PEEK;

		if (get_all(w, chunk, want, "a member's data", e) < 0 ||
		    put(w, chunk, want, e) < 0)
			return -1;
		n -= want;
	}
	return 0;
}

/* The padding after a member's data, as far as the stream has it: a
 * stream that ends right after the last member's data, its padding and
 * end blocks missing, is read as it is (umoci insert writes such layers,
 * and every reader takes them).  *got the bytes there were. */
static int get_padding(struct layer_walk *w, uint64_t size, uint8_t *pad,
		       size_t *got, struct err *e)
{
	size_t want = (size_t)(tar_padded(size) - size);

	*got = 0;
	if (!want)
		return 0;
	if (get(w, pad, want, got, e) < 0)
		return -1;
	if (*got && *got < want)
		return err_cut(e, "tar stream ends inside a member's padding");
	return 0;
}

/* A member of size bytes passed through, its first done bytes of data
 * already, then its padding. */
static int pass_member(struct layer_walk *w, uint64_t size, uint64_t done,
		       uint8_t *chunk, struct err *e)
{
	uint8_t pad[TAR_BLOCK];
	size_t got;

	if (pass(w, size - done, chunk, e) < 0 ||
	    get_padding(w, size, pad, &got, e) < 0)
		return -1;
	return put(w, pad, got, e);
}

/* A pax or GNU header's data read into the meta (with its header). */
static int read_meta(struct layer_walk *w, struct meta *m, const uint8_t *hdr,
		     const struct tar_header *h, const uint8_t **data,
		     struct err *e)
{
	bool pax = h->kind == TAR_PAX || h->kind == TAR_PAX_GLOBAL;
	size_t at;

	if (h->size > TAR_META_MAX)
		return err_bad(e, "tar %s of %llu bytes (at most %d)",
			       pax ? "pax header" : "GNU long name",
			       (unsigned long long)h->size, TAR_META_MAX);
	at = m->len;
	if (meta_reserve(m, TAR_BLOCK + (size_t)tar_padded(h->size), e) < 0)
		return -1;
	memcpy(m->buf + m->len, hdr, TAR_BLOCK);
	m->len += TAR_BLOCK;
	if (get_all(w, m->buf + m->len, (size_t)tar_padded(h->size),
		    pax ? "a pax header" : "a GNU long name", e) < 0)
		return -1;
	m->len += (size_t)tar_padded(h->size);
	*data = m->buf + at + TAR_BLOCK;
	if (h->kind == TAR_PAX) {
		m->pax = true;
		m->pax_at = at;
		m->pax_len = (size_t)h->size;
	}
	return 0;
}

static int take_name(char **dst, size_t *dst_len, const uint8_t *p,
		     size_t n, struct err *e)
{
	n = strnlen((const char *)p, n);
	free(*dst);
	if (!(*dst = malloc(n + 1)))
		return err_nomem(e);
	memcpy(*dst, p, n);
	(*dst)[n] = '\0';
	*dst_len = n;
	return 0;
}

/* The meta headers and the member's header written, with the member's
 * size set to size when it changed. */
static int put_headers(struct layer_walk *w, struct meta *m, uint8_t *hdr,
		       bool resize, uint64_t size, struct err *e)
{
	if (resize && m->pax && m->over.has_size) {
		static const uint8_t zero[TAR_BLOCK];
		size_t len = m->pax_len, after, n;
		uint8_t *recs = malloc(len + 48), blk[TAR_BLOCK];
		int bad;

		if (!recs)
			return err_nomem(e);
		n = tar_pax_set_size(m->buf + m->pax_at + TAR_BLOCK, len, size,
				     recs, len + 48);
		memcpy(blk, m->buf + m->pax_at, TAR_BLOCK);
		tar_header_set_size(blk, n);
		bad = put(w, m->buf, m->pax_at, e) < 0 ||
		      put(w, blk, TAR_BLOCK, e) < 0 ||
		      put(w, recs, n, e) < 0 ||
		      put(w, zero, (size_t)(tar_padded(n) - n), e) < 0;
		free(recs);
		after = m->pax_at + TAR_BLOCK + (size_t)tar_padded(len);
		if (bad || put(w, m->buf + after, m->len - after, e) < 0)
			return -1;
	} else if (put(w, m->buf, m->len, e) < 0) {
		return -1;
	}
	if (resize)
		tar_header_set_size(hdr, size);
	return put(w, hdr, TAR_BLOCK, e);
}

/* The file's data held whole: in memory under the spill bound, else in a
 * scratch file; head (the first peeked bytes) came already. */
static int hold(struct layer_walk *w, uint64_t size, const uint8_t *head,
		size_t head_len, uint8_t **mem, struct io_out *spill,
		struct io_in *view, struct err *e)
{
	uint64_t bound = w->spill ? w->spill : LAYER_SPILL_DEFAULT;
	uint64_t left = size - head_len;

	memset(view, 0, sizeof(*view));
	view->fd = -1;
	if (size <= bound && size <= SIZE_MAX) {
		if (!(*mem = malloc(size ? (size_t)size : 1)))
			return err_nomem(e);
		memcpy(*mem, head, head_len);
		if (get_all(w, *mem + head_len, (size_t)left,
			    "a member's data", e) < 0)
			return -1;
		view->data = *mem;
		view->len = (size_t)size;
		return 0;
	}
	if (io_scratch_open(spill, e) < 0 ||
	    io_out_write(spill, head, head_len, e) < 0)
		return -1;
	while (left) {
		uint8_t chunk[LAYER_PEEK];
		size_t want = left < sizeof(chunk) ? (size_t)left : sizeof(chunk);

		if (get_all(w, chunk, want, "a member's data", e) < 0 ||
		    io_out_write(spill, chunk, want, e) < 0)
			return -1;
		left -= want;
	}
	return io_scratch_view(spill, view, e);
}

/* A file's bytes written, a run at a time: a view of a scratch file (a
 * spilled file, a pruned one) leaves our memory behind the writer. */
static int put_view(struct layer_walk *w, const struct io_in *view,
		    struct err *e)
{
	enum { RUN = 8 << 20 };

	for (size_t off = 0; off < view->len; off += RUN) {
		size_t n = view->len - off < RUN ? view->len - off : RUN;

		if (put(w, view->data + off, n, e) < 0)
			return -1;
		io_in_hint(view, off, off + n, IO_IN_DONE);
	}
	return 0;
}

static int put_padding(struct layer_walk *w, uint64_t size, struct err *e)
{
	static const uint8_t zero[TAR_BLOCK];

	return put(w, zero, (size_t)(tar_padded(size) - size), e);
}

/* A regular file the caller may want: peeked, held, offered. */
static int file(struct layer_walk *w, struct meta *m, uint8_t *hdr,
		const struct layer_member *lm, uint8_t *chunk, struct err *e)
{
	size_t head = lm->size < LAYER_PEEK ? (size_t)lm->size : LAYER_PEEK;
	struct io_out spill = { .fd = -1 };
	struct io_in data, repl = { .fd = -1 };
	uint8_t *mem = NULL, pad[TAR_BLOCK];
	size_t padding;
	int rc = -1, r;

	if (get_all(w, chunk, head, "a member's data", e) < 0)
		return -1;
	if (!w->wants || !w->wants(w->ctx, chunk, head)) {
		if (span(w, lm->at, true, e) < 0 ||
		    put_headers(w, m, hdr, false, 0, e) < 0 ||
		    put(w, chunk, head, e) < 0)
			return -1;
		return pass_member(w, lm->size, head, chunk, e);
	}
	if (hold(w, lm->size, chunk, head, &mem, &spill, &data, e) < 0)
		goto out;
	if (get_padding(w, lm->size, pad, &padding, e) < 0)
		goto out;
	if ((r = w->member(w->ctx, lm, &data, &repl, e)) < 0)
		goto out;
	w->before += lm->size;
	if (span(w, lm->at, r == 0, e) < 0)
		goto out;
	if (r == 0) {
		w->after += lm->size;
		rc = put_headers(w, m, hdr, false, 0, e) < 0 ||
		     put_view(w, &data, e) < 0 ||
		     put(w, pad, padding, e) < 0 ? -1 : 0;
		goto out;
	}
	w->replaced++;
	w->after += repl.len;
	/* What the caller read of the file (its plan, its sum) let go. */
	io_in_hint(&data, 0, data.len, IO_IN_DONE);
	rc = put_headers(w, m, hdr, true, repl.len, e) < 0 ||
	     put_view(w, &repl, e) < 0 ||
	     put_padding(w, repl.len, e) < 0 ? -1 : 0;
out:
	if (spill.fd >= 0)
		io_out_discard(&spill);
	free(mem);
	return rc;
}

/* The member whose header is hdr (h), its meta read before it. */
static int member(struct layer_walk *w, struct meta *m, uint8_t *hdr,
		  const struct tar_header *h, uint64_t at, uint8_t *chunk,
		  struct err *e)
{
	struct layer_member lm = { .name = h->name, .h = h, .size = h->size,
				   .index = w->members, .at = at,
				   .data_at = w->pos };
	const char *link = h->linkname;
	size_t link_len = strlen(h->linkname);

	lm.name_len = strlen(h->name);
	if (m->longname) {
		lm.name = m->longname;
		lm.name_len = m->longname_len;
	}
	if (m->longlink) {
		link = m->longlink;
		link_len = m->longlink_len;
	}
	if (m->over.path) {
		lm.name = m->over.path;
		lm.name_len = m->over.path_len;
	}
	if (m->over.linkpath) {
		link = m->over.linkpath;
		link_len = m->over.linkpath_len;
	}
	if (m->over.has_size)
		lm.size = m->over.size;
	w->members++;
	if (tar_name_escapes(lm.name, lm.name_len))
		return err_bad(e, "tar member '%.*s' is outside the root",
			       (int)(lm.name_len > 200 ? 200 : lm.name_len),
			       lm.name);
	if (h->kind == TAR_HARDLINK && tar_name_escapes(link, link_len))
		return err_bad(e, "tar member '%.*s' links outside the root",
			       (int)(lm.name_len > 200 ? 200 : lm.name_len),
			       lm.name);
	if (h->kind == TAR_FILE) {
		w->files++;
		w->file_bytes += lm.size;
	}
	lm.link = link;
	lm.link_len = link_len;
	if (w->entry && w->entry(w->entry_ctx, &lm, e) < 0)
		return -1;
	if (h->kind == TAR_FILE && lm.size && w->member)
		return file(w, m, hdr, &lm, chunk, e);
	if (span(w, at, true, e) < 0 ||
	    put_headers(w, m, hdr, false, 0, e) < 0)
		return -1;
	return pass_member(w, lm.size, 0, chunk, e);
}

/* The end: its zero blocks, and whatever follows them, as they are. */
static int rest(struct layer_walk *w, const uint8_t *zero, uint8_t *chunk,
		struct err *e)
{
	size_t got;

	if (span(w, w->pos - TAR_BLOCK, true, e) < 0 ||
	    put(w, zero, TAR_BLOCK, e) < 0)
		return -1;
	do {
		if (get(w, chunk, LAYER_PEEK, &got, e) < 0 ||
		    put(w, chunk, got, e) < 0)
			return -1;
	} while (got == LAYER_PEEK);
	return 0;
}

int layer_walk(struct layer_walk *w, struct err *e)
{
	struct meta m = { 0 };
	struct tar_header h;
	uint8_t hdr[TAR_BLOCK];
	uint8_t *chunk = malloc(LAYER_PEEK);
	uint64_t at = 0;
	int rc = -1;

	if (!chunk)
		return err_nomem(e);
	for (;;) {
		const uint8_t *data;
		size_t got;

		if (!m.len) {
			at = w->pos;	/* a member's first header */
			if (w->starts && w->starts(w->ctx, at, e) < 0)
				goto out;
		}
		if (get(w, hdr, TAR_BLOCK, &got, e) < 0)
			goto out;
		if (got == 0 && !m.len) {
			rc = 0;	/* an end without its zero blocks */
			break;
		}
		if (got < TAR_BLOCK) {
			err_cut(e, "tar stream ends inside a header");
			goto out;
		}
		if (tar_block_zero(hdr)) {
			rc = m.len ? err_cut(e, "tar stream ends after a "
					     "header of no member") :
				     rest(w, hdr, chunk, e);
			break;
		}
		if (tar_header_parse(hdr, &h, e) < 0)
			goto out;
		switch (h.kind) {
		case TAR_PAX:
			if (read_meta(w, &m, hdr, &h, &data, e) < 0 ||
			    tar_pax_parse(data, (size_t)h.size, &m.over, e) < 0)
				goto out;
			continue;
		case TAR_PAX_GLOBAL:
			if (read_meta(w, &m, hdr, &h, &data, e) < 0)
				goto out;
			continue;
		case TAR_GNU_LONGNAME:
			if (read_meta(w, &m, hdr, &h, &data, e) < 0 ||
			    take_name(&m.longname, &m.longname_len, data,
				      (size_t)h.size, e) < 0)
				goto out;
			continue;
		case TAR_GNU_LONGLINK:
			if (read_meta(w, &m, hdr, &h, &data, e) < 0 ||
			    take_name(&m.longlink, &m.longlink_len, data,
				      (size_t)h.size, e) < 0)
				goto out;
			continue;
		case TAR_FILE:
		case TAR_HARDLINK:
		case TAR_SYMLINK:
		case TAR_DEVICE:
		case TAR_DIRECTORY:
		case TAR_FIFO:
		case TAR_OTHER:
			break;
		}
		if (member(w, &m, hdr, &h, at, chunk, e) < 0)
			goto out;
		meta_reset(&m);
	}
out:
	meta_reset(&m);
	free(m.buf);
	free(chunk);
	return rc;
}

int layer_memory_read(void *ctx, uint8_t *buf, size_t n, size_t *got,
		      struct err *e)
{
	struct layer_memory *m = ctx;

	(void)e;
	*got = m->len - m->pos < n ? m->len - m->pos : n;
	if (*got)
		memcpy(buf, m->p + m->pos, *got);
	m->pos += *got;
	return 0;
}

int layer_file_read(void *ctx, uint8_t *buf, size_t n, size_t *got,
		    struct err *e)
{
	struct layer_file *f = ctx;
	ssize_t r;

	if (n > f->len - f->pos)
		n = (size_t)(f->len - f->pos);
	*got = 0;
	while (*got < n) {
		r = pread(f->fd, buf + *got, n - *got,
			  (off_t)(f->pos + *got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_sys(e, "temporary file", errno);
		if (!r)
			return err_code_set(e, ERR_TRUNCATED, "temporary file "
					    "cut short at %llu bytes",
					    (unsigned long long)(f->pos + *got));
		*got += (size_t)r;
	}
	f->pos += *got;
	return 0;
}

bool layer_every_file(void *ctx, const uint8_t *head, size_t len)
{
	(void)ctx;
	(void)head;
	(void)len;
	return true;
}
