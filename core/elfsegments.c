/* elfsegments: program headers, and llvm-objcopy's segment layout; see
 * elfsegments.h.  Written here for the same reason as elfcopy: the bytes
 * must be llvm-objcopy's, and no library lays files out its way. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elfsegments.h"
#include "bytes.h"
#include "io_write.h"

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
	size_t want = s->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr), phnum;

	g->phoff = s->is64 ? get_endian(buf + 32, 8, be)
			   : get_endian(buf + 28, 4, be);
	g->phentsize = (size_t)get_endian(buf + (s->is64 ? 54 : 42), 2, be);
	/* The count the header gives: libelf shrinks it to what fits. */
	phnum = (size_t)get_endian(buf + (s->is64 ? 56 : 44), 2, be);
	if (phnum >= PN_XNUM || g->phentsize < want || g->phoff > len ||
	    phnum * g->phentsize > len - g->phoff)
		return err_cut(e, "program header table runs past the end of "
			       "the file");
	if (g->phoff < (s->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return err_bad(e, "program header table overlaps the ELF "
			       "header");
	g->n = phnum;
	g->v = calloc(g->n + 2, sizeof(*g->v));
	if (!g->v)
		return err_nomem(e);
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
			return err_cut(e, "program header %zu (offset %llu, "
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
		.filesz = phnum * g->phentsize, .memsz = phnum * g->phentsize,
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
		err_nomem(e);
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

		/* A parent comes before its children in this order. */

		if (seg->parent >= 0) {
			const struct elfsegment *par = &g->v[seg->parent];

			placed = par->placed + (seg->offset - par->offset);
		} else {
			uint64_t skew = seg->vaddr % align;

			placed = (at + align - 1 - skew) / align * align + skew;
		}
		/* Zeros llvm-objcopy would write that the input does not
		 * hold; past a gigabyte it is an attack on the disk. */
		if (placed > SEGMENT_LIMIT ||
		    placed + seg->filesz > (uint64_t)len + ((uint64_t)1 << 30)) {
			err_set(e, "segment %u would be laid out at offset "
				"%llu, far past the end of the file", seg->index,
				(unsigned long long)placed);
			goto out;
		}
		g->v[seg - g->v].placed = placed;
		if (placed + seg->filesz > at)
			at = placed + seg->filesz;
	}
	/* Headers are written over what lies beneath them; a table moved
	 * into the ELF header would lose one or the other. */
	if (g->v[g->n + 1].placed < (s->is64 ? sizeof(Elf64_Ehdr)
					    : sizeof(Elf32_Ehdr)) && g->n) {
		err_set(e, "llvm-objcopy would move the program header table "
			"over the ELF header");
		goto out;
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

long elfsegments_holder(const struct elfsegments *g,
			const struct elfscan_section *sec)
{
	/* An empty section counts as one byte, so that one on the boundary
	 * of two segments belongs to the second. */
	uint64_t size = sec->size ? sec->size : 1;
	long holder = -1;

	for (size_t i = 0; i < g->n; i++) {
		const struct elfsegment *seg = &g->v[i];
		bool in;

		if (sec->type == SHT_NOBITS)
			in = (sec->flags & SHF_ALLOC) &&
			     !(sec->flags & SHF_TLS) == (seg->type != PT_TLS) &&
			     seg->vaddr <= sec->addr &&
			     sec->addr - seg->vaddr <= seg->memsz &&
			     size <= seg->memsz - (sec->addr - seg->vaddr);
		else
			in = seg->offset <= sec->offset &&
			     sec->offset - seg->offset <= seg->filesz &&
			     size <= seg->filesz - (sec->offset - seg->offset);
		if (in && (holder < 0 || g->v[holder].offset > seg->offset))
			holder = (long)i;
	}
	return holder;
}

uint64_t elfsegments_place(const struct elfsegments *g, long holder,
			   const struct elfscan_section *sec)
{
	const struct elfsegment *seg = &g->v[holder];

	/* Modulo 2^64, as llvm-objcopy computes it: a NOBITS section, held
	 * by its address, may sit before its segment in the file. */
	return seg->placed + (sec->offset - seg->offset);
}

/* A stretch of the output copied from the input: [start, end) from
 * start - delta. */
struct stretch {
	uint64_t start, end, delta;
};

static int by_start(const void *x, const void *y)
{
	const struct stretch *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

struct writer {
	const uint8_t *buf;
	struct io_out *out;
	const uint8_t *table;		/* the new program header table */
	uint64_t tstart, tend;
	uint64_t at;
};

/* [start, end) of the output, zeros before it, the table over it. */
static int put(struct writer *w, uint64_t start, uint64_t end, uint64_t delta,
	       struct err *e)
{
	uint64_t cur;

	if (start < w->at)
		start = w->at;
	if (start >= end)
		return 0;
	if (io_out_zeros(w->out, start - w->at, e) < 0)
		return -1;
	for (cur = start; cur < end; ) {
		bool in_table = cur >= w->tstart && cur < w->tend;
		uint64_t stop = in_table ? (w->tend < end ? w->tend : end)
			      : (w->tstart > cur && w->tstart < end) ? w->tstart
			      : end;
		const uint8_t *from = in_table ? w->table + (cur - w->tstart)
				      : w->buf + (cur - delta);

		if (io_out_write(w->out, from, (size_t)(stop - cur), e) < 0)
			return -1;
		cur = stop;
	}
	w->at = end;
	return 0;
}

int elfsegments_write(const struct elfsegments *g, const uint8_t *buf,
		      bool is64, bool big_endian, struct io_out *out,
		      uint64_t *at, struct err *e)
{
	const struct elfsegment *ph = &g->v[g->n + 1];
	size_t table_len = g->n * g->phentsize, n = 0;
	uint8_t *table = malloc(table_len ? table_len : 1);
	struct stretch *r = malloc((g->n + 1) * sizeof(*r));
	struct writer w = { buf, out, table, ph->placed,
			    ph->placed + table_len, *at };
	bool table_covered = false;
	int rc = -1;

	if (!table || !r) {
		err_nomem(e);
		goto out;
	}
	/* The program headers as they were, with the offsets moved. */
	memcpy(table, buf + g->phoff, table_len);
	for (size_t i = 0; i < g->n; i++)
		put_endian(table + i * g->phentsize + (is64 ? 8 : 4),
			   is64 ? 8 : 4, g->v[i].placed, big_endian);
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].filesz)
			r[n++] = (struct stretch){
				g->v[i].placed, g->v[i].placed + g->v[i].filesz,
				g->v[i].placed - g->v[i].offset };
	qsort(r, n, sizeof(*r), by_start);
	for (size_t i = 0; i < n; ) {
		struct stretch cur = r[i];

		for (i++; i < n && r[i].start < cur.end; i++) {
			if (r[i].delta != cur.delta) {
				err_set(e, "segments that overlap would move "
					"apart");
				goto out;
			}
			if (r[i].end > cur.end)
				cur.end = r[i].end;
		}
		if (w.tstart >= cur.start && w.tend <= cur.end)
			table_covered = true;
		if (w.tstart < cur.start && w.tend > cur.start) {
			err_set(e, "the program header table straddles the "
				"start of a segment");
			goto out;
		}
		/* A table that lies before this stretch, in none. */
		if (!table_covered && w.tend <= cur.start && table_len &&
		    w.tstart >= w.at) {
			if (put(&w, w.tstart, w.tend, 0, e) < 0)
				goto out;
			table_covered = true;
		}
		if (put(&w, cur.start, cur.end, cur.delta, e) < 0)
			goto out;
	}
	if (!table_covered && table_len && put(&w, w.tstart, w.tend, 0, e) < 0)
		goto out;
	*at = w.at;
	rc = 0;
out:
	free(table);
	free(r);
	return rc;
}
