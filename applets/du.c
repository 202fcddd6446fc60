/* du: what each GPU target costs in a set of files and directories, read
 * from headers as ls reads them (formats/inspect.h), the files found by
 * core/tree.h. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applets.h"
#include "messages.h"
#include "opts.h"
#include "progress.h"
#include "selection.h"
#include "../core/io_in.h"
#include "../core/json.h"
#include "../core/tree.h"
#include "../ops/hosts.h"
#include "../ops/conda.h"
#include "../ops/deb.h"
#include "../ops/image.h"
#include "../ops/wheel.h"
#include "../ops/inspect.h"
#include "../ops/kinds.h"
#include "../ops/kpack_find.h"

static const char usage[] =
	"Usage: offload du [OPTIONS] PATH...\n"
	"       offload du [OPTIONS] IMAGE\n"
	"       offload du [OPTIONS] PKG\n"
	"What each GPU target's device code costs in the files named and under\n"
	"the directories named: for each target ID the entries name (gfx90a,\n"
	"gfx90a:xnack+, sm_80, compute_80) the bytes stored, the bytes of code\n"
	"(decompressed, as offload extract writes them), entries and files; then\n"
	"host entries, the bytes that are no device code, and the total.  Read\n"
	"from headers alone; a file hard-linked twice counts once, symbolic\n"
	"links are not followed.  IMAGE, a container image (oci:DIR[:TAG],\n"
	"oci-archive:FILE, docker-archive:FILE, or a path that is one): the same\n"
	"for each layer's files, then for all layers.  PKG, a Debian package, a\n"
	"Python wheel or a conda package: the same for its files.\n"
	"\n";

#define fail(what, file, ...) applet_fail("du", what, file, __VA_ARGS__)

#define usage_error(...) applet_usage_error("du", __VA_ARGS__)

enum { EM_AMDGPU_ = 224, EM_CUDA_ = 190 };

struct sum {
	uint64_t bytes, stored, entries, files;
};

struct target {
	char *name;
	struct sum s;
	size_t last_file;	/* the file last counted in s.files, + 1 */
};

struct options {
	struct select targets, keep, drop;
	bool json, quiet;
	struct inspect_opts walk;
	/* What was found. */
	struct target *t;
	size_t n, cap;
	struct sum host, drop_sum;
	size_t host_last;
	uint64_t total, files, other_files, errors;
	uint64_t device_stored;	/* of every device entry */
	/* The files walked (sorted by dev, ino), and the kpack archives
	 * found through split binaries outside them, counted after them. */
	struct tree_file *seen;
	size_t nseen;
	struct tree_file *extra;
	size_t nextra;
	/* The tree walked, and the way back to its directories. */
	const struct tree *tree;
	struct tree_cursor cur;
};

/* One file's walk. */
struct scan {
	struct options *o;
	size_t file;		/* its number, from 1 */
	enum inspect_format format;
	uint16_t machine;
	bool children;		/* anything found under the file */
	/* The container whose entries come now, if it compresses them
	 * together (a CCOB; its row's packed): their stored bytes are its,
	 * shared in proportion to their sizes. */
	unsigned packed_depth;	/* 0: none */
	uint64_t packed_stored, packed_raw;
	/* For --keep/--drop: device entries seen and kept, host bytes. */
	uint64_t device, kept, host_bytes;
	struct sum dropped;
	int oom;
};

static int find_target(struct options *o, const char *name, size_t len)
{
	for (size_t i = 0; i < o->n; i++)
		if (strlen(o->t[i].name) == len && !memcmp(o->t[i].name, name, len))
			return (int)i;
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		struct target *v = realloc(o->t, cap * sizeof(*v));

		if (!v)
			return -1;
		o->t = v;
		o->cap = cap;
	}
	memset(&o->t[o->n], 0, sizeof(o->t[o->n]));
	if (!(o->t[o->n].name = applet_cat(name, len, "", "", 0)))
		return -1;
	return (int)o->n++;
}

/* What prune would drop: its own rule (applet_keeps). */
static bool dropped(struct options *o, const struct select_entry *en)
{
	return (o->keep.n || o->drop.n) &&
	       !applet_keeps(&o->keep, &o->drop, en);
}

/* One entry: bytes of code, bytes stored. */
static int count(struct scan *sc, const struct select_entry *en,
		 uint64_t bytes, uint64_t stored)
{
	struct options *o = sc->o;
	const char *name = en->arch_len ? en->arch : en->triple;
	size_t len = en->arch_len ? en->arch_len : en->triple_len;
	int i;

	if (en->host) {
		o->host.bytes += bytes;
		o->host.stored += stored;
		o->host.entries++;
		if (o->host_last != sc->file)
			o->host.files++;
		o->host_last = sc->file;
		sc->host_bytes += bytes;
		return 0;
	}
	o->device_stored += stored;
	sc->device++;
	if (dropped(o, en)) {
		sc->dropped.bytes += bytes;
		sc->dropped.stored += stored;
		sc->dropped.entries++;
	} else {
		sc->kept++;
	}
	if (o->targets.n && !select_match(&o->targets, en))
		return 0;
	if (!name)
		name = "?", len = 1;
	if ((i = find_target(o, name, len)) < 0)
		return -1;
	o->t[i].s.bytes += bytes;
	o->t[i].s.stored += stored;
	o->t[i].s.entries++;
	if (o->t[i].last_file != sc->file)
		o->t[i].s.files++;
	o->t[i].last_file = sc->file;
	return 0;
}

static int visit(void *ctx, const struct inspect_node *n)
{
	struct scan *sc = ctx;
	struct applet_entry ae;
	uint64_t bytes, stored;
	int rc;

	if (n->update)
		return 0;
	if (n->depth == 0) {
		sc->format = n->format;
		sc->machine = n->machine;
		return 0;
	}
	sc->children = true;
	if (sc->packed_depth && n->depth <= sc->packed_depth)
		sc->packed_depth = 0;
	if (n->kind == INSPECT_CONTAINER && kinds_get(n->container)->packed &&
	    kinds_get(n->container)->packed(n, &sc->packed_stored,
					    &sc->packed_raw))
		sc->packed_depth = n->depth;
	if (n->kind != INSPECT_ENTRY)
		return 0;
	if (applet_entry_of(&ae, n) < 0)
		return -1;
	bytes = stored = n->size;
	if (kinds_get(n->container)->sizes)	/* as its kind counts them */
		kinds_get(n->container)->sizes(n, &bytes, &stored);
	if (!n->in_file && sc->packed_depth && sc->packed_raw)
		stored = (uint64_t)((unsigned __int128)sc->packed_stored *
				    n->size / sc->packed_raw);
	rc = count(sc, &ae.en, bytes, stored);
	applet_entry_free(&ae);
	return rc;
}

/* A file that is itself one code object: counted as one entry. */
static int lone_code(struct scan *sc, const uint8_t *buf, size_t len)
{
	struct select_entry en;
	char name[APPLET_CODE_NAME];

	if (!(sc->format == INSPECT_ELF && (sc->machine == EM_AMDGPU_ ||
					    sc->machine == EM_CUDA_)) &&
	    sc->format != INSPECT_TEXT)
		return 0;
	switch (applet_lone_code(buf, len, name, &en)) {
	case 1:
		break;
	case -1:
		return -1;
	default:
		return 0;
	}
	sc->children = true;
	return count(sc, &en, len, len) < 0 ? -1 : 1;
}

static uint64_t next_data(const void *in, uint64_t off)
{
	return io_in_next_data(in, off);
}

static int cmp_file(const void *pa, const void *pb)
{
	const struct tree_file *a = pa, *b = pb;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

/* A kpack-split binary's code is in its archives: those its search paths
 * find outside the files walked are counted too, after them, each once
 * (rocm-kpack, docs/multi_arch_packaging_with_kpack.md, "Binary
 * Conversion"; ops/kpack_find.h).  -1 when out of memory. */
static int split_archives(struct options *o, const char *path,
			  const struct io_in *in)
{
	struct kpack_find h;
	struct err e;
	int split = kpack_find_open(&h, path, in->data, in->len, &e);
	/* A damaged reference is ls --verify's to name; out of memory is
	 * du's own failure. */
	int rc = split < 0 && e.code == ERR_NOMEM ? -1 : 0;

	if (split > 0)
		for (size_t i = 0; i < h.na && !rc; i++) {
			struct tree_file key = { 0 }, *v;
			struct stat st;
			bool known = false;

			if (stat(h.a[i].path, &st) < 0 || !S_ISREG(st.st_mode))
				continue;	/* ls --verify says so */
			key.dev = st.st_dev;
			key.ino = st.st_ino;
			known = bsearch(&key, o->seen, o->nseen, sizeof(key),
					cmp_file);
			for (size_t k = 0; k < o->nextra && !known; k++)
				known = !cmp_file(&key, &o->extra[k]);
			if (known)
				continue;
			if (!(v = realloc(o->extra, (o->nextra + 1) * sizeof(*v))) ||
			    !(key.path = strdup(h.a[i].path))) {
				if (v)
					o->extra = v;
				rc = -1;
				break;
			}
			key.size = (uint64_t)st.st_size;
			o->extra = v;
			o->extra[o->nextra++] = key;
		}
	kpack_find_close(&h);
	return rc;
}

/* An archive a split binary found, outside the tree: the regular file
 * that was looked at (a FIFO put there is neither waited on nor read). */
static int open_extra(struct io_in *in, const struct tree_file *f,
		      struct err *e)
{
	int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return err_sys(e, f->path, errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_dev != f->dev || st.st_ino != f->ino) {
		close(fd);
		return err_code_file(e, ERR_CHANGED, 0, f->path, "changed "
				     "since it was found");
	}
	return io_in_open_fd(in, fd, f->path, e);
}

/* A file walked (extra false: else one a split binary found). */
/* The bytes of one file (path) walked and counted. */
static int du_walk(struct options *o, struct scan *sc, const char *path,
		   const struct io_in *in)
{
	struct inspect_opts walk = o->walk;
	struct err e;
	int rc = 0, lone = 0;

	walk.next_data = next_data;
	walk.data_ctx = (void *)in;
	if (inspect_walk(in->data, in->len, &walk, visit, sc, &e) != 0) {
		o->errors++;
		rc = fail("cannot read", path, "%s", e.msg);
	} else if (!sc->children && (lone = lone_code(sc, in->data, in->len)) < 0) {
		rc = fail("cannot read", path, "out of memory");
	}
	if (!sc->children)
		o->other_files++;
	/* What prune would drop, and whether the file would go whole (a
	 * lone code object or a container file keeping no device code). */
	o->drop_sum.bytes += sc->dropped.bytes;
	o->drop_sum.stored += sc->dropped.stored;
	o->drop_sum.entries += sc->dropped.entries;
	if (sc->device && !sc->kept && !sc->host_bytes &&
	    (lone > 0 || hosts_offload_only(in->data, in->len)))
		o->drop_sum.files++;
	return rc;
}

static int du_file(struct options *o, const struct tree_file *f, bool extra)
{
	struct scan sc = { .o = o, .file = (size_t)o->files };
	struct io_in in;
	struct err e;
	int rc = 0, fd = -1, opened;

	o->total += f->size;
	if (extra)
		opened = open_extra(&in, f, &e);
	else if ((fd = tree_file_open(o->tree, &o->cur, f, &e)) >= 0)
		opened = io_in_open_fd(&in, fd, f->path, &e);
	else
		opened = -1;
	if (opened < 0) {
		o->errors++;
		o->other_files++;
		return applet_fail_err("du", "cannot read", f->path, 0, &e);
	}
	io_in_hint(&in, 0, in.len, IO_IN_SPARSE);
	rc = du_walk(o, &sc, f->path, &in);
	if (split_archives(o, f->path, &in) < 0)
		rc = fail("cannot read", f->path, "out of memory");
	io_in_close(&in);
	return rc;
}

static int by_stored(const void *pa, const void *pb)
{
	const struct target *a = pa, *b = pb;

	if (a->s.stored != b->s.stored)
		return a->s.stored > b->s.stored ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void json_sum(const char *key, const struct sum *s)
{
	printf("\"%s\":{\"bytes\":%" PRIu64 ",\"stored\":%" PRIu64
	       ",\"entries\":%" PRIu64 ",\"files\":%" PRIu64 "}", key,
	       s->bytes, s->stored, s->entries, s->files);
}

/* Bytes that are neither device code nor host entries.  Entries of a
 * compressed offload package count their decompressed size as stored (the
 * package does not say each one's share), so the sum may pass the total:
 * then 0. */
static uint64_t other_bytes(const struct options *o)
{
	uint64_t code = o->device_stored + o->host.stored;

	return o->total > code ? o->total - code : 0;
}

static void print_json(const struct options *o, const char *end)
{
	fputs("{\"version\":1,\"targets\":[", stdout);
	for (size_t i = 0; i < o->n; i++) {
		const struct sum *s = &o->t[i].s;

		fputs(i ? ",{\"target\":" : "{\"target\":", stdout);
		json_put_str(stdout, o->t[i].name, strlen(o->t[i].name));
		printf(",\"bytes\":%" PRIu64 ",\"stored\":%" PRIu64
		       ",\"entries\":%" PRIu64 ",\"files\":%" PRIu64 "}",
		       s->bytes, s->stored, s->entries, s->files);
	}
	fputs("],", stdout);
	json_sum("host", &o->host);
	printf(",\"other\":{\"stored\":%" PRIu64 ",\"files\":%" PRIu64 "}",
	       other_bytes(o), o->other_files);
	printf(",\"total\":{\"stored\":%" PRIu64 ",\"files\":%" PRIu64
	       ",\"errors\":%" PRIu64 "}", o->total, o->files, o->errors);
	if (o->keep.n || o->drop.n) {
		putchar(',');
		json_sum("drop", &o->drop_sum);
	}
	fputs(end, stdout);
}

static void row(uint64_t stored, const char *code, const char *entries,
		const char *files, const char *name)
{
	char *esc = applet_escape(name, strlen(name), false);

	printf("%12" PRIu64 " %12s %8s %6s  %s\n", stored, code, entries, files,
	       esc ? esc : "?");
	free(esc);
}

static void row_sum(const struct sum *s, const char *name)
{
	char b[24], en[24], f[24];

	snprintf(b, sizeof(b), "%" PRIu64, s->bytes);
	snprintf(en, sizeof(en), "%" PRIu64, s->entries);
	snprintf(f, sizeof(f), "%" PRIu64, s->files);
	row(s->stored, b, en, f, name);
}

static void print_text(const struct options *o)
{
	char f[24];

	printf("%12s %12s %8s %6s  %s\n", "stored", "code", "entries", "files",
	       "target");
	for (size_t i = 0; i < o->n; i++)
		row_sum(&o->t[i].s, o->t[i].name);
	row_sum(&o->host, "host");
	snprintf(f, sizeof(f), "%" PRIu64, o->other_files);
	row(other_bytes(o), "-", "-", f, "no device code");
	snprintf(f, sizeof(f), "%" PRIu64, o->files);
	row(o->total, "-", "-", f, "total");
	if (o->keep.n || o->drop.n) {
		const struct sum *d = &o->drop_sum;
		unsigned pct = o->total ? (unsigned)((unsigned __int128)
				d->stored * 1000 / o->total) : 0;

		printf("prune would drop %" PRIu64 " entr%s, %" PRIu64
		       " bytes stored (%u.%u%% of the total), %" PRIu64
		       " of code; %" PRIu64 " file%s would be left with no "
		       "device code (--remove-files removes them)\n",
		       d->entries, d->entries == 1 ? "y" : "ies", d->stored,
		       pct / 10, pct % 10, d->bytes, d->files,
		       d->files == 1 ? "" : "s");
	}
}

/* ---- options ---- */

#define AT(member) offsetof(struct options, member)

static const struct opt rows[] = {
	OPT_SELECT('t', "target", "PATTERN",
		   "only the targets PATTERN takes (a target ID as\n"
		   "a GPU loads it, a bundle ID, a glob or native;\n"
		   "comma-separated, repeatable)", AT(targets)),
	OPT_SELECT('k', "keep", "TARGETS",
		   "also say what offload prune --keep TARGETS\n"
		   "would drop", AT(keep)),
	OPT_SELECT('d', "drop", "PATTERNS",
		   "the same for prune --drop PATTERNS", AT(drop)),
	OPT_FLAG(0, "exact", "--keep and --drop as prune --exact takes them",
		 AT(keep.exact)),
	OPT_FLAG(0, "json", "one JSON object (schema in offload-du(1))",
		 AT(json)),
	OPT_FLAG('q', "quiet", "no progress line (shown on a terminal)",
		 AT(quiet)),
};

static const struct opts table = {
	.applet = "du", .usage = usage, .column = 26, OPTS_ROWS(rows),
	.no_operand = "no input file",
	.ccob_env = true, .ccob_at = AT(walk.ccob),
};

/* The files of an image's layers. */
struct image_scan {
	struct options *o;
	const char *spec;
	const char *layer;
	const char *what;	/* "layer", or a package's "member" */
	uint64_t base, wanted;	/* files before the layer; walked */
	int rc;
};

static bool du_wants(void *ctx, const uint8_t *head, size_t len)
{
	enum host_format f;

	(void)ctx;
	return hosts_probe(head, len, &f);
}

static int du_member(void *ctx, const struct layer_member *m,
		     const struct io_in *data, struct io_in *repl,
		     struct err *e)
{
	struct image_scan *is = ctx;
	struct scan sc = { .o = is->o, .file = (size_t)(is->base + m->index + 1) };
	char *path;

	(void)repl;
	(void)e;
	is->wanted++;
	if (asprintf(&path, "%s: %s %s: %.*s", is->spec, is->what, is->layer,
		     (int)m->name_len, m->name) < 0)
		return err_nomem(e);
	is->rc |= du_walk(is->o, &sc, path, data);
	free(path);
	return 0;
}

/* What one layer holds added to the whole image's sums in o. */
static int merge(struct options *o, const struct options *l)
{
	for (size_t i = 0; i < l->n; i++) {
		int j = find_target(o, l->t[i].name, strlen(l->t[i].name));

		if (j < 0)
			return -1;
		o->t[j].s.bytes += l->t[i].s.bytes;
		o->t[j].s.stored += l->t[i].s.stored;
		o->t[j].s.entries += l->t[i].s.entries;
		o->t[j].s.files += l->t[i].s.files;
	}
	o->host.bytes += l->host.bytes;
	o->host.stored += l->host.stored;
	o->host.entries += l->host.entries;
	o->host.files += l->host.files;
	o->drop_sum.bytes += l->drop_sum.bytes;
	o->drop_sum.stored += l->drop_sum.stored;
	o->drop_sum.entries += l->drop_sum.entries;
	o->drop_sum.files += l->drop_sum.files;
	o->total += l->total;
	o->files += l->files;
	o->other_files += l->other_files;
	o->errors += l->errors;
	o->device_stored += l->device_stored;
	return 0;
}

/* du IMAGE: a table per layer (its files, as a tree's), then the sums. */
static int du_image(struct options *o, const char *spec)
{
	struct image im;
	struct err e;
	size_t nlayer;
	int rc = 0;

	if (image_open(&im, spec, &e) < 0) {
		image_close(&im);
		return applet_fail_err("du", "cannot read image", spec, 0, &e);
	}
	if (o->json) {
		fputs("{\"version\":1,\"image\":", stdout);
		json_put_str(stdout, spec, strlen(spec));
		fputs(",\"layers\":[", stdout);
	}
	for (size_t i = 0; i < im.nlayer && !rc; i++) {
		struct options l = *o;
		const struct image_layer *il = &im.layer[i];
		struct image_scan is = { .o = &l, .spec = spec, .what = "layer",
					 .layer = il->digest[0] ? il->digest
								: il->path };
		struct layer_walk w = { .wants = du_wants, .member = du_member,
					.ctx = &is };

		l.t = NULL;
		l.n = l.cap = 0;
		memset(&l.host, 0, sizeof(l.host));
		memset(&l.drop_sum, 0, sizeof(l.drop_sum));
		l.host_last = 0;
		l.total = l.files = l.other_files = l.errors = 0;
		l.device_stored = 0;
		is.base = o->files;
		if (image_layer_walk(&im, i, &w, &e) < 0) {
			rc = applet_fail_err("du", "cannot read image", spec, 0,
					     &e);
		} else {
			l.total = w.file_bytes;
			l.files = w.files;
			l.other_files += w.files - is.wanted;
			rc = is.rc;
			if (l.n)
				qsort(l.t, l.n, sizeof(*l.t), by_stored);
			if (o->json) {
				printf("%s{\"layer\":", i ? "," : "");
				json_put_str(stdout, is.layer, strlen(is.layer));
				printf(",\"blob\":%" PRIu64 ",\"compression\":"
				       "\"%s\",\"du\":", il->size,
				       layer_codec_name(il->codec));
				print_json(&l, "}}");
			} else {
				printf("layer %s: %" PRIu64 " bytes (%s)\n",
				       is.layer, il->size,
				       layer_codec_name(il->codec));
				print_text(&l);
			}
			if (merge(o, &l) < 0)
				rc = fail("cannot read image", spec, "out of memory");
		}
		/* The selections were the layer's to use (what they matched
		 * noted): back to o, whose they are. */
		o->targets = l.targets;
		o->keep = l.keep;
		o->drop = l.drop;
		for (size_t j = 0; j < l.n; j++)
			free(l.t[j].name);
		free(l.t);
	}
	nlayer = im.nlayer;
	image_close(&im);
	if (rc) {
		if (o->json)
			fputs("]}\n", stdout);
		return rc;
	}
	if (o->n)
		qsort(o->t, o->n, sizeof(*o->t), by_stored);
	if (o->json) {
		fputs("],\"all\":", stdout);
		print_json(o, "}}\n");
	} else {
		printf("all %zu layers:\n", nlayer);
		print_text(o);
	}
	return applet_select_unmatched("du", "--target", NULL, &o->targets);
}

/* du PKG: the files of a Debian package's data.tar or of a wheel, as a
 * tree's, under a line saying what holds them (the data member, its size
 * and compression; the wheel). */
static int du_package(struct options *o, const char *path)
{
	struct image_scan is = { .o = o, .spec = path, .what = "member" };
	struct layer_walk w = { .wants = du_wants, .member = du_member,
				.ctx = &is };
	const struct deb_member *m = NULL;
	bool deb = deb_is(path), conda = !deb && conda_is(path);
	struct wheel wh = { .in = { .fd = -1 } };
	struct deb d = { .in = { .fd = -1 } };
	struct err e;
	int rc = 1;

	if (conda ? conda_walk(path, &w, &e) < 0
	    : deb ? deb_open(&d, path, &e) < 0 || deb_data_walk(&d, &w, &e) < 0
		: wheel_open(&wh, path, &e) < 0 ||
		  wheel_walk(&wh, du_wants, du_member, NULL, &is, &e) < 0) {
		rc = applet_fail_err("du", "cannot read package", path, 0, &e);
		goto out;
	}
	o->total = w.file_bytes;
	o->files = w.files;
	for (size_t i = 0; !deb && !conda && i < wh.zip.n; i++) {
		const struct zip_entry *en = &wh.zip.entry[i];

		o->files += en->name_len && en->name[en->name_len - 1] != '/';
		o->total += en->usize;
	}
	o->other_files += o->files - is.wanted;
	if (o->n)
		qsort(o->t, o->n, sizeof(*o->t), by_stored);
	if (deb)
		m = &d.member[d.data];
	if (o->json) {
		fputs("{\"version\":1,\"package\":", stdout);
		json_put_str(stdout, path, strlen(path));
		if (m) {
			fputs(",\"member\":", stdout);
			json_put_str(stdout, m->name, strlen(m->name));
		}
		printf(",\"size\":%" PRIu64 ",\"compression\":\"%s\",\"du\":",
		       m ? m->size : (uint64_t)wh.in.len,
		       m ? layer_codec_name(m->codec) : conda ? "zstd" : "zip");
		print_json(o, "}}\n");
	} else if (m) {
		printf("%s: %s, %" PRIu64 " bytes (%s)\n", path, m->name,
		       m->size, layer_codec_name(m->codec));
		print_text(o);
	} else {
		if (conda)
			printf("%s: pkg tar (zstd)\n", path);
		else
			printf("%s: %zu bytes (zip)\n", path, wh.in.len);
		print_text(o);
	}
	rc = is.rc | applet_select_unmatched("du", "--target", NULL,
					     &o->targets);
out:
	if (deb)
		deb_close(&d);
	else if (!conda)
		wheel_close(&wh);
	return rc;
}

static int du_run(struct options *o, int argc, char **argv)
{
	struct tree tree = { 0 };
	struct err e;
	int rc, first;

	if ((rc = opts_parse(&table, o, argc, argv, &first)) >= 0)
		return rc;
	rc = 0;
	o->drop.exact = o->keep.exact;	/* --exact */
	if (o->keep.n && o->drop.n)
		return usage_error("say what to keep (--keep) or what to drop "
				   "(--drop), not both");
	if (select_check_ids(&o->keep, &e) < 0 ||
	    select_check_ids(&o->drop, &e) < 0)
		return usage_error("%s %s", o->keep.n ? "--keep" : "--drop",
				   e.msg);
	if (argc - first == 1 && image_is(argv[first]))
		return du_image(o, argv[first]);
	if (argc - first == 1 && (deb_is(argv[first]) ||
				   wheel_is(argv[first]) ||
				   conda_is(argv[first])))
		return du_package(o, argv[first]);
	for (int i = first; i < argc; i++)
		if (tree_add(&tree, argv[i], true) < 0)
			goto oom;
	if (tree_links(&tree) < 0)
		goto oom;
	o->tree = &tree;
	for (size_t i = 0; i < tree.nerr; i++) {
		rc = applet_fail_err("du", "cannot read", tree.err[i].path, 0,
				     &tree.err[i]);
		o->errors++;
	}
	/* The line counts files: "offload du: DIR: 40%". */
	progress_init("du", o->quiet);
	progress_name(argv[first]);
	if (tree.n && !(o->seen = malloc(tree.n * sizeof(*o->seen))))
		goto oom;
	if (tree.n) {	/* (qsort of no array: undefined) */
		memcpy(o->seen, tree.file, tree.n * sizeof(*o->seen));
		o->nseen = tree.n;
		qsort(o->seen, o->nseen, sizeof(*o->seen), cmp_file);
	}
	for (size_t i = 0; i < tree.n; i++) {
		o->files++;
		progress_show(i, tree.n);
		rc |= du_file(o, &tree.file[i], false);
	}
	/* (Archives are no split binaries: none is added from here.) */
	for (size_t i = 0; i < o->nextra; i++) {
		o->files++;
		rc |= du_file(o, &o->extra[i], true);
	}
	progress_show(tree.n, tree.n);
	progress_end();
	if (o->n)	/* (qsort of no array: undefined) */
		qsort(o->t, o->n, sizeof(*o->t), by_stored);
	if (o->json)
		print_json(o, "}\n");
	else
		print_text(o);
	rc |= applet_select_unmatched("du", "--target", NULL, &o->targets);
	tree_cursor_close(&o->cur);
	tree_free(&tree);
	return rc;
oom:
	tree_cursor_close(&o->cur);
	tree_free(&tree);
	return fail("cannot read", argv[first], "out of memory");
}

int du_main(int argc, char **argv)
{
	struct options o = {
		.cur = TREE_CURSOR_INIT,
		.walk = {
			.accept_other = true,
			.ccob = { .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				  .max_size = CCOB_DEFAULT_MAX_SIZE },
			.package = { .max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
				     .max_size = PACKAGE_DEFAULT_MAX_SIZE },
		},
	};
	int rc = du_run(&o, argc, argv);

	for (size_t i = 0; i < o.n; i++)
		free(o.t[i].name);
	free(o.t);
	for (size_t i = 0; i < o.nextra; i++)
		free(o.extra[i].path);
	free(o.extra);
	free(o.seen);
	select_free(&o.targets);
	select_free(&o.keep);
	select_free(&o.drop);
	return rc;
}
