/* bundler_read23: the pieces of an input read as LLVM 23 reads them for
 * -list (all of it here) and -unbundle (the reading of a piece, for
 * bundler_read.c): a binary bundle's header as LLVM 23's ReadHeader reads
 * it, with one map of IDs over the bundles -list walks, and where LLVM 23
 * crashes, hangs or does what is undefined, one error line instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundler_jobs.h"
#include "bundler_read23.h"
#include "llvmtool.h"
#include "../core/bytes.h"
#include "../core/io_in.h"
#include "../core/strmap.h"
#include "../formats/bundle_object.h"
#include "../formats/bundle_reader.h"
#include "../formats/bundle_text.h"
#include "../formats/ccob.h"

static const char bundle_magic[] = "__CLANG_OFFLOAD_BUNDLE__";
enum { MAGIC_LEN = sizeof(bundle_magic) - 1 };

/* How LLVM's ReadHeader of one binary bundle ended: its loop over the
 * entries done (the map's iterator set to its start), stopped early (the
 * iterator left as it was), or stopped where LLVM crashes whatever the
 * iterator: an ID whose length wraps LLVM's test at 2^64, with a sound
 * offset, is read past the end of the file. */
enum head23_end { HEAD_DONE, HEAD_STOP, HEAD_CRASH };

struct head23 {
	enum head23_end end;
	uint64_t used;		/* how far it read */
	uint64_t entry, count;	/* where it stopped (from 1), of how many */
	const char *why;	/* and why, as 22 mode says it */
};

/* LLVM's ReadHeader of a binary bundle at d[0, n), its sums wrapping as
 * LLVM's: each complete entry's ID goes into ids (as map[ID] = ...).
 * 0, or 1 (out of memory, reported). */
static int read_header23(const uint8_t *d, uint64_t n, struct strmap *ids,
			 struct head23 *h)
{
	uint64_t rc = MAGIC_LEN;

	*h = (struct head23){ .end = HEAD_STOP, .used = rc };
	if (rc > n || memcmp(d, bundle_magic, MAGIC_LEN) || rc + 8 > n)
		return 0;
	h->count = get_le(d + rc, 8);
	h->used = rc += 8;
	for (uint64_t i = 0; i < h->count; i++) {
		uint64_t off, size, tsz;

		h->entry = i + 1;
		h->why = "is cut short";
		if (rc + 8 > n)
			return 0;
		off = get_le(d + rc, 8);
		h->used = rc += 8;
		if (rc + 8 > n)
			return 0;
		size = get_le(d + rc, 8);
		h->used = rc += 8;
		if (rc + 8 > n)
			return 0;
		tsz = get_le(d + rc, 8);
		h->used = rc += 8;
		h->why = "has an ID that runs past the end of the file";
		if (rc + tsz > n)
			return 0;
		if (tsz > n - rc) {
			/* The test wrapped: the ID is read if the data is
			 * sound. */
			if (off && off + size <= n)
				h->end = HEAD_CRASH;
			return 0;
		}
		h->used = rc += tsz;
		h->why = !off ? "has offset 0"
			      : "has data past the end of the file";
		/* LLVM stores the entry only when its data is inside. */
		if (!off || off + size > n)
			return 0;
		if (strmap_set(ids, (const char *)d + rc - tsz, (size_t)tsz,
			       0) < 0)
			return llvm_fail("out of memory");
	}
	h->end = HEAD_DONE;
	return 0;
}

/* LLVM 23's binary handler lists a bundle, then looks for the bundle magic
 * again from where its header reading stopped.  Its one map of IDs grows
 * bundle after bundle: a header read to its end lists all of it, one that
 * stops early leaves the map's iterator where the last listing left it:
 * at the map's end (nothing listed) while the map kept its table, else
 * nowhere (never set, or in a table since reallocated: LLVM crashes, as
 * it does on a second entry past the end of the file).  The bundle is in's
 * bytes [base, base + n); the search lets each piece of a mapped input go
 * once it is searched (io_in_find).  0, 1 (reported) or BUNDLER_DROP
 * (reported). */
static int list23_binary(const struct io_in *in, size_t base, size_t n,
			 const char *path, FILE *list)
{
	const uint8_t *d = in->data + base;
	struct strmap ids = { 0 };
	uint32_t listed_nb = 0;		/* the table the iterator is in */
	uint64_t pos = 0;
	int rc = 0;

	for (;;) {
		struct head23 h;
		uint64_t next;

		if (read_header23(d + pos, n - pos, &ids, &h)) {
			rc = 1;
			break;
		}
		if (h.end == HEAD_DONE) {
			for (uint32_t b = strmap_next(&ids, 0); b < ids.nb;
			     b = strmap_next(&ids, b + 1)) {
				fwrite(ids.b[b].key, 1, ids.b[b].len, list);
				putc('\n', list);
			}
			listed_nb = ids.nb;
		} else if (h.end == HEAD_CRASH || ids.nb != listed_nb) {
			llvm_fail("'%s': bundle header entry %llu of %llu %s",
				  path, (unsigned long long)h.entry,
				  (unsigned long long)h.count, h.why);
			rc = BUNDLER_DROP;
			break;
		}
		if (h.used >= n - pos)
			break;
		next = io_in_find(in, base + pos + h.used, base + n,
				  bundle_magic, MAGIC_LEN);
		if (next == UINT64_MAX)
			break;
		pos = next - base;
	}
	strmap_free(&ids);
	return rc;
}

/* The rest of LLVM's crashes come from walking the entries, which it
 * does only for what it wants. */
int bundler_header23_crash(const struct config *c, const uint8_t *d, size_t n)
{
	struct strmap ids = { 0 };
	struct head23 h;
	int rc = read_header23(d, n, &ids, &h);

	strmap_free(&ids);
	if (rc || h.end != HEAD_CRASH)
		return rc;
	return llvm_fail("'%s': bundle header entry %llu of %llu %s",
			 c->inputs[0], (unsigned long long)h.entry,
			 (unsigned long long)h.count, h.why);
}

/* LLVM 23's getHeaderSize reaches llvm_unreachable for such a version,
 * and its release build reads on from wherever that leads: LLVM 22's
 * words, which LLVM 23 too says of some (a short one). */
int bundler_ccob23_undefined(const struct source *s, const struct blob23 *b)
{
	struct ccob_header h;
	struct err e;

	if (b->len < 8 || !ccob_is(s->file.data + b->at, b->len) ||
	    ccob_parse_header(s->file.data + b->at, b->len, &h, &e) == 0 ||
	    ccob_header_size(h.version))
		return 0;
	llvm_fail("Failed to decompress input: %s", bundler_llvm_words(s->c, e.msg));
	return BUNDLER_DROP;
}

/* The file itself is read from the piece's start, so that copies keep to
 * the kernel and searches let the file's pages go. */
int bundler_open_piece23(struct source *s, const struct blob23 *b,
			 const struct io_in **from, size_t *base)
{
	const struct io_in *file = &s->file;
	const uint8_t *at = file->data + b->at;

	if (bundler_ccob23_undefined(s, b))
		return BUNDLER_DROP;
	if (s->seg.heap)
		io_in_close(&s->seg);
	s->seg = (struct io_in){ .fd = -1 };
	if (b->len >= 8 && ccob_is(at, b->len)) {
		struct source one = *s;
		int rc;

		/* The file as far as the piece goes: never closed. */
		one.file.len = b->at + b->len;
		one.pos = b->at;
		one.seg = (struct io_in){ .fd = -1 };
		/* A check of ours LLVM does not make: LLVM reads on (or dies
		 * of a size it cannot allocate). */
		rc = bundler_decompress_next(&one, s->c->inputs[0]);
		if (rc)
			return rc == BUNDLER_OURS ? BUNDLER_DROP : 1;
		s->seg = one.seg;
		*from = &s->seg;
		/* LLVM 23 hands zstd every byte of the piece after the
		 * header: what follows the frames fails it (zlib stops at
		 * its stream's end). */
		if (one.pos < one.file.len && one.method != CCOB_ZLIB)
			return llvm_fail("Failed to decompress input: %s",
				bundler_llvm_words(s->c, "Could not decompress "
					"embedded file contents: Src size is "
					"incorrect"));
		*base = 0;
		return 0;
	}
	if (b->len >= 8 && s->c->verbose)
		fputs("Uncompressed bundle\n", stderr);
	*from = file;
	*base = b->at;
	return 0;
}

/* One piece's bundle IDs onto list, as LLVM 23's handlers list them: 0,
 * 1 (reported) or BUNDLER_DROP (reported). */
static int list23_blob(struct source *s, const struct blob23 *b, FILE *list)
{
	struct bundle_reader r = { 0 };
	struct bundle_entry ent;
	const struct io_in *from = NULL;
	const char *comment = NULL;
	const uint8_t *d;
	size_t base = 0, n;
	int layout, rc = 1;
	struct err e;

	if ((rc = bundler_open_piece23(s, b, &from, &base)))
		return rc;
	d = from->data + base;
	n = from == &s->seg ? s->seg.len : b->len;
	layout = bundler_layout23(s->c, d, n, &comment);
	if (layout == LAYOUT_BINARY)
		return list23_binary(from, base, n, s->c->inputs[0], list);
	if (layout == LAYOUT_TEXT) {
		bundle_open_text(&r, comment, d, n);
	} else if (layout == LAYOUT_OBJECT) {
		if (bundle_open_object(&r, d, n, &e) < 0)
			return e.llvm_words ? llvm_fail("%s", e.msg)
					    : llvm_fail("'%s': %s",
							s->c->inputs[0], e.msg);
	} else {
		return 1;
	}
	while (bundle_next(&r, &ent) == 1) {
		fwrite(ent.id, 1, ent.id_len, list);
		putc('\n', list);
		bundle_skip(&r);
	}
	rc = 0;
	bundle_close(&r);
	return rc;
}

/* The pieces of the input (bundler_blob23), each listed; an empty input
 * lists nothing (and is no error, whatever -type says).  Where LLVM
 * fails, the IDs it listed before are printed too (to a file or pipe,
 * LLVM's buffered list comes after its error line, as here); where it
 * crashes or hangs, nothing is: one error line. */
int bundler_list23(const struct config *c)
{
	struct source s = { .c = c };
	char *text = NULL;
	size_t text_len = 0, pos = 0;
	FILE *list = open_memstream(&text, &text_len);
	struct err e;
	int rc = 0;

	s.file.fd = s.seg.fd = -1;
	if (!list)
		return llvm_fail("out of memory");
	if (io_in_open(&s.file, c->inputs[0], &e) < 0) {
		fclose(list);
		free(text);
		return llvm_fail("%s", e.msg);
	}
	while (!rc && pos < s.file.len) {
		struct blob23 b;

		/* A CCOB of size 0 LLVM reads forever (or a -type it has
		 * no handler for, before anything is listed). */
		rc = bundler_blob23(c, &s.file, pos, false, &b)
			     ? BUNDLER_DROP : list23_blob(&s, &b, list);
		if (b.next == SIZE_MAX)
			break;
		pos = b.next;
	}
	if (fclose(list) == 0 && rc != BUNDLER_DROP)
		fwrite(text, 1, text_len, stdout);
	free(text);
	if (s.seg.heap)
		io_in_close(&s.seg);
	io_in_close(&s.file);
	return rc != 0;
}

