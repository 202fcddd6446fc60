/* devarchive: heterogeneous device archives; see devarchive.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/bitcode.h"
#include "../formats/bitcode_embed.h"
#include "../formats/coff.h"
#include "devarchive.h"
#include "hosts.h"
#include "../formats/magic.h"
#include "../core/elfscan.h"
#include "../core/sections.h"
#include "../core/env.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../formats/ar.h"
#include "../formats/ar_write.h"
#include "../formats/ar_symbols.h"
#include "../formats/ccob_decode.h"
#include "../formats/bundle_binary.h"
#include "../formats/bundle_object.h"
#include "../formats/bundle_reader.h"

int devarchive_open(struct devarchive_reader *r, const uint8_t *buf,
		    size_t len, const struct ccob_limits *limits,
		    enum llvm_release llvm, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->limits = limits;
	r->llvm = llvm;
	if (ar_open(&r->ar, buf, len, e) < 0)
		return -1;
	r->ar.says_offsets = llvm >= LLVM_24;
	return 0;
}

static int keep_heap(struct devarchive_reader *r, uint8_t *p)
{
	uint8_t **h = realloc(r->heap, (r->nheap + 1) * sizeof(*h));

	if (!h)
		return -1;
	r->heap = h;
	r->heap[r->nheap++] = p;
	return 0;
}

void devarchive_set_path(struct devarchive_reader *r, const char *path)
{
	r->path = path;
}

/* A thin member's file, relative to the archive's directory unless
 * absolute, kept open until devarchive_close. */
static int open_thin(struct devarchive_reader *r, const struct ar_member *m,
		     const uint8_t **data, size_t *len, struct err *e)
{
	const char *slash = r->path ? strrchr(r->path, '/') : NULL;
	struct io_in *t = realloc(r->thin, (r->nthin + 1) * sizeof(*t));
	char *file;
	int rc;

	if (!t)
		return err_nomem(e);
	r->thin = t;
	if (m->name_len && m->name[0] == '/')
		rc = asprintf(&file, "%.*s", (int)m->name_len, m->name);
	else
		rc = asprintf(&file, "%.*s%.*s",
			      slash ? (int)(slash + 1 - r->path) : 0,
			      slash ? r->path : "", (int)m->name_len, m->name);
	if (rc < 0)
		return err_nomem(e);
	t = &r->thin[r->nthin];
	*t = (struct io_in){ .fd = -1 };
	rc = io_in_open(t, file, e);
	free(file);
	if (rc < 0)
		return -1;
	r->nthin++;
	*data = t->data;
	*len = t->len;
	return 0;
}

void devarchive_close(struct devarchive_reader *r)
{
	if (r->in_member)
		bundle_close(&r->bundle);
	for (size_t i = 0; i < r->nheap; i++)
		free(r->heap[i]);
	for (size_t i = 0; i < r->nscratch; i++) {
		io_in_close(&r->views[i]);
		io_out_discard(&r->scratch[i]);
	}
	for (size_t i = 0; i < r->nthin; i++)
		io_in_close(&r->thin[i]);
	free(r->heap);
	free(r->scratch);
	free(r->views);
	free(r->thin);
	memset(r, 0, sizeof(*r));
}

/* LLVM's sys::path::filename. */
static const char *path_filename(const char *name, size_t len, size_t *out)
{
	const char *slash = memrchr(name, '/', len);

	if (len && name[len - 1] == '/') {
		*out = 1;
		return ".";
	}
	*out = slash ? len - (size_t)(slash + 1 - name) : len;
	return slash ? slash + 1 : name;
}

/* A CCOB member, decompressed as LLVM reads one: a single CCOB (zstd
 * refuses bytes after it, zlib ignores them), its hash checked. */
static int decompress_member(struct devarchive_reader *r, const uint8_t **data,
			     size_t *len, struct err *e)
{
	struct ccob_header h;
	uint8_t *raw;
	size_t used;
	uint64_t hash;
	bool llvm23 = r->llvm >= LLVM_23;

	/* LLVM 23 hands zstd the bytes up to the size a version 2 or 3
	 * header gives (when it is inside), LLVM 22 all of them. */
	if (llvm23 && ccob_parse_header(*data, *len, &h, e) == 0 &&
	    h.version >= 2 && h.total_size >= h.header_size &&
	    h.total_size <= *len)
		*len = (size_t)h.total_size;
	if (ccob_parse_header(*data, *len, &h, e) < 0 ||
	    ccob_decompress(*data, *len, &h, r->limits, &raw, &used, &hash,
			    e) < 0)
	{
		/* LLVM 23 (its CCOB code moved to llvm::object) starts the
		 * reason lower case. */
		if (llvm23)
			e->msg[0] = (char)tolower((unsigned char)e->msg[0]);
		err_wrap(e, ERR_DECOMPRESS, "Failed to decompress code object");
		e->llvm_words = true;
		return -1;
	}
	if (keep_heap(r, raw) < 0) {
		free(raw);
		return err_nomem(e);
	}
	if (used < *len && h.method != CCOB_ZLIB)
		return err_llvm(e, ERR_DECOMPRESS, "Failed to decompress code "
				"object: %s", llvm23 ? "could not decompress "
				"embedded file contents: Src size is incorrect"
				: "Could not decompress embedded file contents: "
				"Src size is incorrect");
	if (hash != h.hash)
		return err_bad(e, "member '%.*s': its compressed bundle's hash "
			       "does not match its contents", (int)r->file_len,
			       r->file);
	*data = raw;
	*len = (size_t)h.raw_size;
	return 0;
}

/* Objects get the object layout, anything else the binary one: a COFF
 * file as the bundler's -type=o takes it (coff_is_readable), so that
 * names that do not resolve fail the member in LLVM's words, not pass it
 * as a file with no bundle. */
static int open_bundle(struct bundle_reader *b, const uint8_t *data, size_t len,
		       struct err *e)
{
	if (magic_is_object(data, len) || coff_is_readable(data, len))
		return bundle_open_object(b, data, len, e);
	return bundle_open_binary(b, data, len, e);
}

static int next_member(struct devarchive_reader *r, struct err *e)
{
	struct ar_member m;
	const uint8_t *data;
	size_t len;
	int more = ar_next(&r->ar, &m, e);

	if (more <= 0)
		return more;
	r->file = path_filename(m.name, m.name_len, &r->file_len);
	data = r->ar.buf + m.offset;
	len = (size_t)m.size;
	if (m.thin && open_thin(r, &m, &data, &len, e) < 0)
		return -1;
	if (len >= 8 && ccob_is(data, len) && decompress_member(r, &data, &len, e))
		return -1;
	if (open_bundle(&r->bundle, data, len, e) < 0)
		return err_wrap(e, e->code, "member '%.*s'", (int)r->file_len, r->file);
	r->member = data;
	r->member_len = len;
	r->in_member = true;
	return 1;
}

int devarchive_next(struct devarchive_reader *r, struct devarchive_entry *ent,
		    struct err *e)
{
	for (;;) {
		struct bundle_entry be;
		uint64_t off, size;
		int more;

		if (r->in_member && bundle_next(&r->bundle, &be) == 1) {
			bool past = false;

			if (bundle_content(&r->bundle, &off, &size, e) < 0) {
				if (!r->bundle.object)
					return err_wrap(e, e->code, "member '%.*s'",
						    (int)r->file_len, r->file);
				past = true;
				off = size = 0;
			}
			*ent = (struct devarchive_entry){
				.file = r->file, .file_len = r->file_len,
				.id = be.id, .id_len = be.id_len,
				.data = r->member + off, .len = (size_t)size,
				.host_object = r->bundle.object && !past &&
					bundle_object_is_host(r->member, off, size),
				.past_end = past,
				.member = r->member, .member_len = r->member_len,
			};
			return 1;
		}
		if (r->in_member) {
			bundle_close(&r->bundle);
			r->in_member = false;
		}
		if ((more = next_member(r, e)) <= 0)
			return more;
	}
}

int devarchive_bytes(struct devarchive_reader *r, struct devarchive_entry *ent,
		     const uint8_t **data, size_t *len, struct err *e)
{
	struct io_out *s;
	struct io_in *v;

	if (ent->past_end) {
		err_llvm(e, ERR_TRUNCATED, "The end of the file was "
			 "unexpectedly encountered");
		return err_wrap(e, e->code, "member '%.*s'", (int)ent->file_len,
			    ent->file);
	}
	if (!ent->host_object) {
		*data = ent->data;
		*len = ent->len;
		return 0;
	}
	s = realloc(r->scratch, (r->nscratch + 1) * sizeof(*s));
	if (!s)
		return err_nomem(e);
	r->scratch = s;
	v = realloc(r->views, (r->nscratch + 1) * sizeof(*v));
	if (!v)
		return err_nomem(e);
	r->views = v;
	s = &r->scratch[r->nscratch];
	v = &r->views[r->nscratch];
	*s = (struct io_out){ .fd = -1 };
	*v = (struct io_in){ .fd = -1 };
	if (io_scratch_open(s, e) < 0)
		return -1;
	r->nscratch++;
	if (bundle_strip_object(ent->member, ent->member_len, s, e) < 0 ||
	    io_scratch_map(s, v, e) < 0)
		return err_wrap(e, e->code, "member '%.*s'", (int)ent->file_len,
			    ent->file);
	/* Made once: the entry now stands for the stripped object. */
	ent->host_object = false;
	ent->data = v->data;
	ent->len = v->len;
	*data = v->data;
	*len = v->len;
	return 0;
}

static size_t stem_len(const char *f, size_t len)
{
	const char *dot = memrchr(f, '.', len);

	if (!dot || (len == 1 && f[0] == '.') ||
	    (len == 2 && f[0] == '.' && f[1] == '.'))
		return len;
	return (size_t)(dot - f);
}

char *devarchive_member_name(const char *file, size_t file_len, const char *id,
			     size_t id_len, const char *tid)
{
	size_t stem = stem_len(file, file_len);
	const char *ext = file + stem;
	size_t ext_len = file_len - stem;
	char *name;

	if (strstr(tid, "gfx")) {
		ext = ".bc";
		ext_len = 3;
	} else if (strstr(tid, "sm_")) {
		ext = ".cubin";
		ext_len = 6;
	}
	if (asprintf(&name, "%.*s-%.*s%.*s%.*s", (int)stem, file, (int)id_len, id,
		     (int)stem, file, (int)ext_len, ext) < 0)
		return NULL;
	for (char *p = name; *p; p++)
		if (*p == ':')
			*p = '_';
	return name;
}

int devarchive_member_ids(const uint8_t *buf, size_t len,
			  int (*each)(void *ctx, const char *file,
				      size_t file_len, char **ids, size_t n),
			  void *ctx, enum llvm_release llvm, struct err *e)
{
	struct ar_reader ar;
	struct ar_member m;
	int more, rc = 0;

	if (ar_open(&ar, buf, len, e) < 0)
		return -1;
	ar.says_offsets = llvm >= LLVM_24;
	while (!rc && (more = ar_next(&ar, &m, e)) == 1) {
		const uint8_t *data = buf + m.offset;
		struct bundle_reader b;
		struct bundle_entry ent;
		char **ids = NULL;
		size_t n = 0, flen;
		const char *f = path_filename(m.name, m.name_len, &flen);
		bool oom = false;

		if (m.thin || (m.size >= 8 && ccob_is(data, (size_t)m.size)))
			continue;
		/* A member that is no bundle, or a damaged one, is passed
		 * over (LLVM checks only the bundles it can read); out of
		 * memory ends the check. */
		if (open_bundle(&b, data, (size_t)m.size, e) < 0) {
			if (e->code == ERR_NOMEM)
				return -1;
			continue;
		}
		while (bundle_next(&b, &ent) == 1) {
			char **more_ids = realloc(ids, (n + 1) * sizeof(*ids));

			if (more_ids)
				ids = more_ids;
			if (!more_ids ||
			    !(ids[n] = strndup(ent.id, ent.id_len))) {
				oom = true;
				break;
			}
			n++;
			bundle_skip(&b);
		}
		bundle_close(&b);
		if (oom)
			rc = err_nomem(e);
		else if (n)
			rc = each(ctx, f, flen, ids, n);
		for (size_t i = 0; i < n; i++)
			free(ids[i]);
		free(ids);
	}
	if (!rc && more < 0)
		return -1;
	return rc;
}

int devarchive_write(struct io_out *o, const struct devarchive_member *m,
		     size_t n, struct err *e)
{
	struct ar_new_member *am = calloc(n + 1, sizeof(*am));
	struct ar_piece *piece = calloc(n + 1, sizeof(*piece));
	struct ar_symlist *syms = calloc(n + 1, sizeof(*syms));
	struct ar_write_opts opt = {
		.flags = AR_WRITE_SYMTAB | AR_WRITE_DETERMINISTIC,
		.sym64_threshold = ar_sym64_threshold(getenv("SYM64_THRESHOLD")),
	};
	int rc = -1;

	if (!am || !piece || !syms) {
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (ar_member_symbols(m[i].data, m[i].len, &syms[i], e) < 0) {
			err_wrap(e, e->code, "'%.*s'", (int)strlen(m[i].name),
				 m[i].name);
			goto out;
		}
		piece[i] = (struct ar_piece){ m[i].data, m[i].len };
		am[i] = (struct ar_new_member){
			.name = m[i].name, .name_len = strlen(m[i].name),
			.piece = &piece[i], .npieces = 1,
			.symbolic = syms[i].symbolic, .syms = syms[i].syms,
			.syms_len = syms[i].len, .nsyms = syms[i].n,
			.ec = syms[i].ec,
		};
	}
	rc = ar_write(o, am, n, &opt, e);
out:
	for (size_t i = 0; syms && i < n; i++)
		ar_symlist_free(&syms[i]);
	free(syms);
	free(piece);
	free(am);
	return rc;
}

/* ---- offload packages ---- */

/* The images of the packages in buf[0, len) (a section, or a member that
 * is packages) handed to each; inflated ones copied to r's heap. */
static int member_packages(struct devarchive_reader *r, const uint8_t *buf,
			   size_t len,
			   int (*each)(void *, const struct devarchive_image *,
				       struct err *),
			   void *ctx, struct err *e)
{
	const struct package_limits lim = {
		.max_ratio = r->limits->max_ratio,
		.max_size = r->limits->max_size };
	struct package_list l = { 0 };
	int rc = -1;

	if (package_scan(buf, len, &lim, &l, e) < 0) {
		err_wrap(e, e->code, "member '%.*s'", (int)r->file_len,
			 r->file);
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		struct devarchive_image im = {
			.file = r->file, .file_len = r->file_len, .img = &l.v[i],
			.data = l.v[i].image, .len = (size_t)l.v[i].image_size,
		};

		if (l.v[i].inflated) {
			uint8_t *copy = malloc(im.len ? im.len : 1);

			if (!copy || keep_heap(r, copy) < 0) {
				free(copy);
				err_nomem(e);
				goto out;
			}
			memcpy(copy, im.data, im.len);
			im.data = copy;
		}
		if (each(ctx, &im, e) < 0)
			goto out;
	}
	rc = 0;
out:
	package_list_free(&l);
	return rc;
}

/* The packages of a bitcode member (clang -flto: its module's embedded
 * arrays) and of a COFF object's .llvm.offloading* sections, as LLVM 23's
 * extractOffloadBinaries reads them. */
struct more_packages {
	struct devarchive_reader *r;
	int (*each)(void *, const struct devarchive_image *, struct err *);
	void *ctx;
	const uint8_t *buf;
	struct err *e;
};

static int bitcode_packages(void *ctx, uint8_t *data, size_t len)
{
	struct more_packages *mp = ctx;

	if (keep_heap(mp->r, data) < 0) {
		free(data);
		return err_nomem(mp->e);
	}
	return member_packages(mp->r, data, len, mp->each, mp->ctx, mp->e);
}

static bool coff_offloading(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	return sections_coff_kind(name, len, false) == SECTION_OFFLOADING;
}

static int coff_packages(void *ctx, const struct coff_section *cs,
			 struct err *e)
{
	struct more_packages *mp = ctx;

	return member_packages(mp->r, mp->buf + cs->offset, (size_t)cs->size,
			       mp->each, mp->ctx, e);
}

int devarchive_images(struct devarchive_reader *r,
		      int (*each)(void *ctx, const struct devarchive_image *im,
				  struct err *e),
		      void *ctx, struct err *e)
{
	struct ar_member m;
	int more;

	while ((more = ar_next(&r->ar, &m, e)) == 1) {
		const uint8_t *data = r->ar.buf + m.offset;
		size_t len = (size_t)m.size;
		struct elfscan s;

		r->file = path_filename(m.name, m.name_len, &r->file_len);
		if (m.thin && open_thin(r, &m, &data, &len, e) < 0)
			return -1;
		struct more_packages mp = { r, each, ctx, data, e };
		enum host_format f;
		uint16_t machine;
		bool bigobj;

		if (!hosts_probe(data, len, &f))
			continue;
		/* What LLVM 23's extractOffloadBinaries reads, of each
		 * format: nothing of the others. */
		switch (hosts_get(f)->llvm) {
		case HOST_LLVM_CONTAINER:
			if (package_is(data, len) &&
			    member_packages(r, data, len, each, ctx, e) < 0)
				return -1;
			continue;
		case HOST_LLVM_BITCODE:
			if (bitcode_embedded_objects(data, len, bitcode_packages,
						     &mp, e) < 0)
				return err_wrap(e, ERR_OTHER, "member '%.*s'",
						(int)r->file_len, r->file);
			continue;
		case HOST_LLVM_COFF:	/* one LLVM's object reader takes */
			if (coff_is_object(data, len) &&
			    coff_sections(data, len, coff_offloading,
					  coff_packages, &mp, &machine, &bigobj,
					  e) < 0)
				return err_wrap(e, ERR_OTHER, "member '%.*s'",
						(int)r->file_len, r->file);
			continue;
		case HOST_LLVM_NONE:
		case HOST_LLVM_ARCHIVE:	/* no archive in an archive */
			continue;
		case HOST_LLVM_ELF:
			break;
		}
		if (elfscan_open(&s, data, len, e) < 0)
			return err_wrap(e, e->code, "member '%.*s'",
					(int)r->file_len, r->file);
		for (size_t i = 1; i < s.n; i++) {
			uint64_t size;
			const uint8_t *bytes;

			if (s.sec[i].type != SECTION_TYPE_LLVM_OFFLOADING)
				continue;
			bytes = elfscan_bytes(&s, data, i, &size);
			if (member_packages(r, bytes, (size_t)size, each, ctx,
					    e) < 0) {
				elfscan_free(&s);
				return -1;
			}
		}
		elfscan_free(&s);
	}
	return more;
}
