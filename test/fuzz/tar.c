/* Fuzz target: tar streams (formats/tar.c) walked and written again by
 * ops/layer.c, every file replaced by its first half: what is written must
 * walk again to the same members, the files at their new sizes; and the
 * input read as pax records alone.
 * libFuzzer: -max_len=8192
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/tar.h"
#include "../../ops/layer.h"

struct mem {
	const uint8_t *p;
	size_t len, pos;
	uint8_t *out;
	size_t out_len, out_cap;
};

static int mem_read(void *ctx, uint8_t *buf, size_t n, size_t *got,
		    struct err *e)
{
	struct mem *m = ctx;

	(void)e;
	*got = m->len - m->pos < n ? m->len - m->pos : n;
	if (*got)	/* an empty input's bytes may be NULL */
		memcpy(buf, m->p + m->pos, *got);
	m->pos += *got;
	return 0;
}

static int mem_write(void *ctx, const uint8_t *buf, size_t n, struct err *e)
{
	struct mem *m = ctx;

	if (n > m->out_cap - m->out_len) {
		size_t cap = (m->out_len + n) * 2;
		uint8_t *nb = realloc(m->out, cap);

		if (!nb)
			return err_nomem(e);
		m->out = nb;
		m->out_cap = cap;
	}
	memcpy(m->out + m->out_len, buf, n);
	m->out_len += n;
	return 0;
}

static bool wants(void *ctx, const uint8_t *head, size_t len)
{
	(void)ctx;
	fuzz_touch(head, len);
	return len && head[0] & 1;
}

static int halve(void *ctx, const struct layer_member *m,
		 const struct io_in *data, struct io_in *repl, struct err *e)
{
	(void)ctx;
	(void)e;
	FUZZ_CHECK(data->len == m->size);
	fuzz_touch(m->name, m->name_len);
	fuzz_touch(data->data, data->len);
	repl->data = data->data;
	repl->len = data->len / 2;
	return 1;
}

static int count(void *ctx, const struct layer_member *m,
		 const struct io_in *data, struct io_in *repl, struct err *e)
{
	(void)m;
	(void)data;
	(void)repl;
	(void)e;
	++*(uint64_t *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem in = { .p = data, .len = size };
	struct layer_walk w = {
		.read = mem_read, .read_ctx = &in, .write = mem_write,
		.write_ctx = &in, .wants = wants, .member = halve,
		.spill = 1024,
	};
	struct tar_pax pax;
	struct err e;

	if (tar_pax_parse(data, size, &pax, &e) == 0) {
		fuzz_touch(pax.path, pax.path_len);
		fuzz_touch(pax.linkpath, pax.linkpath_len);
	}
	if (layer_walk(&w, &e) == 0) {
		struct mem again = { .p = in.out, .len = in.out_len };
		uint64_t seen = 0;
		struct layer_walk w2 = {
			.read = mem_read, .read_ctx = &again,
			.wants = wants, .member = count, .ctx = &seen,
		};

		FUZZ_CHECK(layer_walk(&w2, &e) == 0);
		FUZZ_CHECK(w2.members == w.members);
		FUZZ_CHECK(seen <= w.replaced + (w.members - w.replaced));
	}
	free(in.out);
	return 0;
}
