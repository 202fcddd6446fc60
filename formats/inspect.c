/* inspect: walk a build artefact down to its code objects; see inspect.h. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "bundle.h"
#include "ccob_entries.h"
#include "coff.h"
#include "fatbin.h"
#include "inspect.h"
#include "../core/bytes.h"

/* Archives inside archives are walked this deep, no deeper. */
enum { MAX_NESTING = 8 };

/* The first look into a CCOB inflates this much; more if the bundle
 * header inside is longer. */
enum { PEEK_FIRST = 64 << 10 };

struct walk {
	const struct inspect_opts *o;
	inspect_visit_fn visit;
	void *ctx;
	struct err *e;
	unsigned containers;	/* numbered so far in this file */
	int stop;		/* what the visitor returned, when not 0 */
};

static int emit(struct walk *w, const struct inspect_node *n)
{
	int rc = w->visit(w->ctx, n);

	if (rc)
		w->stop = rc;
	return rc ? -1 : 0;
}

/* Prefix e's message with where it happened ("section .hip_fatbin: ..."). */
static int where(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int where(struct walk *w, const char *fmt, ...)
{
	char place[300];
	struct err inner;
	va_list ap;

	if (!w->e || w->stop)
		return -1;
	inner = *w->e;
	va_start(ap, fmt);
	vsnprintf(place, sizeof(place), fmt, ap);
	va_end(ap);
	return err_set(w->e, "%s: %s", place, inner.msg);
}

static int name_width(size_t len)
{
	return len > 200 ? 200 : (int)len;
}

/* ---- entries of the containers ---- */

/* What a bundle entry's code is, from its first bytes (NULL: not at
 * hand): an ELF file (a cubin for EM_CUDA), LLVM bitcode (raw or in its
 * wrapper), an NVIDIA fatbin or SPIR-V. */
static uint16_t sniff_image(const uint8_t *p, uint64_t len)
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
	en.image_kind = sniff_image(en.data, en.size);
	return en;
}

/* The n entries of the bundle whose header fatbin_bundle_entries checked,
 * read from that header one at a time: nothing is held per entry. */
static int bundle_entries(struct walk *w, const struct inspect_node *parent,
			  const uint8_t *bundle, size_t n, bool have_data,
			  uint64_t file_off)
{
	uint64_t pos = BUNDLE_MAGIC_LEN + 8;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *data = have_data ? bundle + get_le(bundle + pos, 8)
						: NULL;
		struct inspect_node en = entry_node(parent, bundle, &pos, i,
						    data, file_off);

		if (emit(w, &en) < 0)
			return -1;
	}
	return 0;
}

static int walk_bundle(struct walk *w, struct inspect_node *c,
		       const uint8_t *p, uint64_t size)
{
	uint64_t header_end, extent;
	size_t n;

	if (fatbin_bundle_entries(p, (size_t)size, size, NULL, &n, &header_end,
				  &extent, w->e) <= 0)
		return -1;
	c->entries = n;
	if (emit(w, c) < 0)
		return -1;
	return bundle_entries(w, c, p, n, true, c->offset);
}

/* Inflate as much of the CCOB as its bundle header takes. */
static int peek_ccob(struct walk *w, const uint8_t *p, uint64_t size,
		     const struct ccob_header *h, uint8_t **raw,
		     size_t *n)
{
	size_t want = PEEK_FIRST;
	uint64_t header_end, extent;

	*raw = NULL;
	for (;;) {
		uint8_t *buf;
		size_t got;
		int rc;

		if (want > h->raw_size)
			want = (size_t)h->raw_size;
		buf = realloc(*raw, want ? want : 1);
		if (!buf)
			return err_set(w->e, "out of memory");
		*raw = buf;
		if (ccob_peek(p, (size_t)size, h, buf, want, &got, w->e) < 0)
			return -1;
		if (got < want)
			return err_set(w->e, "its stream ends after %zu of the "
				       "%llu bytes its header declares", got,
				       (unsigned long long)h->raw_size);
		rc = fatbin_bundle_entries(buf, got, h->raw_size, NULL, n,
					   &header_end, &extent, w->e);
		if (rc)
			return rc < 0 ? where(w, "the bundle inside") : 0;
		if (want >= h->raw_size)
			return err_set(w->e, "the bundle inside: header cut short");
		want = want > SIZE_MAX / 8 ? SIZE_MAX : want * 8;
	}
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
	return emit(s->w, &en) < 0 ? 1 : 0;
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
	uint64_t hash;
	size_t n;
	int rc = 0;

	if (peek_ccob(w, p, size, &c->ccob, &hdr, &n) < 0 ||
	    !ccob_entries_in_order(hdr, n))
		goto out;
	rc = -1;
	c->entries = n;
	if (emit(w, c) < 0)
		goto out;
	inner.in_file = false;
	s.inner = &inner;
	s.hdr = hdr;
	if (ccob_stream_entries(p, (size_t)size, &c->ccob, &w->o->ccob, hdr, n,
				visit_streamed, &s, &hash, w->e) != 0) {
		uint8_t *raw = NULL;
		size_t used;
		struct err whole;

		/* What inflating it whole says of the damage, the same words
		 * as without streaming. */
		if (!w->stop && ccob_decompress(p, (size_t)size, &c->ccob,
						&w->o->ccob, &raw, &used,
						&whole) < 0)
			*w->e = whole;
		free(raw);
		goto out;
	}
	c->computed_hash = hash;
	c->hash = hash == c->ccob.hash ? INSPECT_HASH_OK : INSPECT_HASH_BAD;
	c->update = true;
	rc = emit(w, c) < 0 ? -1 : 1;
out:
	free(hdr);
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

static int walk_ccob(struct walk *w, struct inspect_node *c, const uint8_t *p,
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
	if (w->o->inflate && w->o->stream &&
	    (rc = stream_ccob(w, c, p, size)) != 0)
		return rc < 0 ? -1 : 0;
	rc = -1;
	if (w->o->inflate) {
		uint64_t header_end, extent;

		if (ccob_decompress(p, (size_t)size, &c->ccob, &w->o->ccob, &raw,
				    &used, w->e) < 0)
			goto out;
		c->computed_hash = ccob_hash(raw, (size_t)c->ccob.raw_size);
		c->hash = c->computed_hash == c->ccob.hash ? INSPECT_HASH_OK
							   : INSPECT_HASH_BAD;
		if (fatbin_bundle_entries(raw, (size_t)c->ccob.raw_size,
					  c->ccob.raw_size, NULL, &n,
					  &header_end, &extent, w->e) <= 0) {
			where(w, "the bundle inside");
			goto out;
		}
	} else if (peek_ccob(w, p, size, &c->ccob, &raw, &n) < 0) {
		goto out;
	}
	c->entries = n;
	if (emit(w, c) < 0)
		goto out;
	{
		struct inspect_node inner = *c;

		inner.in_file = false;
		rc = bundle_entries(w, &inner, raw, n, w->o->inflate, 0);
	}
out:
	free(raw);
	return rc;
}

static int walk_package(struct walk *w, struct inspect_node *c,
			const uint8_t *p, uint64_t size)
{
	struct package_list l = { 0 };
	int rc = -1;

	if (package_scan(p, (size_t)size, &w->o->package, &l, w->e) < 0)
		goto out;
	c->version = l.n ? l.v[0].version : 0;
	c->entries = l.n;
	if (emit(w, c) < 0)
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
			.data = img->inflated && !w->o->inflate ? NULL
								: img->image,
		};

		en.offset = en.in_file ? c->offset + img->image_offset : 0;
		en.triple = package_get(img, "triple", 6, &en.triple_len);
		en.arch = package_get(img, "arch", 4, &en.arch_len);
		if (emit(w, &en) < 0)
			goto out;
	}
	rc = 0;
out:
	package_list_free(&l);
	return rc;
}

static int walk_nv(struct walk *w, struct inspect_node *c, const uint8_t *p,
		   uint64_t size)
{
	struct nvfatbin_header h;
	struct nvfatbin_entry ent;
	uint64_t pos;
	size_t n = 0;
	int rc;

	if (nvfatbin_open(p, (size_t)size, &h, w->e) < 0)
		return -1;
	for (pos = h.header_size; (rc = nvfatbin_next(p, &h, &pos, &ent, w->e)) > 0;)
		n++;
	if (rc < 0)
		return -1;
	c->version = h.version;
	c->entries = n;
	if (emit(w, c) < 0)
		return -1;
	n = 0;
	for (pos = h.header_size; nvfatbin_next(p, &h, &pos, &ent, w->e) > 0;) {
		bool packed = nvfatbin_compressed(&ent);
		struct inspect_node en = {
			.kind = INSPECT_ENTRY, .depth = c->depth + 1,
			.container = INSPECT_NV, .number = c->number,
			.index = (unsigned)n++, .nv = ent, .nv_base = p,
			.in_file = c->in_file && !packed,
			.size = ent.payload_size,
		};
		uint8_t *owned = NULL;
		struct err de;

		en.offset = en.in_file ? c->offset + ent.payload_offset : 0;
		/* Decoded one at a time, each freed after its visit. */
		if (w->o->inflate) {
			/* A compressed entry is read whole; a plain one only
			 * where its headers are. */
			if (packed)
				reading(w, c->in_file, c->offset +
					ent.payload_offset, ent.payload_size,
					true);
			if (nvfatbin_code(p, &ent, w->o->ccob.max_size, &en.data,
					  &en.code_size, &owned, &de) < 0) {
				en.decode_err = &de;
				en.hash = INSPECT_HASH_BAD;
			} else {
				en.hash = INSPECT_HASH_OK;
			}
		}
		rc = emit(w, &en);
		free(owned);
		if (w->o->inflate && packed)
			reading(w, c->in_file, c->offset + ent.payload_offset,
				ent.payload_size, false);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The first byte of buf[pos, stop) that is not zero, or stop: a word at
 * a time. */
static uint64_t zeros_end(const uint8_t *buf, uint64_t pos, uint64_t stop)
{
	for (; stop - pos >= 8; pos += 8) {
		uint64_t word;

		memcpy(&word, buf + pos, 8);
		if (word)
			break;
	}
	while (pos < stop && !buf[pos])
		pos++;
	return pos;
}

/* Past the zero padding at buf[pos] (buf starts at file offset base):
 * holes of a sparse file are skipped unread, the rest looked at in steps
 * of PAD_STEP between two questions about holes. */
enum { PAD_STEP = 1 << 20 };
static uint64_t skip_padding(struct walk *w, const uint8_t *buf, size_t len,
			     uint64_t base, uint64_t pos)
{
	while (pos < len && !buf[pos]) {
		if (w->o->next_data) {
			uint64_t d = w->o->next_data(w->o->data_ctx, base + pos);

			if (d > base + pos) {
				pos = d - base < len ? d - base : len;
				continue;
			}
		}
		pos = zeros_end(buf, pos, len - pos > PAD_STEP ? pos + PAD_STEP
							      : len);
	}
	return pos;
}

/* Every container in buf[0, len), which starts at file offset base. */
static int walk_containers(struct walk *w, const uint8_t *buf, size_t len,
			   uint64_t base, unsigned depth)
{
	struct fatbin_item it;
	uint64_t pos = 0;
	int rc;

	for (;;) {
		const uint8_t *p;
		struct inspect_node c;

		pos = skip_padding(w, buf, len, base, pos);
		rc = fatbin_next(buf, len, &pos, &w->o->ccob, &it, w->e);
		if (rc <= 0)
			break;
		p = buf + it.offset;
		c = (struct inspect_node){
			.kind = INSPECT_CONTAINER, .depth = depth,
			.number = w->containers++, .offset = base + it.offset,
			.size = it.size, .in_file = true,
		};

		switch (it.kind) {
		case FATBIN_BUNDLE:
			c.container = INSPECT_BUNDLE;
			rc = walk_bundle(w, &c, p, it.size);
			break;
		case FATBIN_CCOB:
			c.container = INSPECT_CCOB;
			rc = walk_ccob(w, &c, p, it.size);
			break;
		case FATBIN_PACKAGE:
			c.container = INSPECT_PACKAGE;
			rc = walk_package(w, &c, p, it.size);
			break;
		default:
			c.container = INSPECT_NV;
			rc = walk_nv(w, &c, p, it.size);
			break;
		}
		if (rc < 0)
			break;
	}
	if (rc < 0)
		return where(w, "%s at offset %llu", fatbin_kind_name(it.kind),
			     (unsigned long long)(base + it.offset));
	return 0;
}

/* ---- inputs ---- */

static int walk_input(struct walk *w, const uint8_t *buf, size_t len,
		      uint64_t base, unsigned depth, const char *name,
		      size_t name_len);

/* A section that carries offload code, in an ELF or COFF object. */
struct offload_section {
	uint32_t index;
	const char *name;
	size_t name_len;
	enum elfscan_kind kind;
	uint64_t offset, size;	/* offset 0 for NOBITS */
};

/* The sections of an object, then its object bundle (one entry per
 * __CLANG_OFFLOAD_BUNDLE__ section, in section order) if it has one. */
static int walk_sections(struct walk *w, const struct inspect_node *in,
			 const uint8_t *buf, size_t len, uint64_t base,
			 const struct offload_section *sec, size_t n)
{
	size_t nbundle = 0;

	for (size_t i = 0; i < n; i++) {
		struct inspect_node sn = {
			.kind = INSPECT_SECTION, .depth = in->depth + 1,
			.name = sec[i].name, .name_len = sec[i].name_len,
			.section_index = sec[i].index,
			.section_kind = sec[i].kind,
			.offset = base + sec[i].offset, .size = sec[i].size,
			.in_file = true,
		};

		if (sec[i].kind == ELFSCAN_BUNDLE)
			nbundle++;
		if (sec[i].kind == ELFSCAN_BUNDLE || !sec[i].size)
			continue;
		if (emit(w, &sn) < 0)
			return -1;
		if (walk_containers(w, buf + sec[i].offset,
				    (size_t)sec[i].size, base + sec[i].offset,
				    in->depth + 2) < 0)
			return where(w, "section %.*s",
				     name_width(sec[i].name_len), sec[i].name);
	}
	if (nbundle) {
		struct inspect_node c = {
			.kind = INSPECT_CONTAINER, .depth = in->depth + 1,
			.container = INSPECT_OBJECT_BUNDLE,
			.number = w->containers++, .entries = nbundle,
			.in_file = true, .offset = base, .size = len,
		};
		unsigned k = 0;

		if (emit(w, &c) < 0)
			return -1;
		for (size_t i = 0; i < n; i++) {
			struct inspect_node en = {
				.kind = INSPECT_ENTRY, .depth = c.depth + 1,
				.container = INSPECT_OBJECT_BUNDLE,
				.number = c.number, .index = k,
				.name = sec[i].name + BUNDLE_MAGIC_LEN,
				.name_len = sec[i].name_len - BUNDLE_MAGIC_LEN,
				.entry_section = sec[i].index, .in_file = true,
				.offset = base + sec[i].offset,
				.size = sec[i].size,
				.data = buf + sec[i].offset,
			};

			if (sec[i].kind != ELFSCAN_BUNDLE)
				continue;
			en.image_kind = sniff_image(en.data, en.size);
			k++;
			if (emit(w, &en) < 0)
				return -1;
		}
	}
	return 0;
}

static int walk_elf(struct walk *w, struct inspect_node *in, const uint8_t *buf,
		    size_t len, uint64_t base)
{
	struct offload_section *sec;
	struct elfscan s;
	size_t n = 0;
	int rc = -1;

	if (elfscan_open(&s, buf, len, w->e) < 0)
		return -1;
	in->is64 = s.is64;
	in->big_endian = s.big_endian;
	in->elf_type = s.e_type;
	in->machine = s.machine;
	sec = calloc(s.n ? s.n : 1, sizeof(*sec));
	if (!sec) {
		err_set(w->e, "out of memory");
		goto out;
	}
	for (size_t i = 1; i < s.n; i++) {
		uint64_t size;

		if (s.sec[i].kind == ELFSCAN_OTHER)
			continue;
		(void)elfscan_bytes(&s, buf, i, &size);
		sec[n++] = (struct offload_section){
			.index = s.sec[i].index, .name = s.sec[i].name,
			.name_len = s.sec[i].name_len, .kind = s.sec[i].kind,
			.offset = s.sec[i].type == SHT_NOBITS ? 0
				  : s.sec[i].offset,
			.size = size,
		};
	}
	if (emit(w, in) == 0)
		rc = walk_sections(w, in, buf, len, base, sec, n);
out:
	free(sec);
	elfscan_free(&s);
	return rc;
}

/* COFF objects name their sections as ELF ones do, but for packages:
 * LLVM reads every section whose name starts with .llvm.offloading.  A PE
 * image cuts the names to eight bytes (linkers keep long names only for
 * debug sections). */
static enum elfscan_kind coff_kind(const char *name, size_t len)
{
	static const struct {
		const char *name;
		enum elfscan_kind kind;
	} exact[] = {
		{ ".hip_fatbin", ELFSCAN_HIP_FATBIN },
		{ ".nv_fatbin", ELFSCAN_NV_FATBIN },
		{ "__nv_relfatbin", ELFSCAN_NV_RELFATBIN },
		{ ".hip_fat", ELFSCAN_HIP_FATBIN },
		{ ".nv_fatb", ELFSCAN_NV_FATBIN },
		{ "__nv_rel", ELFSCAN_NV_RELFATBIN },
	};
	size_t pre = strlen(COFF_OFFLOADING_PREFIX);

	if (len >= pre && !memcmp(name, COFF_OFFLOADING_PREFIX, pre))
		return ELFSCAN_OFFLOADING;
	if (len > BUNDLE_MAGIC_LEN && !memcmp(name, BUNDLE_MAGIC,
					      BUNDLE_MAGIC_LEN))
		return ELFSCAN_BUNDLE;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (len == strlen(exact[i].name) &&
		    !memcmp(name, exact[i].name, len))
			return exact[i].kind;
	return ELFSCAN_OTHER;
}

struct coff_list {
	struct offload_section *v;
	size_t n, cap;
};

static bool coff_wanted(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	return coff_kind(name, len) != ELFSCAN_OTHER;
}

static int coff_add(void *ctx, const struct coff_section *cs, struct err *e)
{
	struct coff_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct offload_section *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return err_set(e, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct offload_section){
		.index = cs->index, .name = cs->name, .name_len = cs->name_len,
		.kind = coff_kind(cs->name, cs->name_len),
		.offset = cs->offset, .size = cs->size,
	};
	return 0;
}

static int walk_coff(struct walk *w, struct inspect_node *in,
		     const uint8_t *buf, size_t len, uint64_t base)
{
	struct coff_list l = { NULL, 0, 0 };
	int rc = -1;

	if (in->format == INSPECT_PE) {
		struct coff_header h;

		if (coff_read_header(buf, len, &h, w->e) < 0)
			return -1;
		in->is64 = h.pe32plus;
		in->dll = h.characteristics & 0x2000;	/* IMAGE_FILE_DLL */
	}
	if (coff_sections(buf, len, coff_wanted, coff_add, &l, &in->machine,
			  &in->bigobj, w->e) == 0 && emit(w, in) == 0)
		rc = walk_sections(w, in, buf, len, base, l.v, l.n);
	free(l.v);
	return rc;
}

static int walk_archive(struct walk *w, struct inspect_node *in,
			const uint8_t *buf, size_t len, uint64_t base)
{
	struct ar_reader r;
	struct ar_member m;
	int rc;

	if (ar_open(&r, buf, len, w->e) < 0 || emit(w, in) < 0)
		return -1;
	while ((rc = ar_next(&r, &m, w->e)) > 0) {
		if (m.thin) {
			struct inspect_node t = {
				.kind = INSPECT_INPUT, .depth = in->depth + 1,
				.format = INSPECT_THIN_MEMBER, .name = m.name,
				.name_len = m.name_len, .size = m.size,
			};

			if (emit(w, &t) < 0)
				return -1;
			continue;
		}
		if (walk_input(w, buf + m.offset, (size_t)m.size, base + m.offset,
			       in->depth + 1, m.name, m.name_len) < 0)
			return where(w, "member %.*s", name_width(m.name_len),
				     m.name);
	}
	return rc;
}

/* Text, as far as its first 4 KiB tell: printable ASCII, tabs and line
 * ends (a linker script such as libc.so, a .def file). */
static bool is_text(const uint8_t *buf, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len && i < 4096; i++)
		if (!((buf[i] >= 0x20 && buf[i] < 0x7f) || buf[i] == '\n' ||
		      buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\f'))
			return false;
	return true;
}

/* A linker script, as the ones glibc installs as libc.so: a GNU ld
 * command that names inputs (GROUP, INPUT) or the output format. */
static bool is_ld_script(const uint8_t *buf, size_t len)
{
	static const char *const cmds[] = { "GROUP", "INPUT", "OUTPUT_FORMAT" };
	size_t n = len < 4096 ? len : 4096;

	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
			size_t k = strlen(cmds[c]), j = i + k;

			if (n - i < k || memcmp(buf + i, cmds[c], k) ||
			    (i && buf[i - 1] != '\n' && buf[i - 1] != ' ' &&
			     buf[i - 1] != '\t'))
				continue;
			while (j < n && (buf[j] == ' ' || buf[j] == '\t'))
				j++;
			if (j < n && buf[j] == '(')
				return true;
		}
	return false;
}

static bool is_container(const uint8_t *buf, size_t len)
{
	return bundle_is_binary(buf, len) || ccob_is(buf, len) ||
	       package_is(buf, len) || nvfatbin_is(buf, len);
}

static int walk_input(struct walk *w, const uint8_t *buf, size_t len,
		      uint64_t base, unsigned depth, const char *name,
		      size_t name_len)
{
	struct inspect_node in = {
		.kind = INSPECT_INPUT, .depth = depth, .name = name ? name : "",
		.name_len = name_len, .offset = base, .size = len,
		.in_file = true,
	};

	if (elfscan_is_elf(buf, len)) {
		in.format = INSPECT_ELF;
		return walk_elf(w, &in, buf, len, base);
	}
	if (coff_has_magic(buf, len) || coff_is_image(buf, len)) {
		in.format = coff_is_image(buf, len) ? INSPECT_PE : INSPECT_COFF;
		return walk_coff(w, &in, buf, len, base);
	}
	if (ar_is_archive(buf, len) && depth < MAX_NESTING) {
		in.format = INSPECT_ARCHIVE;
		return walk_archive(w, &in, buf, len, base);
	}
	if (is_container(buf, len)) {
		in.format = INSPECT_RAW;
		if (emit(w, &in) < 0)
			return -1;
		return walk_containers(w, buf, len, base, depth + 1);
	}
	if (depth == 0 && !w->o->accept_other)
		return err_set(w->e, "not an ELF file, COFF object, PE image, "
			       "archive, offload bundle, CCOB, offload package "
			       "or NVIDIA fatbin");
	in.format = is_text(buf, len) ? INSPECT_TEXT : INSPECT_OTHER;
	in.ld_script = in.format == INSPECT_TEXT && is_ld_script(buf, len);
	return emit(w, &in);
}

int inspect_walk(const uint8_t *buf, size_t len, const struct inspect_opts *o,
		 inspect_visit_fn visit, void *ctx, struct err *e)
{
	struct walk w = { o, visit, ctx, e, 0, 0 };
	int rc = walk_input(&w, buf, len, 0, 0, NULL, 0);

	if (w.stop)
		return w.stop;
	return rc < 0 ? -1 : 0;
}

const char *inspect_machine_name(uint16_t machine)
{
	static const struct {
		uint16_t machine;
		const char *name;
	} names[] = {
		{ 2, "SPARC" }, { 3, "x86" }, { 8, "MIPS" }, { 20, "PowerPC" },
		{ 21, "PowerPC64" }, { 22, "S/390" }, { 40, "ARM" },
		{ 43, "SPARC V9" }, { 62, "x86-64" }, { 183, "AArch64" },
		{ 190, "CUDA" }, { 224, "AMDGPU" }, { 243, "RISC-V" },
		{ 258, "LoongArch" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].machine == machine)
			return names[i].name;
	return NULL;
}

const char *inspect_coff_machine_name(uint16_t machine)
{
	switch (machine) {
	case 0x14c: return "x86";
	case 0x8664: return "x86-64";
	case 0x1c4: return "ARM";
	case 0xaa64: return "ARM64";
	case 0xa641: return "ARM64EC";
	case 0xa64e: return "ARM64X";
	default: return NULL;
	}
}

static void set(const char **s, size_t *len, const char *v, size_t n)
{
	*s = n ? v : NULL;
	*len = n;
}

static void set_str(const char **s, size_t *len, const char *v)
{
	set(s, len, v, v ? strlen(v) : 0);
}

static const char *image_name(uint16_t kind)
{
	static const char *const names[] = {
		NULL, "elf", "bitcode", "cubin", "fatbin", "ptx", "spirv",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : NULL;
}

void inspect_entry_target(const struct inspect_node *n,
			  struct inspect_target *t)
{
	memset(t, 0, sizeof(*t));
	if (n->container == INSPECT_PACKAGE) {
		if (n->offload_kind != PACKAGE_OFK_NONE)
			set_str(&t->kind, &t->kind_len,
				package_offload_kind_describe(n->offload_kind));
		set(&t->triple, &t->triple_len, n->triple, n->triple_len);
		set(&t->arch, &t->arch_len, n->arch, n->arch_len);
		set_str(&t->image, &t->image_len, image_name(n->image_kind));
	} else if (n->container == INSPECT_NV) {
		set_str(&t->kind, &t->kind_len, "cuda");
		snprintf(t->arch_buf, sizeof(t->arch_buf), "sm_%u%s",
			 (unsigned)n->nv.arch, nvfatbin_arch_suffix(&n->nv));
		set_str(&t->arch, &t->arch_len, t->arch_buf);
		set_str(&t->image, &t->image_len, nvfatbin_kind_name(n->nv.kind));
	} else {
		/* <kind>-<arch>-<vendor>-<os>-<env>[-<target ID>] */
		const char *dash[5];
		size_t k = 0;

		for (size_t i = 0; i < n->name_len && k < 5; i++)
			if (n->name[i] == '-')
				dash[k++] = n->name + i;
		if (k < 4)
			return;
		set(&t->kind, &t->kind_len, n->name, (size_t)(dash[0] - n->name));
		if (k == 4) {
			set(&t->triple, &t->triple_len, dash[0] + 1,
			    (size_t)(n->name + n->name_len - dash[0] - 1));
			return;
		}
		set_str(&t->image, &t->image_len, image_name(n->image_kind));
		/* An empty environment ("amdgcn-amd-amdhsa-") is left out. */
		set(&t->triple, &t->triple_len, dash[0] + 1,
		    (size_t)(dash[4] - dash[0] - 1) -
		    (dash[4] - dash[3] == 1));
		set(&t->arch, &t->arch_len, dash[4] + 1,
		    (size_t)(n->name + n->name_len - dash[4] - 1));
	}
}
