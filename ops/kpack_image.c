/* kpack_image: a file edited as the splitter edits its bytearray; see
 * kpack_image.h.  The input stays mapped and untouched: what is written
 * over it are patches (a header, a wrapper, a relocation: a few bytes
 * each), applied as the file is written out, the later of two that
 * overlap on top as the bytearray would have it. */
#include <stdlib.h>
#include <string.h>

#include "kpack_image.h"
#include "../core/io_write.h"

void kpack_image_init(struct kpack_image *m, const uint8_t *in, uint64_t n)
{
	memset(m, 0, sizeof(*m));
	m->in = in;
	m->in_len = n;
}

void kpack_image_free(struct kpack_image *m)
{
	free(m->patch);
	free(m->tail);
	memset(m, 0, sizeof(*m));
}

/* The input's bytes that are left, before the tail. */
static uint64_t kept(const struct kpack_image *m)
{
	return m->in_len - m->cut_len;
}

uint64_t kpack_image_len(const struct kpack_image *m)
{
	return kept(m) + m->tail_len;
}

int kpack_image_append(struct kpack_image *m, const void *p, size_t n,
		       struct err *e)
{
	if (n > m->tail_cap - m->tail_len) {
		size_t cap = m->tail_cap ? m->tail_cap : 4096;
		uint8_t *t;

		while (cap - m->tail_len < n) {
			if (cap > SIZE_MAX / 2)
				return err_nomem(e);
			cap *= 2;
		}
		if (!(t = realloc(m->tail, cap)))
			return err_nomem(e);
		m->tail = t;
		m->tail_cap = cap;
	}
	if (p)
		memcpy(m->tail + m->tail_len, p, n);
	else
		memset(m->tail + m->tail_len, 0, n);
	m->tail_len += n;
	return 0;
}

static int add_patch(struct kpack_image *m, uint64_t at, const uint8_t *p,
		     size_t n, struct err *e)
{
	struct kpack_image_patch *x;

	if (m->npatch == m->patch_cap) {
		size_t cap = m->patch_cap ? m->patch_cap * 2 : 64;

		if (cap > SIZE_MAX / sizeof(*x) ||
		    !(x = realloc(m->patch, cap * sizeof(*x))))
			return err_nomem(e);
		m->patch = x;
		m->patch_cap = cap;
	}
	x = &m->patch[m->npatch];
	x->at = at;
	x->seq = m->npatch++;
	x->len = (uint8_t)n;
	memcpy(x->b, p, n);
	return 0;
}

int kpack_image_write(struct kpack_image *m, uint64_t at, const void *p,
		      size_t n, struct err *e)
{
	const uint8_t *b = p;

	if (at > kpack_image_len(m) || n > kpack_image_len(m) - at)
		return err_code_set(e, ERR_MALFORMED, "a write at %llu runs past "
				    "the end of the file",
				    (unsigned long long)at);
	while (n) {
		uint64_t run;

		if (at >= kept(m)) {	/* the tail: the bytes themselves */
			memcpy(m->tail + (at - kept(m)), b, n);
			return 0;
		}
		/* The input's: a patch, where it lies in the input. */
		run = at < m->cut_at ? m->cut_at - at : kept(m) - at;
		if (run > n)
			run = n;
		if (run > KPACK_IMAGE_PATCH)
			run = KPACK_IMAGE_PATCH;
		if (add_patch(m, at < m->cut_at || !m->cut_len ? at :
			      at + m->cut_len, b, (size_t)run, e) < 0)
			return -1;
		at += run;
		b += run;
		n -= (size_t)run;
	}
	return 0;
}

int kpack_image_cut(struct kpack_image *m, uint64_t at, uint64_t n,
		    struct err *e)
{
	if (m->cut_len || at > m->in_len || n > m->in_len - at)
		return err_code_set(e, ERR_MALFORMED, "cannot cut %llu bytes at "
				    "%llu", (unsigned long long)n,
				    (unsigned long long)at);
	m->cut_at = at;
	m->cut_len = n;
	return 0;
}

static int by_place(const void *a, const void *b)
{
	const struct kpack_image_patch *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_seq(const void *a, const void *b)
{
	const struct kpack_image_patch *const *x = a, *const *y = b;

	return (*x)->seq < (*y)->seq ? -1 : (*x)->seq > (*y)->seq;
}

/* The input's [from, to) written to o, the patches (sorted by place) that
 * fall in it applied: what no patch touches straight from the input, each
 * run of overlapping patches through a copy. */
static int out_range(struct kpack_image *m, uint64_t from, uint64_t to,
		     struct io_out *o, struct err *e)
{
	const struct kpack_image_patch **run = NULL;
	uint8_t *win = NULL;
	size_t j = 0, cap = 0;
	int rc = -1;

	while (j < m->npatch && m->patch[j].at + m->patch[j].len <= from)
		j++;
	while (from < to) {
		uint64_t w0, w1;
		size_t k;

		if (j == m->npatch || m->patch[j].at >= to) {
			rc = io_out_write(o, m->in + from, (size_t)(to - from),
					  e);
			goto out;
		}
		w0 = m->patch[j].at > from ? m->patch[j].at : from;
		if (w0 > from && io_out_write(o, m->in + from,
					      (size_t)(w0 - from), e) < 0)
			goto out;
		/* The patches that overlap one another from j on. */
		w1 = m->patch[j].at + m->patch[j].len;
		for (k = j + 1; k < m->npatch && m->patch[k].at < w1; k++)
			if (m->patch[k].at + m->patch[k].len > w1)
				w1 = m->patch[k].at + m->patch[k].len;
		if (w1 > to)
			w1 = to;
		if (k - j > cap) {
			const struct kpack_image_patch **r;
			uint8_t *w;

			cap = k - j;
			if (cap > SIZE_MAX / KPACK_IMAGE_PATCH ||
			    !(r = realloc(run, cap * sizeof(*run)))) {
				err_nomem(e);
				goto out;
			}
			run = r;
			if (!(w = realloc(win, cap * KPACK_IMAGE_PATCH))) {
				err_nomem(e);
				goto out;
			}
			win = w;
		}
		memcpy(win, m->in + w0, (size_t)(w1 - w0));
		for (size_t i = j; i < k; i++)
			run[i - j] = &m->patch[i];
		qsort(run, k - j, sizeof(*run), by_seq);
		for (size_t i = 0; i < k - j; i++) {
			uint64_t a = run[i]->at, b = a + run[i]->len;

			a = a > w0 ? a : w0;
			b = b < w1 ? b : w1;
			if (a < b)
				memcpy(win + (a - w0), run[i]->b + (a - run[i]->at),
				       (size_t)(b - a));
		}
		if (io_out_write(o, win, (size_t)(w1 - w0), e) < 0)
			goto out;
		from = w1;
		j = k;
		while (j < m->npatch && m->patch[j].at + m->patch[j].len <= from)
			j++;
	}
	rc = 0;
out:
	free(run);
	free(win);
	return rc;
}

int kpack_image_out(struct kpack_image *m, struct io_out *o, struct err *e)
{
	qsort(m->patch, m->npatch, sizeof(*m->patch), by_place);
	if (out_range(m, 0, m->cut_len ? m->cut_at : m->in_len, o, e) < 0 ||
	    (m->cut_len && out_range(m, m->cut_at + m->cut_len, m->in_len,
				     o, e) < 0))
		return -1;
	return m->tail_len ? io_out_write(o, m->tail, m->tail_len, e) : 0;
}
