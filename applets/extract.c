/* extract: write the device code objects of build artefacts to files,
 * decompressed, chosen by target. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applets.h"
#include "messages.h"
#include "progress.h"
#include "selection.h"
#include "../core/env.h"
#include "../core/io_in.h"
#include "../core/io_out.h"
#include "../core/io_write.h"
#include "../core/outnames.h"
#include "../core/uri.h"
#include "../ops/inspect.h"
#include "../ops/kinds.h"
#include "../ops/kpack_find.h"
#include "../formats/ccob_decode.h"
#include "../formats/kpack.h"

#include "../ops/hosts.h"
#include "../ops/conda.h"
#include "../ops/deb.h"
#include "../ops/image.h"
#include "../ops/wheel.h"

static const char usage[] =
	"Usage: offload extract [OPTIONS] FILE|URI...\n"
	"Write the device code objects in each FILE, decompressed, one file each,\n"
	"named FILE.N.TARGET.EXT (FILE.MEMBER.N.TARGET.EXT for an archive member;\n"
	"N: the container number offload ls shows; bytes unsafe in a file name,\n"
	"':' among them, as '_'; for a kpack archive TARGET is the TOC key and\n"
	"target, KEY-TARGET; a kpack-split binary's code objects, read from its\n"
	"archives, are named as in the fat binary), or one of them to standard\n"
	"output.\n"
	"A file://PATH#offset=N&size=N URI (as offload ls and roc-obj-ls print\n"
	"them) writes those bytes of PATH to NAME-offsetN-sizeN.co, as\n"
	"roc-obj-extract does.\n"
	"An IMAGE (oci:DIR[:TAG], oci-archive:FILE, docker-archive:FILE, or a\n"
	"path that is one): each file of its layers that holds device code, as\n"
	"a FILE of its name there.  A PKG (a Debian package, a wheel, a .conda):\n"
	"each of its files that holds device code, the same way.\n"
	"\n"
	"  -o, --output=DIR        write into DIR, made (parents too) if missing\n"
	"                          (default: the current directory);\n"
	"                          - writes the one code object selected to\n"
	"                          standard output\n"
	"  -t, --target=PATTERN    only code objects for PATTERN (repeatable): a\n"
	"                          target ID (gfx90a, gfx90a:xnack+, sm_80) matched\n"
	"                          as a loader would, a bundle entry ID, or a glob\n"
	"                          (*, ?, [) on the ID, target ID or triple\n"
	"      --all               every entry, host and empty ones too (without\n"
	"                          --target: every device code object)\n"
	"  -v, --verbose           print the name of each file written\n"
	"  -q, --quiet             no progress line (shown on a terminal, without\n"
	"                          -v)\n"
	"  -h, --help              print this help\n"
	"  -V, --version           print the version\n";

/* A kpack archive's entry that a split binary named in the same command
 * resolves to: written under the binary's name, not again as the
 * archive's. */
struct claim {
	dev_t dev;
	ino_t ino;
	size_t entry;
};

struct options {
	const char *dir;		/* NULL: standard output */
	int dirfd;			/* dir, opened once */
	struct select targets;	/* -t */
	bool all, verbose, quiet;
	struct inspect_opts walk;
	struct outnames *names;	/* written in this run */
	struct claim *claims;	/* sorted */
	size_t nclaims;
};

/* With -o -, each input as the counting pass left it for the writing
 * pass: a pipe or device, read into memory, is kept (it cannot be read
 * twice); a file is opened again, and must be the one counted. */
struct held {
	struct io_in in;
	bool kept;
	bool mapped;		/* and then st is what it was */
	struct stat st;
};

#define fail(what, file, ...) applet_fail("extract", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("extract", __VA_ARGS__)


/* ---- what an entry is called ---- */


/* The extension, from the code's first bytes, else from what the
 * container says. */
static const char *extension(const uint8_t *p, uint64_t len,
			     const struct inspect_target *t)
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
	if (t->image && t->image_len == 3 && !memcmp(t->image, "ptx", 3))
		return "ptx";
	if (t->image && t->image_len == 5 && !memcmp(t->image, "spirv", 5))
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

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!strcmp(path, "-"))
		return "stdin";
	return slash && slash[1] ? slash + 1 : path;
}

/* ---- selection ---- */

/* Whether the entry is selected (see core/select.h); marks the rules it
 * matches.  Without rules: device code, not empty (--all: everything). */
static bool selected(struct options *o, const struct inspect_node *n,
		     const struct applet_entry *ae)
{
	if (!o->targets.n)
		return o->all || (!ae->en.host && n->size > 0);
	return select_match(&o->targets, &ae->en);
}

/* ---- writing ---- */

struct pending;

enum { MAX_DEPTH = 16 };

struct job {
	struct options *o;
	const struct io_in *in;
	const char *path;
	unsigned ccob_number;		/* the last CCOB walked, */
	uint64_t ccob_offset;		/* where in its member or file, */
	enum inspect_hash ccob_hash;	/* whether its hash held, */
	bool ccob_reported;		/* and whether that was said */
	char section[64];		/* the section the walk is in, or "" */
	/* NVIDIA entries that cannot be decoded, said once per container
	 * (a library has thousands): which container, how many entries it
	 * has, which of them failed, and why the first did. */
	unsigned nv_number;
	size_t nv_entries, nv_failed;
	char nv_list[64];
	struct err nv_first;
	char nv_first_what[48];
	size_t count;			/* entries selected */
	size_t total;			/* of them, in this file */
	bool counting;			/* only count them */
	int rc;
	/* The archive members the walk is in: member[1..depth], the
	 * member of an archive inside an archive after its archive's. */
	char *member[MAX_DEPTH];
	uint64_t member_offset[MAX_DEPTH];	/* each one's in the file */
	unsigned depth;
	struct pending *pend;	/* the CCOB being streamed, if any */
	/* The file (a kpack archive's entries may be claimed), and how
	 * many of its entries were. */
	size_t claimed;
	bool has_id;
	dev_t dev;
	ino_t ino;
};

/* Whether name in directory dirfd is the file in (not following it). */
static bool same_file(int dirfd, const char *name, const struct io_in *in)
{
	struct stat sa, sb;

	return in->fd >= 0 && fstatat(dirfd, name, &sa, 0) == 0 &&
	       fstat(in->fd, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
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
static int open_out(const struct options *o, const struct io_in *in,
		    const char *name, struct io_out *out, char **path)
{
	struct err e;
	char *n = NULL;

	*path = NULL;
	if (write_failed)
		return 1;
	if (!o->dir) {
		*path = strdup("-");
	} else {
		if (!(n = strdup(name)) || !(n = outnames_unique(o->names, n)))
			return fail("cannot write", name, "out of memory");
		*path = applet_cat(o->dir, strlen(o->dir), "/", n, strlen(n));
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

/* Write len bytes: from the input at off when code is NULL, else code. */
static int write_out(const struct options *o, const struct io_in *in,
		     const char *name, const uint8_t *code, uint64_t off,
		     uint64_t len)
{
	struct io_out out = { .fd = -1 };
	char *path = NULL;
	struct err e;
	int rc = 1;

	if (open_out(o, in, name, &out, &path))
		goto out;
	if ((code ? io_out_write(&out, code, (size_t)len, &e)
		  : io_out_copy(&out, in, off, len, &e)) < 0 ||
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

/* ---- entries of a CCOB, streamed ---- */

/* A selected entry of the CCOB being walked, its output open. */
struct route {
	struct io_out out;
	char *path;
	uint64_t off, size;
	struct err err;
	bool failed;
};

/* The CCOB whose entries are being walked (the walk's stream_ccob): its
 * selected entries' outputs are opened as they come, and written by one
 * more pass over the CCOB when the walk leaves it. */
struct pending {
	const uint8_t *p;
	uint64_t size, pos;
	struct ccob_header h;
	struct route *v;
	size_t n, cap;
	bool on;
};

static int route_sink(void *ctx, const void *p, size_t n, struct err *e)
{
	struct pending *pd = ctx;

	(void)e;
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

static void pend_begin(struct job *j, const struct inspect_node *n)
{
	struct pending *pd = j->pend;

	pd->on = true;
	pd->p = n->data;
	pd->size = n->size;
	pd->h = n->ccob;
	pd->n = 0;
}

/* Open the output of a selected entry of the pending CCOB: 0 or 1. */
static int pend_open(struct job *j, const char *name, uint64_t off,
		     uint64_t size)
{
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
	if (open_out(j->o, j->in, name, &r->out, &r->path)) {
		io_out_discard(&r->out);
		free(r->path);
		return 1;
	}
	pd->n++;
	return 0;
}

/* The walk left the pending CCOB: decompress it once more, each selected
 * entry to its output, and commit them in the order they came. */
static int pend_finish(struct job *j)
{
	struct pending *pd = j->pend;
	size_t used;
	struct err e;
	int rc = 0, bad;

	if (!pd || !pd->on)
		return 0;
	pd->on = false;
	pd->pos = 0;
	bad = pd->n && ccob_decompress_stream(pd->p, (size_t)pd->size, &pd->h,
					      &j->o->walk.ccob, route_sink, pd,
					      &used, NULL, &e) < 0;
	if (bad)
		rc = fail("cannot extract from", j->path, "%s", e.msg);
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

/* One line for the NVIDIA container whose entries failed, if any. */
static void nv_report(struct job *j)
{
	if (!j->nv_failed)
		return;
	fail("cannot extract from", j->path, "nv-fatbin #%u: %zu of %zu "
	     "entr%s not extracted (%s); %s: %s", j->nv_number, j->nv_failed,
	     j->nv_entries, j->nv_entries == 1 ? "y" : "ies", j->nv_list,
	     j->nv_first_what, j->nv_first.msg);
	j->nv_failed = 0;
}

static void nv_note(struct job *j, const struct inspect_node *n,
		    const struct inspect_target *t, const struct err *e)
{
	size_t len = strlen(j->nv_list);

	if (j->nv_failed && j->nv_number != n->number)
		nv_report(j);
	if (!j->nv_failed++) {
		j->nv_number = n->number;
		j->nv_first = *e;
		snprintf(j->nv_first_what, sizeof(j->nv_first_what),
			 "entry %u, %s %.*s", n->index, t->arch_buf,
			 (int)t->image_len, t->image ? t->image : "");
		len = 0;
		j->nv_list[0] = 0;
	}
	/* The indices, as many as fit. */
	if (len + 16 < sizeof(j->nv_list))
		snprintf(j->nv_list + len, sizeof(j->nv_list) - len, "%s%u",
			 len ? ", " : "", n->index);
	else if (!strstr(j->nv_list, "..."))
		strcpy(j->nv_list + len, ", ...");
}

/* file[.member...].N.ID.ext, with bytes unsafe in a name as '_', cut to
 * fit 255 bytes (the ID gives way); malloc'd. */
static char *entry_name(const struct job *j, unsigned number, const char *id,
			size_t id_len, const char *ext)
{
	const char *base = base_name(j->path);
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
	make_safe(name + strlen(base), head + id_len - strlen(base));
	if (strlen(name) > 250 - strlen(ext))
		name[250 - strlen(ext)] = 0;
	strcat(name, ".");
	strcat(name, ext);
	return name;
}

static int cmp_claim(const void *pa, const void *pb)
{
	const struct claim *a = pa, *b = pb;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
}

/* Whether entry n of the file (a kpack archive) is claimed. */
static bool claimed(const struct job *j, const struct inspect_node *n)
{
	struct claim key = { .dev = j->dev, .ino = j->ino, .entry = n->index };

	return j->has_id && j->o->nclaims && n->container == FATBIN_KPACK &&
	       !j->depth && bsearch(&key, j->o->claims, j->o->nclaims,
					sizeof(key), cmp_claim);
}

/* A CCOB whose hash does not match, said as prune says it: where it is
 * (the archive members, the section) and its offset there. */
static void ccob_damaged(struct job *j)
{
	char where[512] = "";
	size_t at = 0;

	for (unsigned d = 1; d <= j->depth && d < MAX_DEPTH; d++)
		if (j->member[d] && at < sizeof(where))
			at += (size_t)snprintf(where + at, sizeof(where) - at,
					       "member %s: ", j->member[d]);
	if (j->section[0] && at < sizeof(where))
		snprintf(where + at, sizeof(where) - at, "section %s: ",
			 j->section);
	fail("cannot extract from", j->path, "%sCCOB at offset %llu: hash "
	     "mismatch: the bundle inside is damaged", where,
	     (unsigned long long)j->ccob_offset);
}

static int extract_entry(struct job *j, const struct inspect_node *n)
{
	struct inspect_target t;
	struct applet_entry ae;
	struct entry_bytes b;
	const uint8_t *code;
	uint64_t size;
	char *name = NULL;
	const char *id;
	size_t id_len;
	bool stream = false;
	int rc = 0;

	inspect_entry_target(n, &t);
	if (applet_entry_of(&ae, n) < 0)
		return fail("cannot extract from", j->path, "out of memory");
	id = ae.id;
	id_len = ae.en.id_len;
	if (claimed(j, n)) {
		j->claimed++;
		goto out;
	}
	if (!selected(j->o, n, &ae))
		goto out;
	j->count++;
	if (j->counting)
		goto out;
	switch (kinds_entry_bytes(n, j->ccob_hash, &b)) {
	case ENTRY_DAMAGED:
		rc = 1;
		if (!j->ccob_reported)
			ccob_damaged(j);
		j->ccob_reported = true;
		goto out;
	case ENTRY_UNDECODED:
		/* One that cannot be decoded is noted for its container's
		 * line (nv_report). */
		nv_note(j, n, &t, b.why);
		rc = 1;
		goto out;
	case ENTRY_HEAD:
		/* Its first bytes, for the name; the rest streamed. */
		stream = j->pend && j->pend->on;
		if (stream)
			break;
		/* fall through */
	case ENTRY_ABSENT:
		rc = fail("cannot extract from", j->path, "entry %u of #%u: its "
			  "code is not at hand", n->index, n->number);
		goto out;
	case ENTRY_WHOLE:
		break;
	}
	code = b.data;
	size = b.size;
	if (!(name = entry_name(j, n->number, id, id_len,
				extension(code, size, &t)))) {
		rc = fail("cannot extract from", j->path, "out of memory");
		goto out;
	}
	/* Bytes in the file are copied from it, the rest written; those of
	 * a CCOB streamed, once the walk leaves it. */
	if (stream)
		rc = pend_open(j, name, n->offset, size);
	else
		rc = write_out(j->o, j->in, name, n->in_file ? NULL : code,
			       n->offset, size);
out:
	free(name);
	applet_entry_free(&ae);
	return rc;
}

static int visit(void *ctx, const struct inspect_node *n)
{
	struct job *j = ctx;

	if (n->kind != INSPECT_ENTRY)
		pend_finish(j);
	if (n->kind != INSPECT_ENTRY)
		nv_report(j);
	if (n->kind == INSPECT_CONTAINER)
		j->nv_entries = n->entries;
	if (n->kind == INSPECT_SECTION)
		snprintf(j->section, sizeof(j->section), "%.*s",
			 (int)n->name_len, n->name);
	if (n->kind == INSPECT_INPUT && n->depth < MAX_DEPTH) {
		j->depth = n->depth;
		j->member_offset[n->depth] = n->offset;
		j->section[0] = 0;
		if (n->depth) {
			free(j->member[n->depth]);
			j->member[n->depth] = applet_cat(n->name, n->name_len,
							 "", "", 0);
			if (!j->member[n->depth])
				return j->rc = fail("cannot extract from", j->path,
						    "out of memory");
		}
	}
	if (n->kind == INSPECT_CONTAINER && n->container == FATBIN_CCOB) {
		j->ccob_number = n->number;
		j->ccob_offset = n->offset - j->member_offset[j->depth];
		j->ccob_hash = n->hash;
		j->ccob_reported = false;
		if (n->data && j->pend && !j->counting)
			pend_begin(j, n);
	}
	if (n->kind == INSPECT_ENTRY) {
		j->rc |= extract_entry(j, n);
		if (!j->counting)
			progress_show(j->count, j->total);
	}
	return 0;
}

/* ---- kpack-split binaries ---- */

/* The bundle ID a split binary's code object had in the fat binary: the
 * splitter keeps it in the entry's metadata ("target"), its TOC target
 * being what follows the ID's last "--" (rocm-kpack's
 * extract_architecture_from_target); without it (or when they disagree),
 * the ID clang writes for HIP, hipv4-amdgcn-amd-amdhsa--<target ID>. */
static const char hip_id[] = "hipv4-amdgcn-amd-amdhsa--";

static void split_id(const struct kpack_entry *en, char *id, size_t cap)
{
	const char *b = en->bundle_id, *dash = NULL;

	for (const char *p = b; p && (p = strstr(p, "--")); p++)
		dash = p;
	if (b && dash && !strcmp(dash + 2, en->target) && strlen(b) < cap)
		snprintf(id, cap, "%s", b);
	else
		snprintf(id, cap, "%s%s", hip_id, en->target);
}

/* Whether -t (or, without it, the default) takes the code object the
 * split binary's entry en is, its bundle ID made in id (room for
 * sizeof(hip_id) + target). */
static bool split_selected(struct options *o, const struct kpack_entry *en,
			   char *id, size_t cap)
{
	struct select_entry se;

	split_id(en, id, cap);
	select_entry_from_id(&se, id, strlen(id));
	if (!o->targets.n)
		return en->size > 0;
	return select_match(&o->targets, &se);
}

/* Does -t take the archive of target (NULL: no target in its name) as a
 * target ID, a glob or a triple would take it (a bundle ID rule takes
 * its entries only, through their IDs)? */
static bool split_archive_selected(struct options *o, const char *target)
{
	static const char amdgcn[] = "amdgcn-amd-amdhsa";
	struct select_entry se = {
		.arch = target, .arch_len = target ? strlen(target) : 0,
		.triple = amdgcn, .triple_len = sizeof(amdgcn) - 1,
	};

	return !o->targets.n || !target || select_match(&o->targets, &se);
}

/* Wrapper w's code object, entry i of archive a: counted, or written as
 * the fat binary's entry of container #<index> would be
 * (FILE.N.hipv4-amdgcn-amd-amdhsa--TARGET.co). */
static int split_write(struct job *j, const struct kpack_find *h, size_t w,
		       const struct kpack_find_archive *a, size_t i)
{
	const struct kpack_entry *en = &a->k.v[i];
	struct inspect_target t = { 0 };
	struct inspect_node n;
	uint8_t *code = NULL;
	char id[sizeof(hip_id) + 256], *name = NULL;
	struct err e;
	int rc = 0;

	if (strlen(en->target) > 255 ||
	    !split_selected(j->o, en, id, sizeof(id)))
		return 0;
	j->count++;
	if (j->counting)
		return 0;
	if (kpack_find_entry(a, i, true, &j->o->walk.ccob, &n, &code, &e) < 0)
		return fail("cannot extract from", a->path, "kpack archive: %s",
			    e.msg);
	/* The container number the fat binary gave it: its wrapper's
	 * index (the splitter counts each target's code objects in the
	 * fat binary's order, and numbers the wrappers the same). */
	if (h->index[w] > UINT_MAX ||
	    !(name = entry_name(j, (unsigned)h->index[w], id, strlen(id),
				extension(n.data, n.size, &t)))) {
		rc = fail("cannot extract from", j->path, "out of memory");
		goto out;
	}
	rc = write_out(j->o, &a->in, name, n.data, 0, n.size);
	progress_show(j->count, j->total);
out:
	free(name);
	free(code);
	return rc;
}

/* A kpack-split binary (in, at path): each wrapper's code object in each
 * archive its search paths find, counted or written.  An archive that
 * cannot be read, or lacks a wrapper's code object, fails the command
 * (the install is damaged: offload ls --verify says where); so does a
 * binary whose search paths find no archive at all. */
static int split_file(struct job *j, const struct io_in *in)
{
	struct kpack_find h;
	struct err e;
	int rc = 0, split = kpack_find_open(&h, j->path, in->data, in->len,
					    &e);

	if (split < 0)
		rc = fail("cannot extract from", j->path, "%s", e.msg);
	for (size_t sp = 0; split > 0 && sp < h.ref.npaths; sp++) {
		size_t found = 0;

		for (size_t k = 0; k < h.na; k++)
			found += h.a[k].search == sp;
		if (h.no_dir[sp])
			rc = fail("no archive for", j->path, "search path '%s': "
				  "no directory '%s'", h.ref.paths[sp],
				  h.dir[sp]);
		else if (!found)
			rc = fail("no archive for", j->path, "search path '%s' "
				  "finds no archive", h.ref.paths[sp]);
	}
	for (size_t k = 0; split > 0 && k < h.na; k++) {
		const struct kpack_find_archive *a = &h.a[k];
		bool taken = split_archive_selected(j->o, a->target);
		size_t before = j->count;

		if (!a->read) {
			if (taken)
				rc = a->damaged ?
				     fail("cannot extract from", a->path,
					  "kpack archive: %s", a->e.msg) :
				     applet_fail_err("extract", "cannot read",
						     a->path, 0, &a->e);
			continue;
		}
		for (size_t w = 0; w < h.nhipk; w++) {
			char key[4200];

			size_t from, n;

			kpack_find_key(&h, w, key, sizeof(key));
			n = kpack_find_lookup(a, key, &from);
			for (size_t x = from; x < from + n; x++)
				rc |= split_write(j, &h, w, a,
						  a->by_key[x].entry);
		}
		/* What is missing, of an archive -t takes or one whose code
		 * objects it takes. */
		for (size_t w = 0; w < h.nhipk && (taken || j->count > before);
		     w++) {
			char key[4200];
			size_t from;

			kpack_find_key(&h, w, key, sizeof(key));
			if (!kpack_find_lookup(a, key, &from))
				rc = fail("missing code object for", j->path,
					  "wrapper #%" PRIu64 ": no '%s' in '%s'",
					  h.index[w], key, a->path);
		}
	}
	kpack_find_close(&h);
	return rc;
}

/* The entries of archive a that the split binary h writes: claimed. */
static int claim_archive(struct options *o, const struct kpack_find *h,
			 const struct kpack_find_archive *a)
{
	struct stat st;

	if (!a->read || fstat(a->in.fd, &st) < 0)
		return 0;
	for (size_t w = 0; w < h->nhipk; w++) {
		char key[4200], id[sizeof(hip_id) + 256];
		size_t from, cnt;

		kpack_find_key(h, w, key, sizeof(key));
		cnt = kpack_find_lookup(a, key, &from);
		for (size_t x = from; x < from + cnt; x++) {
			size_t i = a->by_key[x].entry;
			struct claim *v;

			if (strlen(a->k.v[i].target) > 255 ||
			    !split_selected(o, &a->k.v[i], id, sizeof(id)))
				continue;
			v = realloc(o->claims, (o->nclaims + 1) * sizeof(*v));
			if (!v)
				return -1;
			o->claims = v;
			v[o->nclaims++] = (struct claim){ st.st_dev, st.st_ino, i };
		}
	}
	return 0;
}

/* Before anything is written: the archive entries that the split
 * binaries among the inputs write (see struct claim). */
static int claim_splits(struct options *o, char **args, int n)
{
	int rc = 0;

	for (int f = 0; f < n && !rc; f++) {
		struct kpack_find h;
		struct io_in in;
		struct stat st;
		struct err e;

		/* Only files: a pipe or a device is read once, later. */
		if (uri_is_uri(args[f]) || stat(args[f], &st) < 0 ||
		    !S_ISREG(st.st_mode) || io_in_open(&in, args[f], &e) < 0)
			continue;	/* said when it is read */
		if (kpack_find_open(&h, args[f], in.data, in.len, &e) > 0)
			for (size_t k = 0; k < h.na && !rc; k++)
				rc = claim_archive(o, &h, &h.a[k]);
		kpack_find_close(&h);
		io_in_close(&in);
	}
	if (o->nclaims)
		qsort(o->claims, o->nclaims, sizeof(*o->claims), cmp_claim);
	return rc;
}

static uint64_t next_data(const void *in, uint64_t off)
{
	return io_in_next_data(in, off);
}

static bool unchanged_since(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Open path for a pass (its first want bytes, for a URI: see
 * io_in_open_part; 0: all), or take it from h (see struct held).  A file
 * the counting pass mapped must come back mapped and the same: replaced
 * by an empty file or a FIFO, it was not checked. */
static int open_input(struct io_in *in, const char *path, uint64_t want,
		      bool counting, struct held *h)
{
	struct stat st;
	struct err e;

	if (h && h->kept) {
		*in = h->in;
		in->path = path;	/* a URI's path was freed since */
		h->kept = false;
		return 0;
	}
	if ((want ? io_in_open_part(in, path, want, &e)
		  : io_in_open(in, path, &e)) < 0)
		return applet_fail_err("extract", "cannot read", path, 0, &e);
	if (!h || (!in->map && (counting || !h->mapped)))
		return 0;
	if (in->map && fstat(in->fd, &st) < 0) {
		err_sys(&e, path, errno);
		io_in_close(in);
		return applet_fail_err("extract", "cannot read", path, 0, &e);
	}
	if (counting) {
		h->st = st;
		h->mapped = true;
	} else if (!in->map || !unchanged_since(&h->st, &st)) {
		bool resized = (uint64_t)h->st.st_size !=
			       (in->map ? (uint64_t)st.st_size : in->len);

		io_in_close(in);
		return fail("cannot read", path, "file changed%s while being "
			    "read", resized ? " size" : "");
	}
	return 0;
}

/* The end of a pass over in: closed, or kept in h for the next pass. */
static void close_input(struct io_in *in, bool counting, struct held *h)
{
	if (h && counting && !in->map) {
		h->in = *in;
		h->kept = true;
		return;
	}
	io_in_close(in);
}

/* Walk path: count the entries selected, from headers only, which also
 * finds a damaged file before anything is written; then, unless only
 * counting, walk it again inflating, and write them. */
static int run_in(struct options *o, const char *path, struct io_in *in_,
		  bool counting, size_t *count);

static int run_file(struct options *o, const char *path, bool counting,
		    size_t *count, struct held *held)
{
	struct io_in in;
	int rc;

	if (open_input(&in, path, 0, counting, held) != 0)
		return 1;
	rc = run_in(o, path, &in, counting, count);
	close_input(&in, counting, held);
	return rc;
}

/* The file path whose bytes in holds (see run_file). */
static int run_in(struct options *o, const char *path, struct io_in *in_,
		  bool counting, size_t *count)
{
	struct job j = { .o = o, .path = path, .counting = true };
	struct pending pend = { 0 };
	struct inspect_opts walk = o->walk;
	struct io_in in = *in_;
	struct stat st;
	struct err e;

	j.in = &in;
	walk.inflate = false;
	walk.next_data = next_data;
	walk.data_ctx = &in;
	if (in.fd >= 0 && fstat(in.fd, &st) == 0) {
		j.has_id = true;
		j.dev = st.st_dev;
		j.ino = st.st_ino;
	}
	if (inspect_walk(in.data, in.len, &walk, visit, &j, &e) != 0) {
		j.rc = fail("cannot extract from", path, "%s", e.msg);
		goto out;
	}
	if ((j.rc |= split_file(&j, &in)))
		goto out;
	if (!j.count && !j.claimed && !o->targets.n && !counting)
		fprintf(stderr, "offload extract: warning: '%s': no device code\n",
			path);
	if (counting || !j.count) {
		*count += j.count;
		goto out;
	}
	j.counting = false;
	j.total = j.count;
	j.count = 0;
	walk.inflate = true;
	/* Into a directory, a CCOB's entries stream to their files; to
	 * standard output, one after the other in the walk's order. */
	walk.stream_ccob = o->dir != NULL;
	j.pend = &pend;
	progress_name(path);
	if (inspect_walk(in.data, in.len, &walk, visit, &j, &e) != 0) {
		pend_finish(&j);
		j.rc = fail("cannot extract from", path, "%s", e.msg);
	}
	pend_finish(&j);
	j.rc |= split_file(&j, &in);
	progress_end();
	nv_report(&j);
	*count += j.count;
out:
	for (unsigned d = 0; d < MAX_DEPTH; d++)
		free(j.member[d]);
	free(pend.v);
	return j.rc;
}

/* The files of an image's layers that hold offload code, each as a file
 * of its name in the layer. */
struct image_run {
	struct options *o;
	bool counting;
	size_t *count;
	int rc;
};

static bool image_wants(void *ctx, const uint8_t *head, size_t len)
{
	enum host_format f;

	(void)ctx;
	return hosts_probe(head, len, &f);
}

static int found(void *ctx, const struct inspect_node *n)
{
	if (n->depth > 0)
		*(bool *)ctx = true;
	return 0;
}

static int image_member(void *ctx, const struct layer_member *m,
			const struct io_in *data, struct io_in *repl,
			struct err *e)
{
	struct image_run *ir = ctx;
	struct inspect_opts walk = ir->o->walk;
	struct io_in in = *data;
	bool any = false;
	char *path;

	(void)repl;
	walk.inflate = false;
	if (inspect_walk(data->data, data->len, &walk, found, &any, e) == 0 &&
	    !any)
		return 0;	/* no offload code; what is wrong is said below */
	if (!(path = strndup(m->name, m->name_len)))
		return err_nomem(e);
	ir->rc |= run_in(ir->o, path, &in, ir->counting, ir->count);
	free(path);
	return 0;
}

static int run_image(struct options *o, const char *spec, bool counting,
		     size_t *count)
{
	struct image im;
	struct err e;
	int rc = 0;

	if (image_open(&im, spec, &e) < 0) {
		image_close(&im);
		return applet_fail_err("extract", "cannot read image", spec, 0,
				       &e);
	}
	for (size_t i = 0; i < im.nlayer; i++) {
		struct image_run ir = { .o = o, .counting = counting,
					.count = count };
		struct layer_walk w = { .wants = image_wants,
					.member = image_member, .ctx = &ir };

		if (image_layer_walk(&im, i, &w, &e) < 0) {
			rc = applet_fail_err("extract", "cannot read image",
					     spec, 0, &e);
			break;
		}
		rc |= ir.rc;
	}
	image_close(&im);
	return rc;
}

/* A Debian package's data.tar or a wheel: each file that holds offload
 * code, as an image's (its name without "./"). */
static int package_member(void *ctx, const struct layer_member *m,
			  const struct io_in *data, struct io_in *repl,
			  struct err *e)
{
	struct layer_member named = *m;

	named.name = deb_name(m->name, &named.name_len);
	return image_member(ctx, &named, data, repl, e);
}

static int run_package(struct options *o, const char *path, bool counting,
		       size_t *count)
{
	struct image_run ir = { .o = o, .counting = counting, .count = count };
	struct layer_walk w = { .wants = image_wants,
				.member = package_member, .ctx = &ir };
	struct wheel wh = { .in = { .fd = -1 } };
	struct deb d = { .in = { .fd = -1 } };
	bool deb = deb_is(path), conda = conda_is(path);
	struct err e;
	int rc = conda ? conda_walk(path, &w, &e) < 0
		 : deb ? deb_open(&d, path, &e) < 0 ||
		       deb_data_walk(&d, &w, &e) < 0
		     : wheel_open(&wh, path, &e) < 0 ||
		       wheel_walk(&wh, image_wants, image_member, NULL, &ir,
				  &e) < 0;

	if (deb)
		deb_close(&d);
	else
		wheel_close(&wh);
	return rc ? applet_fail_err("extract", "cannot read package", path, 0,
				    &e) : ir.rc;
}

static int run_uri(struct options *o, const char *s, bool counting,
		   size_t *count, struct held *held)
{
	struct uri u;
	struct io_in in;
	struct err e;
	char *name = NULL;
	int rc = 1;

	if (uri_parse(s, &u, &e) < 0)
		return fail("cannot read", s, "%s", e.msg);
	/* A device or a pipe is read only as far as the URI needs. */
	if (open_input(&in, u.path, u.has_size && u.offset <= UINT64_MAX -
		       u.size ? u.offset + u.size : 0, counting, held) != 0) {
		uri_free(&u);
		return 1;
	}
	if (!u.has_size)
		u.size = u.offset <= in.len ? in.len - u.offset : 0;
	if (u.offset > in.len || u.size > in.len - u.offset) {
		fail("cannot read", s, "offset %" PRIu64 " and size %" PRIu64
		     " run past the end of '%s' (%zu bytes)", u.offset, u.size,
		     u.path, in.len);
		goto out;
	}
	if (!u.size) {
		/* Said once: with -o -, in the writing pass. */
		if (!counting)
			fprintf(stderr, "offload extract: warning: '%s': size 0, "
				"nothing to extract\n", s);
		rc = 0;
		goto out;
	}
	(*count)++;
	rc = 0;
	if (counting)
		goto out;
	name = malloc(strlen(base_name(u.path)) + 64);
	if (!name) {
		rc = fail("cannot read", s, "out of memory");
		goto out;
	}
	sprintf(name, "%s-offset%" PRIu64 "-size%" PRIu64 ".co",
		base_name(u.path), u.offset, u.size);
	rc = write_out(o, &in, name, NULL, u.offset, u.size);
out:
	free(name);
	close_input(&in, counting, held);
	uri_free(&u);
	return rc;
}

static int run_all(struct options *o, char **args, int n, bool counting,
		   size_t *count, struct held *held)
{
	int rc = 0;

	for (int i = 0; i < n; i++)
		rc |= image_is(args[i]) ? run_image(o, args[i], counting, count)
		      : deb_is(args[i]) || wheel_is(args[i]) || conda_is(args[i])
			? run_package(o, args[i], counting, count)
		      : (uri_is_uri(args[i]) ? run_uri : run_file)(
			o, args[i], counting, count, held ? &held[i] : NULL);
	return rc;
}

int extract_main(int argc, char **argv)
{
	enum { OPT_ALL = 256 };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "target", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = {
		.dir = ".",
		.dirfd = -1,
		.walk = {
			/* A SPIR-V code object is named .spv by its bytes. */
			.image_kinds = true,
			.ccob = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				  .max_size = CCOB_DEFAULT_MAX_SIZE },
			.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
				     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
		},
	};
	struct outnames names = { 0 };
	struct held *held = NULL;
	struct err e;
	size_t count = 0;
	int c, rc = 0;

	o.names = &names;
	if (env_positive_u64("OFFLOAD_CCOB_MAX_SIZE", &o.walk.ccob.max_size, &e) < 0 ||
	    env_positive_u64("OFFLOAD_CCOB_MAX_RATIO", &o.walk.ccob.max_ratio, &e) < 0)
		return usage_error("%s", e.msg);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:t:vqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.dir = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 't':
			if ((rc = applet_select_option("extract", "--target",
							&o.targets, optarg)))
				goto out;
			break;
		case OPT_ALL:
			o.all = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			goto out;
		case 'V':
			printf("offload extract %s\n", OFFLOAD_VERSION);
			goto out;
		default:
			rc = applet_option_error("extract", c, argv, longopts);
			goto out;
		}
	}
	if (optind == argc) {
		rc = usage_error("no input file");
		goto out;
	}
	/* -v's names are the progress then. */
	progress_init("extract", o.quiet || o.verbose);
	/* The files of one command are written together or not at all: a
	 * failure removes them, and the directories made for them. */
	if (o.dir)
		io_out_together();
	if (o.dir && (io_mkdirs(o.dir, &e) < 0 ||
		      ((o.dirfd = open(o.dir, O_PATH | O_DIRECTORY |
				       O_CLOEXEC)) < 0 &&
		       err_sys(&e, o.dir, errno)))) {
		rc = applet_fail_err("extract", "cannot write into", o.dir, 1, &e);
		goto out;
	}
	if (claim_splits(&o, argv + optind, argc - optind) < 0) {
		rc = fail("cannot read", argv[optind], "out of memory");
		goto out;
	}
	if (!o.dir) {
		/* Standard output takes one code object: count first. */
		held = calloc((size_t)(argc - optind), sizeof(*held));
		if (!held) {
			rc = fail("cannot read", argv[optind], "out of memory");
			goto out;
		}
		rc = run_all(&o, argv + optind, argc - optind, true, &count,
			     held);
		if (rc)
			goto out;
		if (count != 1) {
			fprintf(stderr, "offload extract: error: %zu code objects "
				"selected; -o - writes exactly one (choose with "
				"--target)\n", count);
			rc = 1;
			goto out;
		}
		/* The rules' hits stay the counting pass's: a writing pass
		 * that stops at a file changed since must not add "no code
		 * object matches" for the rules it did not reach. */
		count = 0;
	}
	rc = run_all(&o, argv + optind, argc - optind, false, &count, held);
	rc |= applet_select_unmatched("extract", "--target", NULL, &o.targets);
out:
	if (o.dir && io_out_together_end(rc == 0, &e) < 0)
		rc = applet_fail_err("extract", "cannot write", NULL, 1, &e);
	if (o.dirfd >= 0)
		close(o.dirfd);
	for (int i = 0; held && i < argc - optind; i++)
		if (held[i].kept)
			io_in_close(&held[i].in);
	free(held);
	outnames_free(&names);
	select_free(&o.targets);
	free(o.claims);
	return rc;
}
