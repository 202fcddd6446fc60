/* bundler_archive: --unbundle -type=a, as LLVM 22 does it: every bundle
 * entry of every archive member goes to the device archive of each
 * requested target it is compatible with (the command line is in
 * bundler.c, the formats in formats/ar.c and formats/bundle*.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundler.h"
#include "../core/io.h"
#include "../core/target.h"
#include "../core/targetid.h"
#include "../formats/ar.h"
#include "../formats/bundle.h"
#include "../formats/ccob.h"
#include "../formats/magic.h"

/* A member of an output archive: its name and where its bytes are (in the
 * input, a decompressed member, or a stripped host object). */
struct out_member {
	char *name;
	const uint8_t *data;
	size_t len;
};

struct device_archive {
	struct out_member *m;
	size_t n, cap;
};

/* What must stay alive until the archives are written. */
struct keep {
	uint8_t **heap;
	struct io_out *scratch;
	struct io_in *views;
	size_t nheap, nscratch;
};

static int keep_heap(struct keep *k, uint8_t *p)
{
	uint8_t **h = realloc(k->heap, (k->nheap + 1) * sizeof(*h));

	if (!h)
		return -1;
	k->heap = h;
	k->heap[k->nheap++] = p;
	return 0;
}

static void keep_free(struct keep *k)
{
	for (size_t i = 0; i < k->nheap; i++)
		free(k->heap[i]);
	for (size_t i = 0; i < k->nscratch; i++) {
		io_in_close(&k->views[i]);
		io_out_discard(&k->scratch[i]);
	}
	free(k->heap);
	free(k->scratch);
	free(k->views);
}

/* The object without its bundle sections, in a scratch file kept mapped. */
static int strip_host(struct keep *k, const uint8_t *obj, size_t len,
		      const uint8_t **out, size_t *out_len, struct err *e)
{
	struct io_out *s = realloc(k->scratch, (k->nscratch + 1) * sizeof(*s));
	struct io_in *v;

	if (!s)
		return err_set(e, "out of memory");
	k->scratch = s;
	v = realloc(k->views, (k->nscratch + 1) * sizeof(*v));
	if (!v)
		return err_set(e, "out of memory");
	k->views = v;
	s = &k->scratch[k->nscratch];
	v = &k->views[k->nscratch];
	*s = (struct io_out){ .fd = -1 };
	*v = (struct io_in){ .fd = -1 };
	if (io_scratch_open(s, e) < 0)
		return -1;
	k->nscratch++;
	if (bundle_strip_object(obj, len, s, e) < 0 || io_scratch_map(s, v, e) < 0)
		return -1;
	*out = v->data;
	*out_len = v->len;
	return 0;
}

/* LLVM's sys::path::filename, stem and extension. */
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

static size_t stem_len(const char *f, size_t len)
{
	const char *dot = memrchr(f, '.', len);

	if (!dot || (len == 1 && f[0] == '.') ||
	    (len == 2 && f[0] == '.' && f[1] == '.'))
		return len;
	return (size_t)(dot - f);
}

/* "<stem>-<entry ID><stem><ext>" with every ':' made '_': ext is .bc for
 * an AMD GPU target ID, .cubin for an NVIDIA one, else the member's. */
static char *member_name(const char *file, size_t file_len, const char *id,
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

static int add_member(struct device_archive *a, char *name, const uint8_t *data,
		      size_t len)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 8;
		struct out_member *m = realloc(a->m, cap * sizeof(*m));

		if (!m)
			return -1;
		a->m = m;
		a->cap = cap;
	}
	a->m[a->n++] = (struct out_member){ name, data, len };
	return 0;
}

/* A CCOB member decompressed, as LLVM reads one: a single CCOB (zstd
 * refuses bytes after it, zlib ignores them); the hash is checked. */
static int decompress_member(const struct config *c, struct keep *k,
			     const uint8_t **data, size_t *len)
{
	struct ccob_header h;
	uint8_t *raw;
	size_t used;
	struct err e;

	if (ccob_parse_header(*data, *len, &h, &e) < 0 ||
	    ccob_decompress(*data, *len, &h, &c->limits, &raw, &used, &e) < 0)
		return bundler_fail("Failed to decompress code object: %s", e.msg);
	if (keep_heap(k, raw) < 0) {
		free(raw);
		return bundler_fail("out of memory");
	}
	if (used < *len && h.method != CCOB_ZLIB)
		return bundler_fail("Failed to decompress code object: Could not "
			    "decompress embedded file contents: Src size is "
			    "incorrect");
	if (ccob_hash(raw, (size_t)h.raw_size) != h.hash)
		return bundler_fail("'%s': a compressed member's hash does not "
			    "match its contents", c->inputs[0]);
	*data = raw;
	*len = (size_t)h.raw_size;
	return 0;
}

/* Objects get the object layout, anything else the binary one. */
static int open_member(struct bundle_reader *r, const uint8_t *data, size_t len,
		       struct err *e)
{
	if (magic_is_object(data, len))
		return bundle_open_object(r, data, len, e);
	return bundle_open_binary(r, data, len, e);
}

/* Every entry of one member, to every compatible requested target. */
static int unbundle_member(const struct config *c, const struct target *req,
			   struct device_archive *out, struct keep *k,
			   const char *file, size_t file_len,
			   const uint8_t *data, size_t len)
{
	struct bundle_reader r;
	struct bundle_entry ent;
	struct err e;
	int rc = 1;

	if (len >= 8 && ccob_is(data, len) &&
	    decompress_member(c, k, &data, &len))
		return 1;
	if (open_member(&r, data, len, &e) < 0)
		return bundler_fail("'%s': member '%.*s': %s", c->inputs[0],
			    (int)file_len, file, e.msg);
	while (bundle_next(&r, &ent) == 1) {
		struct target got;
		uint64_t off, size;
		const uint8_t *bytes;
		size_t nbytes;

		if (target_parse(&got, ent.id, ent.id_len) < 0) {
			bundler_fail("Invalid bundle id read from code object");
			goto out;
		}
		if (bundle_content(&r, &off, &size, &e) < 0) {
			target_free(&got);
			bundler_fail("'%s': member '%.*s': %s", c->inputs[0],
				     (int)file_len, file, e.msg);
			goto out;
		}
		bytes = data + off;
		nbytes = (size_t)size;
		for (size_t i = 0; i < c->ntargets; i++) {
			char *name;

			if (!target_compatible(&got, &req[i], c->hip_openmp))
				continue;
			if (r.object && bundle_object_is_host(data, off, size) &&
			    bytes == data + off &&
			    strip_host(k, data, len, &bytes, &nbytes, &e) < 0) {
				target_free(&got);
				bundler_fail("'%s': member '%.*s': %s", c->inputs[0],
					     (int)file_len, file, e.msg);
				goto out;
			}
			name = member_name(file, file_len, ent.id, ent.id_len,
					   got.tid);
			if (!name || add_member(&out[i], name, bytes, nbytes) < 0) {
				free(name);
				target_free(&got);
				bundler_fail("out of memory");
				goto out;
			}
		}
		target_free(&got);
	}
	rc = 0;
out:
	bundle_close(&r);
	return rc;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* -check-input-archive: the bundle IDs of each member (CCOBs unread), as
 * full IDs whose part before the first ':' stands for the processor, must
 * not conflict. */
static int check_member(const struct config *c, const char *file,
			size_t file_len, const uint8_t *data, size_t len)
{
	struct bundle_reader r;
	struct bundle_entry ent;
	struct err e;
	char **ids = NULL;
	size_t n = 0, m = 0, a, b;
	int rc = 0;

	if ((len >= 8 && ccob_is(data, len)) || open_member(&r, data, len, &e) < 0)
		return 0;
	while (!rc && bundle_next(&r, &ent) == 1) {
		char **more = realloc(ids, (n + 1) * sizeof(*ids));

		if (!more || !(more[n] = strndup(ent.id, ent.id_len))) {
			ids = more ? more : ids;
			rc = bundler_fail("out of memory");
			break;
		}
		ids = more;
		n++;
		bundle_skip(&r);
	}
	bundle_close(&r);
	if (!rc && n) {
		qsort(ids, n, sizeof(*ids), by_string);
		for (size_t i = 0; i < n; i++)
			if (!m || strcmp(ids[m - 1], ids[i]))
				ids[m++] = ids[i];
			else
				free(ids[i]);
		if (targetid_conflict((const char *const *)ids, m, &a, &b))
			rc = bundler_fail("conflicting TargetIDs [%s, %s] found in "
				    "%.*s of %s", ids[a], ids[b], (int)file_len,
				    file, c->inputs[0]);
		n = m;
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return rc;
}

/* The device archive for one target, with the symbol table LLVM's writer
 * builds from its ELF and bitcode members. */
static int write_device_archive(const char *path, const struct device_archive *a)
{
	struct ar_new_member *m = calloc(a->n + 1, sizeof(*m));
	struct ar_piece *piece = calloc(a->n + 1, sizeof(*piece));
	struct ar_symlist *syms = calloc(a->n + 1, sizeof(*syms));
	struct ar_write_opts opt = {
		.flags = AR_WRITE_SYMTAB | AR_WRITE_DETERMINISTIC,
		.sym64_threshold = ar_sym64_threshold(getenv("SYM64_THRESHOLD")),
	};
	struct io_out out = { .fd = -1 };
	struct err e;
	int rc = 1;

	if (!m || !piece || !syms) {
		bundler_fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < a->n; i++) {
		if (ar_member_symbols(a->m[i].data, a->m[i].len, &syms[i], &e) < 0) {
			bundler_fail("'%s': %s", a->m[i].name, e.msg);
			goto out;
		}
		piece[i] = (struct ar_piece){ a->m[i].data, a->m[i].len };
		m[i] = (struct ar_new_member){
			.name = a->m[i].name, .name_len = strlen(a->m[i].name),
			.piece = &piece[i], .npieces = 1,
			.symbolic = syms[i].symbolic, .syms = syms[i].syms,
			.syms_len = syms[i].len, .nsyms = syms[i].n,
		};
	}
	if (io_out_open(&out, path, &e) < 0 ||
	    ar_write(&out, m, a->n, &opt, &e) < 0 ||
	    io_out_commit(&out, &e) < 0) {
		bundler_fail("%s", e.msg);
		goto out;
	}
	rc = 0;
out:
	io_out_discard(&out);
	for (size_t i = 0; syms && i < a->n; i++)
		ar_symlist_free(&syms[i]);
	free(syms);
	free(piece);
	free(m);
	return rc;
}

int bundler_unbundle_archive(const struct config *c)
{
	struct target *req = calloc(c->ntargets + 1, sizeof(*req));
	struct device_archive *out = calloc(c->ntargets + 1, sizeof(*out));
	struct keep k = { 0 };
	struct io_in in = { .fd = -1 };
	struct ar_reader r;
	struct ar_member am;
	struct err e;
	int rc = 1, more;

	if (!req || !out) {
		bundler_fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->ntargets; i++)
		if (target_parse(&req[i], c->std_targets[i],
				 strlen(c->std_targets[i])) < 0) {
			bundler_fail("invalid bundle id from bundle config");
			goto out;
		}
	if (io_in_open(&in, c->inputs[0], &e) < 0) {
		bundler_fail("%s", e.msg);
		goto out;
	}
	if (ar_open(&r, in.data, in.len, &e) < 0) {
		bundler_fail("%s", e.msg);
		goto out;
	}
	if (c->check_archive) {
		struct ar_reader check = r;

		while ((more = ar_next(&check, &am, &e)) == 1) {
			size_t flen;
			const char *f = path_filename(am.name, am.name_len, &flen);

			if (!am.thin && check_member(c, f, flen, in.data + am.offset,
						     (size_t)am.size))
				goto out;
		}
		if (more < 0) {
			bundler_fail("'%s': %s", c->inputs[0], e.msg);
			goto out;
		}
	}
	while ((more = ar_next(&r, &am, &e)) == 1) {
		size_t flen;
		const char *f = path_filename(am.name, am.name_len, &flen);

		if (am.thin) {
			bundler_fail("'%s': thin archives are not supported",
				     c->inputs[0]);
			goto out;
		}
		if (unbundle_member(c, req, out, &k, f, flen, in.data + am.offset,
				    (size_t)am.size))
			goto out;
	}
	if (more < 0) {
		bundler_fail("'%s': %s", c->inputs[0], e.msg);
		goto out;
	}
	/* Only when every archive can be written is any of them. */
	for (size_t i = 0; i < c->ntargets; i++)
		if (!out[i].n && !c->allow_missing) {
			bundler_fail("no compatible code object found for the target "
				     "'%s' in heterogeneous archive library: %s",
				     c->std_targets[i], c->inputs[0]);
			goto out;
		}
	for (size_t i = 0; i < c->ntargets; i++)
		if (write_device_archive(c->outputs[i], &out[i]))
			goto out;
	rc = 0;
out:
	for (size_t i = 0; out && i < c->ntargets; i++) {
		for (size_t j = 0; j < out[i].n; j++)
			free(out[i].m[j].name);
		free(out[i].m);
	}
	for (size_t i = 0; req && i < c->ntargets; i++)
		target_free(&req[i]);
	free(req);
	free(out);
	keep_free(&k);
	io_in_close(&in);
	return rc;
}
