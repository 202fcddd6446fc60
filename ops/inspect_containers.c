/* inspect_containers: the entries of each kind of container, for the
 * walk of inspect.c (see inspect.h): bundles, CCOBs (inflated whole, as
 * far as their bundle header, as a stream of entries, or checked without
 * being held), packages; NVIDIA fatbins are inspect_nv.c's. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/bundle.h"
#include "../formats/ccob_entries.h"
#include "../formats/fatbin.h"
#include "inspect_ccob.h"
#include "inspect_containers.h"
#include "../core/bytes.h"
#include "../formats/ccob_decode.h"

/* ---- the walk's own ---- */

int inspect_emit(struct walk *w, const struct inspect_node *n)
{
	int rc = w->visit(w->ctx, n);

	if (rc)
		w->stop = rc;
	return rc ? -1 : 0;
}

int inspect_where(struct walk *w, const char *fmt, ...)
{
	char place[300];
	va_list ap;

	if (!w->e || w->stop)
		return -1;
	va_start(ap, fmt);
	vsnprintf(place, sizeof(place), fmt, ap);
	va_end(ap);
	return err_wrap(w->e, w->e->code, "%s", place);
}

/* ---- entries of the containers ---- */

/* What a bundle entry's code is, from its first bytes (NULL: not at
 * hand): an ELF file (a cubin for EM_CUDA), LLVM bitcode (raw or in its
 * wrapper), an NVIDIA fatbin or SPIR-V. */
uint16_t inspect_sniff_image(const uint8_t *p, uint64_t len)
{
	if (!p || len < 4)
		return PACKAGE_IMG_NONE;
	if (len >= 20 && !memcmp(p, "\x7f" "ELF", 4)) {
		unsigned machine = p[5] == 2 ? p[18] << 8 | p[19]
					     : p[19] << 8 | p[18];

		return machine == EM_CUDA ? PACKAGE_IMG_CUBIN
					  : PACKAGE_IMG_OBJECT;
	}
	if (!memcmp(p, "BC\xc0\xde", 4) || !memcmp(p, "\xde\xc0\x17\x0b", 4))
		return PACKAGE_IMG_BITCODE;
	if (!memcmp(p, "\x50\xed\x55\xba", 4))
		return PACKAGE_IMG_FATBINARY;
	if (!memcmp(p, "\x03\x02\x23\x07", 4))
		return PACKAGE_IMG_SPIRV;
	return PACKAGE_IMG_NONE;
}

/* Entry i of a bundle, its row at *pos of the header (moved past it);
 * data its code when at hand. */
static struct inspect_node entry_node(const struct inspect_node *parent,
				      const uint8_t *bundle, uint64_t *pos,
				      size_t i, const uint8_t *data,
				      uint64_t file_off)
{
	uint64_t off = get_le(bundle + *pos, 8);
	uint64_t id_len = get_le(bundle + *pos + 16, 8);
	struct inspect_node en = {
		.kind = INSPECT_ENTRY, .depth = parent->depth + 1,
		.container = parent->container,
		.number = parent->number, .index = (unsigned)i,
		.name = (const char *)bundle + *pos + 24,
		.name_len = (size_t)id_len,
		.size = get_le(bundle + *pos + 8, 8),
		.in_file = parent->in_file,
		.offset = parent->in_file ? file_off + off : off,
		.data = data,
	};

	*pos += 24 + id_len;
	return en;
}

/* The n entries of the bundle whose header fatbin_bundle_entries checked,
 * read from that header one at a time: nothing is held per entry. */
static int bundle_entries(struct walk *w, const struct inspect_node *parent,
			  const uint8_t *bundle, size_t n, bool have_data,
			  uint64_t file_off, const uint8_t *firsts)
{
	uint64_t pos = BUNDLE_MAGIC_LEN + 8;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *data = have_data ? bundle + get_le(bundle + pos, 8)
						: NULL;
		struct inspect_node en = entry_node(parent, bundle, &pos, i,
						    data, file_off);

		if (firsts) {
			en.head = firsts + i * INSPECT_HEAD;
			en.image_kind = inspect_sniff_image(en.head, en.size);
		} else if (!en.in_file || w->o->image_kinds) {
			en.image_kind = inspect_sniff_image(en.data, en.size);
		}
		if (inspect_emit(w, &en) < 0)
			return -1;
	}
	return 0;
}

int inspect_walk_bundle(struct walk *w, struct inspect_node *c,
		       const uint8_t *p, uint64_t size)
{
	uint64_t header_end, extent;
	size_t n;

	if (fatbin_bundle_entries(p, (size_t)size, size, NULL, &n, &header_end,
				  &extent, w->e) <= 0)
		return -1;
	c->entries = n;
	if (inspect_emit(w, c) < 0)
		return -1;
	return bundle_entries(w, c, p, n, true, c->offset, NULL);
}

/* Inflate as much of the CCOB as its bundle header takes (*raw: its
 * first bytes, the header whole). */
static int peek_ccob(struct walk *w, const uint8_t *p, uint64_t size,
		     const struct ccob_header *h, uint8_t **raw,
		     size_t *n)
{
	size_t have;

	return ccob_bundle_head(p, (size_t)size, h, raw, &have, n, w->e);
}

/* A streamed CCOB's entries, visited as ccob_stream_entries hands them
 * over. */
struct streamed {
	struct walk *w;
	const struct inspect_node *inner;
	const uint8_t *hdr;
	uint64_t pos;		/* the next entry's row in hdr */
};

static int visit_streamed(void *ctx, size_t i, const uint8_t *data,
			  uint64_t size)
{
	struct streamed *s = ctx;
	struct inspect_node en = entry_node(s->inner, s->hdr, &s->pos, i, data,
					    0);

	(void)size;
	en.image_kind = inspect_sniff_image(en.data, en.size);
	return inspect_emit(s->w, &en) < 0 ? 1 : 0;
}

/* Inflate the CCOB as a stream (inspect_opts.stream): 1 done, 0 when its
 * bundle header cannot be read from a first look or its entries are not
 * in order (inflate it whole then: nothing was visited), -1 failed. */
static int stream_ccob(struct walk *w, struct inspect_node *c,
		       const uint8_t *p, uint64_t size)
{
	struct streamed s = { .w = w, .pos = BUNDLE_MAGIC_LEN + 8 };
	struct inspect_node inner = *c;
	uint8_t *hdr = NULL;
	uint64_t hash = 0;
	size_t n;
	int rc = 0;

	if (peek_ccob(w, p, size, &c->ccob, &hdr, &n) < 0 ||
	    !ccob_entries_in_order(hdr, n))
		goto out;
	rc = -1;
	c->entries = n;
	if (inspect_emit(w, c) < 0)
		goto out;
	inner.in_file = false;
	s.inner = &inner;
	s.hdr = hdr;
	if (ccob_stream_entries(p, (size_t)size, &c->ccob, &w->o->ccob, hdr, n,
				visit_streamed, &s, w->o->no_hash ? NULL : &hash,
				w->e) != 0) {
		uint8_t *raw = NULL;
		size_t used;
		struct err whole;

		/* What inflating it whole says of the damage, the same words
		 * as without streaming. */
		if (!w->stop && ccob_decompress(p, (size_t)size, &c->ccob,
						&w->o->ccob, &raw, &used, NULL,
						&whole) < 0)
			*w->e = whole;
		free(raw);
		goto out;
	}
	if (!w->o->no_hash) {
		c->computed_hash = hash;
		c->hash = hash == c->ccob.hash ? INSPECT_HASH_OK
					       : INSPECT_HASH_BAD;
	}
	c->update = true;
	rc = inspect_emit(w, c) < 0 ? -1 : 1;
out:
	free(hdr);
	return rc;
}

/* A CCOB checked without holding it (inspect_opts.stream_ccob). */
static int walk_ccob_streamed(struct walk *w, struct inspect_node *c,
			      const uint8_t *p, uint64_t size)
{
	struct ccob_look lk;
	struct inspect_node inner;
	int rc = -1;

	if (inspect_ccob_look(p, (size_t)size, &c->ccob, &w->o->ccob, &lk,
			      w->e) < 0)
		return -1;
	c->computed_hash = lk.hash;
	c->hash = lk.hash == c->ccob.hash ? INSPECT_HASH_OK : INSPECT_HASH_BAD;
	if (lk.header_rc < 0) {
		*w->e = lk.header_err;
		inspect_where(w, "the bundle inside");
		goto out;
	}
	c->entries = lk.n;
	c->data = p;
	if (inspect_emit(w, c) < 0)
		goto out;
	inner = *c;
	inner.in_file = false;
	inner.data = NULL;
	rc = bundle_entries(w, &inner, lk.head, lk.n, false, 0, lk.firsts);
out:
	inspect_ccob_look_free(&lk);
	return rc;
}

/* Tell the caller the walk reads [off, off + len) of the file whole now
 * (start), or is done with it; in_file: whether those bytes are the
 * file's. */
static void reading(struct walk *w, bool in_file, uint64_t off, uint64_t len,
		    bool start)
{
	if (in_file && w->o->reading)
		w->o->reading(w->o->data_ctx, off, len, start);
}

static int walk_ccob_read(struct walk *w, struct inspect_node *c,
			  const uint8_t *p, uint64_t size);

int inspect_walk_ccob(struct walk *w, struct inspect_node *c, const uint8_t *p,
		     uint64_t size)
{
	int rc;

	if (!w->o->inflate)
		return walk_ccob_read(w, c, p, size);
	reading(w, c->in_file, c->offset, size, true);
	rc = walk_ccob_read(w, c, p, size);
	reading(w, c->in_file, c->offset, size, false);
	return rc;
}

static int walk_ccob_read(struct walk *w, struct inspect_node *c,
			  const uint8_t *p, uint64_t size)
{
	uint8_t *raw = NULL;
	size_t n = 0, used;
	int rc = -1;

	if (ccob_parse_header(p, (size_t)size, &c->ccob, w->e) < 0)
		return -1;
	c->version = c->ccob.version;
	c->ccob_compressed = size - c->ccob.header_size;
	if (w->o->inflate && w->o->stream_ccob)
		return walk_ccob_streamed(w, c, p, size);
	if (w->o->inflate && w->o->stream &&
	    (rc = stream_ccob(w, c, p, size)) != 0)
		return rc < 0 ? -1 : 0;
	rc = -1;
	if (w->o->inflate) {
		uint64_t header_end, extent;

		if (ccob_decompress(p, (size_t)size, &c->ccob, &w->o->ccob, &raw,
				    &used, w->o->no_hash ? NULL
				    : &c->computed_hash, w->e) < 0)
			goto out;
		if (!w->o->no_hash)
			c->hash = c->computed_hash == c->ccob.hash
				  ? INSPECT_HASH_OK : INSPECT_HASH_BAD;
		if (fatbin_bundle_entries(raw, (size_t)c->ccob.raw_size,
					  c->ccob.raw_size, NULL, &n,
					  &header_end, &extent, w->e) <= 0) {
			inspect_where(w, "the bundle inside");
			goto out;
		}
	} else if (peek_ccob(w, p, size, &c->ccob, &raw, &n) < 0) {
		goto out;
	}
	c->entries = n;
	if (inspect_emit(w, c) < 0)
		goto out;
	{
		struct inspect_node inner = *c;

		inner.in_file = false;
		rc = bundle_entries(w, &inner, raw, n, w->o->inflate, 0, NULL);
	}
out:
	free(raw);
	return rc;
}

int inspect_walk_package(struct walk *w, struct inspect_node *c,
			const uint8_t *p, uint64_t size)
{
	struct package_list l = { 0 };
	int rc = -1;

	if (package_scan(p, (size_t)size, &w->o->package, &l, w->e) < 0)
		goto out;
	c->version = package_version(p, (size_t)size);
	c->entries = l.n;
	if (inspect_emit(w, c) < 0)
		goto out;
	for (size_t i = 0; i < l.n; i++) {
		const struct package_image *img = &l.v[i];
		struct inspect_node en = {
			.kind = INSPECT_ENTRY, .depth = c->depth + 1,
			.container = c->container, .number = c->number,
			.index = (unsigned)i, .size = img->image_size,
			.image_kind = img->image_kind,
			.offload_kind = img->offload_kind,
			.in_file = c->in_file && !img->inflated,
			.in_bitcode = c->in_bitcode,
			.data = img->inflated && !w->o->inflate ? NULL
								: img->image,
		};

		en.offset = en.in_file ? c->offset + img->image_offset : 0;
		en.triple = package_get(img, "triple", 6, &en.triple_len);
		en.arch = package_get(img, "arch", 4, &en.arch_len);
		if (inspect_emit(w, &en) < 0)
			goto out;
	}
	rc = 0;
out:
	package_list_free(&l);
	return rc;
}
