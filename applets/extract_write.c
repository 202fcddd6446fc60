/* extract_write: extract's outputs: each entry's file, made beside its
 * final name and committed whole, and a CCOB's selected entries streamed
 * to theirs in one more pass over it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "applets.h"
#include "messages.h"
#include "selection.h"
#include "extract_impl.h"
#include "extract_write.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/strjoin.h"

/* The extension, from the code's first bytes, else from what the
 * container says. */
const char *extract_extension(const uint8_t *p, uint64_t len,
			      const char *image, size_t image_len)
{
	if (len >= 20 && !memcmp(p, "\x7f" "ELF", 4)) {
		unsigned machine = p[5] == 2 ? p[18] << 8 | p[19]
					     : p[19] << 8 | p[18];

		return machine == 224 ? "co" : machine == 190 ? "cubin" : "o";
	}
	if (len >= 4 && (!memcmp(p, "BC\xc0\xde", 4) ||
			 !memcmp(p, "\xde\xc0\x17\x0b", 4)))
		return "bc";
	if (len >= 4 && !memcmp(p, "\x50\xed\x55\xba", 4))
		return "fatbin";
	if (image && image_len == 3 && !memcmp(image, "ptx", 3))
		return "ptx";
	if (image && image_len == 5 && !memcmp(image, "spirv", 5))
		return "spv";
	return "bin";
}

/* Bytes that may stay in a file name; the rest (a NUL too) become '_'. */
static void make_safe(char *s, size_t len)
{
	for (; len--; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || (*s && strchr("-_.+=,", *s))))
			*s = '_';
}

const char *extract_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!strcmp(path, "-"))
		return "stdin";
	return slash && slash[1] ? slash + 1 : path;
}

/* file[.member...].N.ID.ext, with bytes unsafe in a name as '_' (file's
 * own only when it comes from inside a package or an image), cut to
 * fit 255 bytes (the ID gives way); malloc'd. */
char *extract_entry_name(const struct job *j, unsigned number, const char *id,
			size_t id_len, const char *ext)
{
	const char *base = extract_base_name(j->path);
	size_t cap = strlen(base) + id_len + 32, head = 0;
	char *name;

	for (unsigned d = 1; d <= j->depth; d++)
		cap += strlen(j->member[d]) + 1;
	if (!(name = malloc(cap)))
		return NULL;
	head += (size_t)snprintf(name, cap, "%s", base);
	for (unsigned d = 1; d <= j->depth; d++)
		head += (size_t)snprintf(name + head, cap - head, ".%s",
					 j->member[d]);
	head += (size_t)snprintf(name + head, cap - head, ".%u.", number);
	memcpy(name + head, id, id_len);
	name[head + id_len] = 0;
	/* (the file's own name as the user gave it; one from inside a
	 * package or an image is made safe as the rest is) */
	size_t keep = j->inner ? 0 : strlen(base);

	make_safe(name + keep, head + id_len - keep);
	if (strlen(name) > 250 - strlen(ext))
		name[250 - strlen(ext)] = 0;
	strcat(name, ".");
	strcat(name, ext);
	return name;
}

int extract_cmp_claim(const void *pa, const void *pb)
{
	const struct claim *a = pa, *b = pb;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
}

int extract_fail_record(const char *what, const char *file,
			const offcode_error *r)
{
	const char *p = offcode_error_path(r);

	return applet_fail("extract", what, err_display_path(*p ? p : file, 0),
			   "%s", *p ? offcode_error_reason(r)
				    : offcode_error_message(r));
}

/* The file in is, when it is one. */
static struct extract_file_id id_of(const struct extract_input *in)
{
	struct extract_file_id id = { 0 };
	struct stat st;

	if (in->fd >= 0 && fstat(in->fd, &st) == 0)
		id = (struct extract_file_id){ true, st.st_dev, st.st_ino };
	return id;
}

/* Whether name in directory dirfd is the file id (not following it). */
static bool same_file(int dirfd, const char *name,
		      const struct extract_file_id *id)
{
	struct stat st;

	return id->has && fstatat(dirfd, name, &st, 0) == 0 &&
	       st.st_dev == id->dev && st.st_ino == id->ino;
}

/* An output failed (a full disk): the outputs commit together, so none
 * will be; the others are not written, and not reported one by one. */
static bool write_failed;

static int fail_write(const char *path, const struct err *e)
{
	write_failed = true;
	return applet_fail_io("extract", path, e);
}

/* Open the output for an entry called name: 0, or 1 (reported).  *path
 * (malloc'd) is set either way, or NULL. */
static int open_out(const struct options *o, const struct extract_file_id *in,
		    const char *name, struct io_out *out, char **path)
{
	struct err e;
	const char *n = NULL;

	*path = NULL;
	if (write_failed)
		return 1;
	if (!o->dir) {
		*path = strdup("-");
	} else {
		if (offcode_names_take(o->names, name, &n))
			return fail("cannot write", name, "out of memory");
		*path = strjoin(o->dir, strlen(o->dir), "/", n, strlen(n));
	}
	if (!*path)
		return fail("cannot write", name, "out of memory");
	if (o->dir && same_file(o->dirfd, n, in))
		return fail("cannot write", *path, "it is the input");
	/* In DIR, opened once, a name is never followed: a link planted
	 * there, or DIR itself moved for one, would send the bytes
	 * elsewhere. */
	if ((o->dir ? io_out_open_at(out, o->dirfd, n, *path, &e)
		    : io_out_open(out, *path, &e)) < 0)
		return fail_write(*path, &e);
	return 0;
}

/* Copy len bytes of in at off to out: in the kernel from the file's
 * descriptor (offcode_source_fd's) where it can, else from its bytes. */
static int copy_out(struct io_out *out, const struct extract_input *in,
		    uint64_t off, uint64_t len, struct err *e)
{
	return io_out_copy_fd(out, in->fd, in->data, in->path, off, len, e);
}

/* Write len bytes: from the input at off when code is NULL, else code;
 * never over the file from (when it has an ID). */
static int write_out(const struct options *o, const struct extract_input *in,
		     const struct extract_file_id *from, const char *name,
		     const uint8_t *code, uint64_t off, uint64_t len)
{
	struct io_out out = { .fd = -1 };
	char *path = NULL;
	struct err e;
	int rc = 1;

	if (open_out(o, from, name, &out, &path))
		goto out;
	if ((code ? io_out_write(&out, code, (size_t)len, &e)
		  : copy_out(&out, in, off, len, &e)) < 0 ||
	    io_out_commit(&out, &e) < 0) {
		io_out_discard(&out);
		rc = fail_write(path, &e);
		goto out;
	}
	if (o->verbose)
		fprintf(o->dir ? stdout : stderr, "%s\n", path);
	rc = 0;
out:
	io_out_discard(&out);
	free(path);
	return rc;
}

int extract_write_out(const struct options *o,
		      const struct extract_input *in, const char *name, const uint8_t *code, uint64_t off,
		      uint64_t len)
{
	struct extract_file_id id = id_of(in);

	return write_out(o, in, &id, name, code, off, len);
}

int extract_write_code(const struct options *o,
		       const struct extract_file_id *from, const char *name,
		       const uint8_t *code, uint64_t len)
{
	return write_out(o, NULL, from, name, code, 0, len);
}

/* ---- entries of a CCOB, streamed ---- */

static int route_sink(void *ctx, const void *p, size_t n)
{
	struct pending *pd = ctx;

	for (size_t i = 0; i < pd->n; i++) {
		struct route *r = &pd->v[i];
		uint64_t lo = r->off > pd->pos ? r->off : pd->pos;
		uint64_t hi = r->off + r->size < pd->pos + n ? r->off + r->size
							     : pd->pos + n;

		if (lo < hi && !r->failed &&
		    io_out_write(&r->out, (const uint8_t *)p + (lo - pd->pos),
				 (size_t)(hi - lo), &r->err) < 0)
			r->failed = true;
	}
	pd->pos += n;
	return 0;
}

void extract_pend_begin(struct job *j, const void *p, uint64_t size)
{
	struct pending *pd = j->pend;

	pd->on = true;
	pd->p = p;
	pd->size = size;
	pd->n = 0;
}

/* Open the output of a selected entry of the pending CCOB: 0 or 1. */
int extract_pend_open(struct job *j, const char *name, uint64_t off,
		     uint64_t size)
{
	struct extract_file_id id = id_of(j->in);
	struct pending *pd = j->pend;
	struct route *r;

	if (pd->n == pd->cap) {
		size_t cap = pd->cap ? 2 * pd->cap : 8;
		struct route *grown = realloc(pd->v, cap * sizeof(*grown));

		if (!grown)
			return fail("cannot extract from", j->path, "out of memory");
		pd->v = grown;
		pd->cap = cap;
	}
	r = &pd->v[pd->n];
	*r = (struct route){ .out = { .fd = -1 }, .off = off, .size = size };
	if (open_out(j->o, &id, name, &r->out, &r->path)) {
		io_out_discard(&r->out);
		free(r->path);
		return 1;
	}
	pd->n++;
	return 0;
}

/* The walk left the pending CCOB: decompress it once more, each selected
 * entry to its output, and commit them in the order they came. */
int extract_pend_finish(struct job *j)
{
	const struct offcode_open_options *lim = &j->o->open;
	struct pending *pd = j->pend;
	offcode_error *why = NULL;
	int rc = 0, bad;

	if (!pd || !pd->on)
		return 0;
	pd->on = false;
	pd->pos = 0;
	bad = pd->n && offcode_ccob_inflate(pd->p, (size_t)pd->size,
					    lim->ccob_max_size,
					    lim->ccob_max_ratio,
					    route_sink, pd, &why) != 0;
	if (bad)
		rc = fail("cannot extract from", j->path, "%s",
			  offcode_error_message(why));
	offcode_error_free(why);
	for (size_t i = 0; i < pd->n; i++) {
		struct route *r = &pd->v[i];

		if (bad || write_failed) {
			io_out_discard(&r->out);
			rc |= write_failed;
		} else if (r->failed || io_out_commit(&r->out, &r->err) < 0) {
			io_out_discard(&r->out);
			rc = fail_write(r->path, &r->err);
		} else if (j->o->verbose) {
			fprintf(j->o->dir ? stdout : stderr, "%s\n", r->path);
		}
		free(r->path);
	}
	pd->n = 0;
	j->rc |= rc;
	return rc;
}
