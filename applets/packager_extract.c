/* packager_extract: llvm-offload-binary's extraction, as LLVM 22 and 23 do
 * it: gather every offload binary of the input (a package, an ELF object,
 * LLVM bitcode, or an archive of any of these, archives within archives
 * included), then write what each --image selects: to generated names, to
 * its file=, or into a GNU archive at its file= (--archive).  LLVM 23
 * also extracts everything when no --image is given, says "Extracted:"
 * for each generated name, extracts the images of a package inside an
 * image, and matches member=NAME against where an image came from.  The
 * command line is in packager.c, the formats in formats/. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_args.h"
#include "llvmtool.h"
#include "packager_extract.h"
#include "../core/elfscan.h"
#include "../core/sections.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../formats/ar.h"
#include "../formats/ar_write.h"
#include "../formats/ar_symbols.h"
#include "../formats/bitcode_embed.h"
#include "../formats/coff.h"
#include "../formats/magic.h"
#include "../ops/hosts.h"

/* Archives in archives deeper than this are refused (LLVM recurses on). */
enum { MAX_NESTING = 64 };

/* Where an image found in the input came from. */
struct origin {
	/* The file its bytes can be copied from, in the kernel, and where
	 * the bytes scanned for it start there; NULL when they are only in
	 * memory (decoded from bitcode). */
	const struct io_in *in;
	uint64_t base;
	/* LLVM's buffer identifier: the input path or the archive member's
	 * name, which --archive stores as the member name. */
	const char *name;
	size_t name_len;
};

struct found {
	struct package_list list;
	struct origin *at;	/* one per image of list */
	struct io_in **files;	/* thin archives' members, kept open, and */
	char **paths;		/* their paths (io_in's messages use them) */
	size_t nfiles;
	uint8_t **heap;		/* offload data decoded from bitcode */
	size_t nheap;
};

/* What is being read: for messages, for thin archives' members, and for
 * the images found in it. */
struct scope {
	const struct io_in *in;	/* the file holding it, or NULL */
	uint64_t base;		/* where it starts in that file */
	const char *name;	/* its buffer identifier */
	size_t name_len;
	const char *where;	/* "'<input>'", "'<input>': member '<name>'" */
	const char *top;	/* "'<input>'" */
	unsigned depth;		/* archives it is inside */
	const struct package_limits *lim;
};

static void found_free(struct found *f)
{
	package_list_free(&f->list);
	free(f->at);
	for (size_t i = 0; i < f->nfiles; i++) {
		io_in_close(f->files[i]);
		free(f->files[i]);
		free(f->paths[i]);
	}
	free(f->files);
	free(f->paths);
	for (size_t i = 0; i < f->nheap; i++)
		free(f->heap[i]);
	free(f->heap);
}

/* Every offload binary of buf (a package, a section's bytes, data from
 * bitcode), at base in s->in when buf is there. */
static int scan(const struct scope *s, const uint8_t *buf, size_t len,
		uint64_t base, const char *section, struct found *f)
{
	size_t first = f->list.n;
	struct origin *grown;
	struct err e;

	if (package_scan(buf, len, s->lim, &f->list, &e) < 0) {
		if (package_err_is_llvm(&e))
			return llvm_fail("%s", e.msg);
		if (section)
			return llvm_fail("%s: section '%s': %s", s->where,
					     section, e.msg);
		return llvm_fail("%s: %s", s->where, e.msg);
	}
	grown = realloc(f->at, (f->list.n + 1) * sizeof(*grown));
	if (!grown)
		return llvm_fail("out of memory");
	f->at = grown;
	for (size_t i = first; i < f->list.n; i++)
		f->at[i] = (struct origin){ s->in, base, s->name, s->name_len };
	return 0;
}

/* LLVM 22 reads the sections of type SHT_LLVM_OFFLOADING, whatever their
 * name (a .llvm.offloading of another type is not one), in section order;
 * `ld -r` leaves the packages of all its inputs end to end in one. */
static int scan_elf(const struct scope *s, const uint8_t *buf, size_t len,
		    struct found *f)
{
	struct elfscan es;
	struct err e;
	int rc = 0;

	if (elfscan_open(&es, buf, len, &e) < 0)
		return llvm_fail("%s: %s", s->where, e.msg);
	for (size_t i = 0; i < es.n && !rc; i++) {
		const uint8_t *bytes;
		uint64_t size;

		if (es.sec[i].type != SECTION_TYPE_LLVM_OFFLOADING)
			continue;
		bytes = elfscan_bytes(&es, buf, i, &size);
		rc = scan(s, bytes, (size_t)size, s->base + es.sec[i].offset,
			  es.sec[i].name, f);
	}
	elfscan_free(&es);
	return rc;
}

/* COFF has no section types: LLVM 22 reads every section whose name
 * starts with .llvm.offloading. */
struct coff_ctx {
	const struct scope *s;
	const uint8_t *buf;
	struct found *f;
	bool reported;		/* scan failed, and said so */
};

static bool coff_offloading(void *ctx, const char *name, size_t name_len)
{
	(void)ctx;
	return sections_coff_kind(name, name_len, false) == SECTION_OFFLOADING;
}

static int scan_coff_section(void *ctx, const struct coff_section *sec,
			     struct err *e)
{
	struct coff_ctx *c = ctx;
	char shown[64];

	(void)e;
	snprintf(shown, sizeof(shown), "%.*s", (int)sec->name_len, sec->name);
	/* scan has reported its failure: stop the walk, noted. */
	if (scan(c->s, c->buf + sec->offset, (size_t)sec->size,
		 c->s->base + sec->offset, shown, c->f)) {
		c->reported = true;
		return -1;
	}
	return 0;
}

static int scan_coff(const struct scope *s, const uint8_t *buf, size_t len,
		     struct found *f)
{
	struct coff_ctx c = { s, buf, f, false };
	struct err e;
	uint16_t machine;
	bool bigobj;

	if (coff_sections(buf, len, coff_offloading, scan_coff_section, &c,
			  &machine, &bigobj, &e) == 0)
		return 0;
	return c.reported ? 1 : llvm_fail("%s: %s", s->where, e.msg);
}

/* The offload data a bitcode module embeds (what clang -flto puts in
 * @llvm.embedded.object), decoded into memory. */
struct bitcode_ctx {
	const struct scope *s;
	struct found *f;
};

static int scan_embedded(void *ctx, uint8_t *data, size_t len)
{
	struct bitcode_ctx *c = ctx;
	uint8_t **grown = realloc(c->f->heap,
				  (c->f->nheap + 1) * sizeof(*grown));
	struct scope mem = *c->s;

	if (!grown) {
		free(data);
		return llvm_fail("out of memory");
	}
	c->f->heap = grown;
	c->f->heap[c->f->nheap++] = data;
	mem.in = NULL;
	return scan(&mem, data, len, 0, NULL, c->f);
}

static int scan_bitcode(const struct scope *s, const uint8_t *buf, size_t len,
			struct found *f)
{
	struct bitcode_ctx c = { s, f };
	struct err e;
	int rc = bitcode_embedded_objects(buf, len, scan_embedded, &c, &e);

	if (rc < 0)
		return llvm_fail("%s: %s", s->where, e.msg);
	return rc;
}

static int find_in(const struct scope *s, const uint8_t *buf, size_t len,
		   struct found *f);

/* A thin archive's member is the file its name names, beside the archive
 * (LLVM: parent_path of the archive's identifier, then the name) unless
 * the name is absolute. */
static char *thin_path(const struct scope *s, const struct ar_member *m)
{
	const char *slash = memrchr(s->name, '/', s->name_len);
	size_t dir = slash ? (size_t)(slash - s->name) : 0;
	const char *sep = dir ? "/" : "";
	char *path;

	if (m->name_len && m->name[0] == '/')
		dir = 0, sep = "";
	else if (slash && !dir)
		dir = 1;	/* parent_path("/x.a") is "/" */
	if (asprintf(&path, "%.*s%s%.*s", (int)dir, s->name, sep,
		     (int)m->name_len, m->name) < 0)
		return NULL;
	return path;
}

static int scan_member(const struct scope *s, const struct ar_reader *r,
		       const struct ar_member *m, struct found *f)
{
	struct scope child = *s;
	struct io_in *file = NULL;
	const uint8_t *data = r->buf + m->offset;
	size_t len = (size_t)m->size, first;
	char *where = NULL, *path = NULL;
	struct err e;
	int rc = 1;

	if (asprintf(&where, "%s: member '%.*s'", s->where, (int)m->name_len,
		     m->name) < 0) {
		where = NULL;
		llvm_fail("out of memory");
		goto out;
	}
	child.where = where;
	child.name = m->name;
	child.name_len = m->name_len;
	child.depth = s->depth + 1;
	child.base = s->base + m->offset;
	if (m->thin) {
		struct io_in **grown = realloc(f->files,
					       (f->nfiles + 1) * sizeof(*grown));
		char **more = realloc(f->paths, (f->nfiles + 1) * sizeof(*more));

		if (grown)
			f->files = grown;
		if (more)
			f->paths = more;
		path = thin_path(s, m);
		if ((file = malloc(sizeof(*file))) != NULL)
			*file = (struct io_in){ .fd = -1 };
		if (!grown || !more || !path || !file) {
			llvm_fail("out of memory");
			goto out;
		}
		if (io_in_open(file, path, &e) < 0) {
			llvm_fail("%s", e.msg);
			goto out;
		}
		child.in = file;
		child.base = 0;
		data = file->data;
		len = file->len;
	}
	first = f->list.n;
	rc = find_in(&child, data, len, f);
	/* A member file stays open (and mapped) only while images of it are
	 * to be written: a thin archive of many objects holds few. */
	if (file && f->list.n > first) {
		f->files[f->nfiles] = file;
		f->paths[f->nfiles++] = path;
		file = NULL;
		path = NULL;
	}
out:
	if (file)
		io_in_close(file);
	free(file);
	free(path);
	free(where);
	return rc;
}

/* Every member in archive order, as LLVM's extractFromArchive. */
static int scan_archive(const struct scope *s, const uint8_t *buf, size_t len,
			struct found *f)
{
	struct ar_reader r;
	struct ar_member m;
	struct err e;
	int more;

	if (s->depth >= MAX_NESTING)
		return llvm_fail("%s: archives nested more than %d deep",
				     s->top, MAX_NESTING);
	if (ar_open(&r, buf, len, &e) < 0)
		return llvm_fail("%s: %s", s->where, e.msg);
	while ((more = ar_next(&r, &m, &e)) == 1)
		if (scan_member(s, &r, &m, f))
			return 1;
	if (more < 0)
		return llvm_fail("%s: %s", s->where, e.msg);
	return 0;
}

/* By the magic, as LLVM's extractOffloadBinaries; anything else holds no
 * offload binary, for LLVM too.  Through the table of host formats
 * (ops/hosts.h), with LLVM's identify_magic where it takes other files:
 * an ELF file only of an object's types, and two zero bytes (a COFF
 * object's machine, unknown) a COFF object even when it does not read
 * as one, which LLVM's reader then says in its words. */
static int find_in(const struct scope *s, const uint8_t *buf, size_t len,
		   struct found *f)
{
	enum host_format h;

	if (!hosts_probe(buf, len, &h))
		return coff_has_magic(buf, len) ? scan_coff(s, buf, len, f) : 0;
	switch (hosts_get(h)->llvm) {
	case HOST_LLVM_ELF:
		return magic_is_elf_object(buf, len) ? scan_elf(s, buf, len, f)
						     : 0;
	case HOST_LLVM_COFF:
		return scan_coff(s, buf, len, f);
	case HOST_LLVM_BITCODE:
		return scan_bitcode(s, buf, len, f);
	case HOST_LLVM_ARCHIVE:
		return scan_archive(s, buf, len, f);
	case HOST_LLVM_CONTAINER:
		return package_is(buf, len) ? scan(s, buf, len, s->base, NULL, f)
					    : 0;
	case HOST_LLVM_NONE:
		return 0;
	}
	return 0;
}

/* The last component of an LLVM buffer identifier (sys::path::filename). */
static void id_filename(const struct origin *at, const char **name,
			size_t *len)
{
	const char *s = at->name, *end = at->name + at->name_len;

	for (const char *p = s; p < end; p++)
		if (*p == '/')
			s = p + 1;
	*name = s;
	*len = (size_t)(end - s);
}

/* Every key of the filter must match: "file" is where to write, "kind" the
 * offload kind by name, "member" (LLVM 23) the last component of where it
 * came from (an archive member's name, the input's), any other key a
 * string (absent reads as ""). */
static bool matches(const struct image_args *a, const struct package_image *img,
		    const struct origin *at, bool llvm23)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct image_arg *arg = &a->v[i];
		const char *v;
		size_t vlen = 0;

		if (image_arg_is(arg, "file"))
			continue;
		if (image_arg_is(arg, "kind")) {
			if (img->offload_kind !=
			    package_offload_kind_from_name(arg->value,
							   arg->value_len))
				return false;
			continue;
		}
		if (llvm23 && image_arg_is(arg, "member")) {
			id_filename(at, &v, &vlen);
			if (vlen != arg->value_len ||
			    memcmp(v, arg->value, vlen))
				return false;
			continue;
		}
		v = package_get(img, arg->key, arg->key_len, &vlen);
		if (vlen != arg->value_len || (vlen && memcmp(v, arg->value, vlen)))
			return false;
	}
	return true;
}

/* Write len bytes from memory to path. */
static int write_bytes(const char *path, const uint8_t *data, uint64_t len)
{
	struct io_out out;
	struct err e;

	if (!strcmp(path, "-"))
		fflush(stdout);		/* "Extracted:" lines first */
	if (io_out_open_replace(&out, path, &e) < 0)
		return llvm_fail("%s", llvm_why(&e, path));
	if (io_out_write(&out, data, (size_t)len, &e) < 0 ||
	    io_out_commit(&out, &e) < 0) {
		io_out_discard(&out);
		return llvm_fail("%s", llvm_why(&e, path));
	}
	return 0;
}

static int extract_to(const char *path, const struct found *f, size_t i)
{
	const struct package_image *img = &f->list.v[i];
	const struct origin *at = &f->at[i];
	struct io_out out;
	struct err e;
	bool in_place;
	int rc;

	if (!strcmp(path, "-"))
		fflush(stdout);		/* "Extracted:" lines first */
	if (io_out_open_replace(&out, path, &e) < 0)
		return llvm_fail("%s", llvm_why(&e, path));
	in_place = !io_out_seekable(&out);
	if (img->inflated || !at->in)
		rc = io_out_write(&out, img->image, (size_t)img->image_size, &e);
	else
		rc = io_out_copy(&out, at->in, at->base + img->image_offset,
				 img->image_size, &e);
	if (rc < 0 || io_out_commit(&out, &e) < 0) {
		io_out_discard(&out);
		return llvm_fail_write(&e, path, in_place);
	}
	return 0;
}

/* "<input stem>-<triple>-<arch>.<n>.<kind's extension>", in the current
 * directory, as LLVM 22 names what it extracts (the stem is the input's,
 * also for what comes from its archive members); LLVM 23 leaves out
 * "-<arch>" when the arch is empty. */
static char *generated_name(const char *input, const struct package_image *img,
			    size_t n, bool llvm23)
{
	size_t tlen = 0, alen = 0;
	const char *triple = package_get(img, "triple", 6, &tlen);
	const char *arch = package_get(img, "arch", 4, &alen);
	const char *ext = package_image_kind_ext(img->image_kind,
						 llvm23);
	char *base = llvm_path_stem(input), *name;
	size_t len;

	if (!base)
		return NULL;
	len = strlen(base) + tlen + alen + strlen(ext) + 32;
	name = malloc(len);
	if (name)
		snprintf(name, len, "%s-%.*s%s%.*s.%zu.%s", base, (int)tlen,
			 triple ? triple : "",
			 alen || !llvm23 ? "-" : "", (int)alen,
			 arch ? arch : "", n, ext);
	free(base);
	return name;
}

/* A generated name holds the image's triple and arch, which the input
 * chooses: with a '/' in them it names a file in another directory, and
 * LLVM 22 writes there, through "..", leaving the current directory.  Such
 * a name is refused when the directory it lands in is not the current one
 * or beneath it (a symbolic link followed); where the directory does not
 * exist the write fails as LLVM's does. */
static int leaves_cwd(const char *name)
{
	char *copy = strdup(name), *dir = NULL, *here = NULL;
	size_t n;
	int out = 0;

	if (!copy)
		return llvm_fail("out of memory");
	dir = realpath(dirname(copy), NULL);
	here = dir ? realpath(".", NULL) : NULL;
	n = here ? strlen(here) : 0;
	if (dir && here && strcmp(here, "/") &&
	    (strncmp(dir, here, n) || (dir[n] && dir[n] != '/')))
		out = llvm_fail("'%s': the name the input gives this image "
				    "leads out of the current directory", name);
	free(here);
	free(dir);
	free(copy);
	return out;
}

/* --archive: the images as members of a GNU archive, each named by where
 * it came from, with the symbol table LLVM's writer builds from the ELF
 * and bitcode ones; deterministic, as LLVM writes it. */
static int write_archive(const char *path, const struct found *f,
			 const size_t *hit, size_t nhit)
{
	struct ar_new_member *m = calloc(nhit + 1, sizeof(*m));
	struct ar_piece *piece = calloc(nhit + 1, sizeof(*piece));
	struct ar_symlist *syms = calloc(nhit + 1, sizeof(*syms));
	struct ar_write_opts opt = {
		.flags = AR_WRITE_SYMTAB | AR_WRITE_DETERMINISTIC,
		.sym64_threshold = ar_sym64_threshold(getenv("SYM64_THRESHOLD")),
	};
	struct io_out out = { .fd = -1 };
	bool in_place;
	/* LLVM's archive writer knows no "-": it makes a file of that name. */
	const char *dest = strcmp(path, "-") ? path : "./-";
	struct err e;
	int rc = 1;

	if (!m || !piece || !syms) {
		llvm_fail("out of memory");
		goto out;
	}
	for (size_t k = 0; k < nhit; k++) {
		const struct package_image *img = &f->list.v[hit[k]];
		const struct origin *at = &f->at[hit[k]];
		int got = ar_member_symbols(img->image, (size_t)img->image_size,
					    &syms[k], &e);

		if (got < 0) {
			/* Bitcode LLVM cannot read (from a newer LLVM, it
			 * guesses) is stored without symbols, with a
			 * warning; other objects, and bitcode LLVM reads
			 * but we cannot list, are errors. */
			if (got == AR_SYMBOLS_UNSUPPORTED ||
			    !magic_is_bitcode(img->image,
					      (size_t)img->image_size)) {
				llvm_fail("'%s': member %zu ('%.*s'): %s",
					      path, k, (int)at->name_len,
					      at->name, e.msg);
				goto out;
			}
			llvm_warn_plain("'%.*s': %s", (int)at->name_len,
					    at->name, e.msg);
			syms[k] = (struct ar_symlist){ 0 };
		}
		piece[k] = (struct ar_piece){ img->image, (size_t)img->image_size };
		m[k] = (struct ar_new_member){
			.name = at->name, .name_len = at->name_len,
			.piece = &piece[k], .npieces = 1,
			.symbolic = syms[k].symbolic, .syms = syms[k].syms,
			.syms_len = syms[k].len, .nsyms = syms[k].n,
		};
	}
	if (io_out_open_replace(&out, dest, &e) < 0) {
		llvm_fail("%s", llvm_why(&e, dest));
		goto out;
	}
	in_place = !io_out_seekable(&out);
	if (ar_write(&out, m, nhit, &opt, &e) < 0 ||
	    io_out_commit(&out, &e) < 0) {
		llvm_fail_write(&e, dest, in_place);
		goto out;
	}
	rc = 0;
out:
	io_out_discard(&out);
	for (size_t k = 0; syms && k < nhit; k++)
		ar_symlist_free(&syms[k]);
	free(syms);
	free(piece);
	free(m);
	return rc;
}

/* LLVM 23's extractBinary: an image that is itself an offload package is
 * not written, the images in it are (recursively); the others go to
 * generated names numbered on from *n, each announced on stdout.  from, when
 * not NULL, is where in f the image is (else it is only in memory). */
static int extract_binary(const char *input, const struct found *f,
			  const size_t *from, const struct package_image *img,
			  const struct package_limits *lim, size_t *n,
			  unsigned depth)
{
	char *name;
	int rc;

	if (package_is(img->image, (size_t)img->image_size)) {
		struct package_list inner = { 0 };
		struct err e;

		if (depth >= MAX_NESTING)
			return llvm_fail("'%s': packages nested more than %d "
					 "deep", input, MAX_NESTING);
		if (package_scan(img->image, (size_t)img->image_size, lim,
				 &inner, &e) < 0) {
			package_list_free(&inner);
			return package_err_is_llvm(&e)
				? llvm_fail("%s", e.msg)
				: llvm_fail("'%s': a package inside an image: %s",
					    input, e.msg);
		}
		rc = 0;
		for (size_t k = 0; k < inner.n && !rc; k++)
			rc = extract_binary(input, f, NULL, &inner.v[k], lim, n,
					    depth + 1);
		package_list_free(&inner);
		return rc;
	}
	name = generated_name(input, img, (*n)++, lim->llvm23);
	if (!name)
		return llvm_fail("out of memory");
	rc = strchr(name, '/') ? leaves_cwd(name) : 0;
	if (!rc)
		rc = from ? extract_to(name, f, *from)
			  : write_bytes(name, img->image, img->image_size);
	if (!rc)
		printf("Extracted: %s\n", name);
	free(name);
	return rc;
}

static int extract_one(const char *input, const char *spec, bool archive,
		       const struct found *f, const struct package_limits *lim)
{
	struct image_args a;
	const struct image_arg *file;
	size_t *hit = calloc(f->list.n + 1, sizeof(*hit)), nhit = 0;
	int rc = 0;

	if (!hit || image_args_parse(spec, lim->llvm23, &a) < 0) {
		free(hit);
		return llvm_fail("out of memory");
	}
	for (size_t i = 0; i < f->list.n; i++)
		if (matches(&a, &f->list.v[i], &f->at[i], lim->llvm23))
			hit[nhit++] = i;
	file = image_arg(&a, "file");
	if (!nhit) {
		/* Nothing to do. */
	} else if (archive) {
		rc = file ? write_archive(file->value, f, hit, nhit)
			  : llvm_fail("Image must have a 'file' argument.");
	} else if (file) {
		if (nhit > 1)
			llvm_warn("Multiple inputs match to a single file, "
				      "'%s'", file->value);
		rc = extract_to(file->value, f, hit[nhit - 1]);
	} else if (lim->llvm23) {
		size_t n = 0;

		for (size_t k = 0; k < nhit && !rc; k++)
			rc = extract_binary(input, f, &hit[k],
					    &f->list.v[hit[k]], lim, &n, 0);
	} else {
		for (size_t k = 0; k < nhit && !rc; k++) {
			const struct package_image *img = &f->list.v[hit[k]];
			char *name = generated_name(input, img, k, lim->llvm23);

			if (!name)
				rc = llvm_fail("out of memory");
			else if (!(rc = strchr(name, '/') ? leaves_cwd(name) : 0))
				rc = extract_to(name, f, hit[k]);
			free(name);
		}
	}
	image_args_free(&a);
	free(hit);
	return rc;
}

int packager_extract(const char *input, const struct clopt *images,
		     bool archive, const struct package_limits *lim)
{
	struct io_in in;
	struct found f = { 0 };
	struct scope s = { 0 };
	struct err e;
	char *where = NULL;
	int rc;

	if (io_in_open(&in, input, &e) < 0)
		return llvm_fail("%s", e.msg);
	if (asprintf(&where, "'%s'", input) < 0) {
		io_in_close(&in);
		return llvm_fail("out of memory");
	}
	s = (struct scope){ &in, 0, input, strlen(input), where, where, 0, lim };
	/* Everything is read before anything is written, as in LLVM. */
	rc = find_in(&s, in.data, in.len, &f);
	if (!rc && !images->nlist && lim->llvm23) {
		/* LLVM 23: no --image extracts them all, numbered on. */
		size_t n = 0;

		for (size_t i = 0; i < f.list.n && !rc; i++)
			rc = extract_binary(input, &f, &i, &f.list.v[i], lim,
					    &n, 0);
	}
	for (size_t i = 0; i < images->nlist && !rc; i++)
		rc = extract_one(input, images->list[i], archive, &f, lim);
	found_free(&f);
	free(where);
	io_in_close(&in);
	return rc;
}
