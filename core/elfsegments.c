/* elfsegments: program headers, and llvm-objcopy's segment layout; see
 * elfsegments.h.  Written here for the same reason as elfcopy: the bytes
 * must be llvm-objcopy's, and no library lays files out its way. */
#include <elf.h>
#include <stdlib.h>

#include "elfsegments.h"
#include "bytes.h"

/* Past this an offset or alignment is hostile, not a file. */
#define SEGMENT_LIMIT ((uint64_t)1 << 48)

/* llvm-objcopy's order of segments: by offset, then the larger alignment
 * first (a parent must not be less aligned than its child), then by
 * index. */
static bool before(const struct elfsegment *a, const struct elfsegment *b)
{
	if (a->offset != b->offset)
		return a->offset < b->offset;
	if (a->align != b->align)
		return a->align > b->align;
	return a->index < b->index;
}

static int by_order(const void *x, const void *y)
{
	const struct elfsegment *a = *(const struct elfsegment *const *)x;
	const struct elfsegment *b = *(const struct elfsegment *const *)y;

	return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

/* The segment a child hangs from: the first, in that order, of the
 * program headers whose bytes its start lies in. */
static void find_parents(struct elfsegments *g, size_t total)
{
	for (size_t c = 0; c < total; c++) {
		struct elfsegment *child = &g->v[c];

		child->parent = -1;
		for (size_t p = 0; p < g->n; p++) {
			const struct elfsegment *par = &g->v[p];

			if (p == c || par->offset > child->offset ||
			    par->offset + par->filesz <= child->offset ||
			    !before(par, child))
				continue;
			if (child->parent < 0 || before(par, &g->v[child->parent]))
				child->parent = (long)p;
		}
	}
}

static int read_headers(const struct elfscan *s, const uint8_t *buf,
			size_t len, struct elfsegments *g, struct err *e)
{
	bool be = s->big_endian;
	size_t want = s->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

	g->phoff = s->is64 ? get_endian(buf + 32, 8, be)
			   : get_endian(buf + 28, 4, be);
	g->phentsize = (size_t)get_endian(buf + (s->is64 ? 54 : 42), 2, be);
	if (s->phnum >= PN_XNUM || g->phentsize < want || g->phoff > len ||
	    s->phnum * g->phentsize > len - g->phoff)
		return err_set(e, "program header table runs past the end of "
			       "the file");
	g->n = s->phnum;
	g->v = calloc(g->n + 2, sizeof(*g->v));
	if (!g->v)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < g->n; i++) {
		const uint8_t *p = buf + g->phoff + i * g->phentsize;
		struct elfsegment *seg = &g->v[i];

		seg->type = (uint32_t)get_endian(p, 4, be);
		if (s->is64) {
			seg->offset = get_endian(p + 8, 8, be);
			seg->vaddr = get_endian(p + 16, 8, be);
			seg->filesz = get_endian(p + 32, 8, be);
			seg->memsz = get_endian(p + 40, 8, be);
			seg->align = get_endian(p + 48, 8, be);
		} else {
			seg->offset = get_endian(p + 4, 4, be);
			seg->vaddr = get_endian(p + 8, 4, be);
			seg->filesz = get_endian(p + 16, 4, be);
			seg->memsz = get_endian(p + 20, 4, be);
			seg->align = get_endian(p + 28, 4, be);
		}
		seg->index = (uint32_t)i;
		if (seg->offset > len || seg->filesz > len - seg->offset)
			return err_set(e, "program header %zu (offset %llu, "
				       "%llu bytes) runs past the end of the "
				       "file", i, (unsigned long long)seg->offset,
				       (unsigned long long)seg->filesz);
		if (seg->align > SEGMENT_LIMIT)
			return err_set(e, "program header %zu has an alignment "
				       "too large to lay out", i);
	}
	/* The ELF header and the program header table, as llvm-objcopy
	 * tracks them: segments of their own, placed like the others. */
	g->v[g->n] = (struct elfsegment){ .index = (uint32_t)g->n };
	g->v[g->n + 1] = (struct elfsegment){
		.type = PT_PHDR, .offset = g->phoff, .vaddr = g->phoff,
		.filesz = s->phnum * g->phentsize, .memsz = s->phnum * g->phentsize,
		.align = s->is64 ? 8 : 4, .index = (uint32_t)g->n + 1,
	};
	return 0;
}

int elfsegments_read(const struct elfscan *s, const uint8_t *buf, size_t len,
		     struct elfsegments *g, struct err *e)
{
	size_t total;
	struct elfsegment **order = NULL;
	uint64_t at = 0;
	int rc = -1;

	*g = (struct elfsegments){ 0 };
	if (read_headers(s, buf, len, g, e) < 0)
		goto out;
	total = g->n + 2;
	find_parents(g, total);
	if (!(order = malloc(total * sizeof(*order)))) {
		err_set(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < total; i++)
		order[i] = &g->v[i];
	qsort(order, total, sizeof(*order), by_order);
	/* llvm-objcopy lays each segment without a parent at the first
	 * offset past the ones before that agrees with its address modulo its
	 * alignment, and a child where it sits in its parent; a file the
	 * linker laid out tightly keeps every offset. */
	for (size_t i = 0; i < total; i++) {
		const struct elfsegment *seg = order[i];
		uint64_t align = seg->align ? seg->align : 1, placed;

		if (seg->parent >= 0) {
			placed = seg->offset;	/* its parent did not move */
		} else {
			uint64_t skew = seg->vaddr % align;

			placed = (at + align - 1 - skew) / align * align + skew;
		}
		if (placed != seg->offset) {
			if (seg->index < g->n)
				err_set(e, "llvm-objcopy would move segment %u "
					"from offset %llu to %llu, which this "
					"rewrite does not do", seg->index,
					(unsigned long long)seg->offset,
					(unsigned long long)placed);
			else
				err_set(e, "llvm-objcopy would move the %s to "
					"offset %llu, which this rewrite does "
					"not do", seg->index == g->n ?
					"ELF header" : "program header table",
					(unsigned long long)placed);
			goto out;
		}
		if (placed + seg->filesz > at)
			at = placed + seg->filesz;
	}
	g->end = at;
	rc = 0;
out:
	free(order);
	if (rc < 0)
		elfsegments_free(g);
	return rc;
}

void elfsegments_free(struct elfsegments *g)
{
	free(g->v);
	*g = (struct elfsegments){ 0 };
}

bool elfsegments_hold(const struct elfsegments *g,
		      const struct elfscan_section *sec)
{
	/* An empty section counts as one byte, so that one on the boundary
	 * of two segments belongs to the second. */
	uint64_t size = sec->size ? sec->size : 1;

	for (size_t i = 0; i < g->n; i++) {
		const struct elfsegment *seg = &g->v[i];

		if (sec->type == SHT_NOBITS) {
			if (!(sec->flags & SHF_ALLOC) ||
			    !(sec->flags & SHF_TLS) != (seg->type != PT_TLS))
				continue;
			if (seg->vaddr <= sec->addr &&
			    sec->addr - seg->vaddr <= seg->memsz &&
			    size <= seg->memsz - (sec->addr - seg->vaddr))
				return true;
			continue;
		}
		if (seg->offset <= sec->offset &&
		    sec->offset - seg->offset <= seg->filesz &&
		    size <= seg->filesz - (sec->offset - seg->offset))
			return true;
	}
	return false;
}

static int by_start(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

int elfsegments_each_range(const struct elfsegments *g, uint64_t from,
			   int (*each)(void *ctx, uint64_t offset,
				       uint64_t size, struct err *e),
			   void *ctx, struct err *e)
{
	uint64_t (*r)[2] = malloc((g->n + 1) * sizeof(*r));
	size_t n = 0;
	int rc = 0;

	if (!r)
		return err_set(e, "out of memory");
	for (size_t i = 0; i <= g->n; i++) {
		const struct elfsegment *seg = &g->v[i == g->n ? g->n + 1 : i];
		uint64_t start = seg->offset, end = seg->offset + seg->filesz;

		if (start < from)
			start = from;
		if (start < end) {
			r[n][0] = start;
			r[n++][1] = end;
		}
	}
	qsort(r, n, sizeof(*r), by_start);
	for (size_t i = 0; i < n && !rc; ) {
		uint64_t start = r[i][0], end = r[i][1];

		for (i++; i < n && r[i][0] <= end; i++)
			if (r[i][1] > end)
				end = r[i][1];
		rc = each(ctx, start, end - start, e);
	}
	free(r);
	return rc;
}
