/* conda: a conda package pruned, its paths.json kept true (conda.h). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "conda.h"
#include "hosts.h"
#include "member_prune.h"
#include "layer_codec.h"
#include "prune.h"
#include "prune_plan.h"
#include "zip_rewrite.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/io_write.h"
#include "../core/sha256.h"

enum { CONDA_INFO_MAX = 64 << 20, CONDA_ZSTD_LEVEL = 19,
       /* What the probe of a .tar.bz2 decompresses at most. */
       CONDA_PROBE_MAX = 64 << 10 };

/* A file prune changed: its paths.json entry checked and given its new
 * sha256 and size once the walk is done (the entry may come later). */
struct changed {
	char *name;
	char old_hex[SHA256_HEX + 1], new_hex[SHA256_HEX + 1];
	uint64_t new_size;
};

struct conda {
	struct io_in in;
	bool tarbz2;		/* the older format: one tar, bzip2 */
	struct zip zip;
	size_t info, pkg;	/* entries of info-*.tar.zst and pkg-*.tar.zst */
	uint8_t *info_tar;	/* decompressed */
	size_t info_len;
	json_t *paths;		/* info/paths.json */
};

static bool ends_with(const char *path, const char *tail)
{
	size_t n = strlen(path), t = strlen(tail);

	return n > t && !strcmp(path + n - t, tail);
}

/* The ustar name of the first member that is not pax records or a GNU
 * long name starts with "info/", as conda-build and cph write them; or
 * the stream or tar is damaged before it (a package cut short or
 * damaged is said to be one, and refused, not passed over). */
static bool tarbz2_probe(const uint8_t *buf, size_t len)
{
	struct layer_reader *r = NULL;
	uint8_t block[TAR_BLOCK];
	uint64_t skip = 0, read = 0;
	bool is = false;
	struct err e;

	if (layer_codec_probe(buf, len) != LAYER_BZIP2 ||
	    layer_reader_open(&r, LAYER_BZIP2, buf, len, &e) < 0)
		return false;
	while (read < CONDA_PROBE_MAX) {
		struct tar_header h;
		size_t got;

		if (layer_reader_read(r, block, sizeof(block), &got, &e) < 0) {
			is = true;
			break;
		}
		if (got < sizeof(block))
			break;
		read += got;
		if (skip) {
			skip -= TAR_BLOCK;
			continue;
		}
		if (tar_header_parse(block, &h, &e) < 0) {
			is = true;	/* damaged, as above */
			break;
		}
		if (h.kind == TAR_PAX || h.kind == TAR_PAX_GLOBAL ||
		    h.kind == TAR_GNU_LONGNAME) {
			skip = tar_padded(h.size);
			continue;
		}
		is = !strncmp(h.name, "info/", 5) ||
		     !strncmp(h.name, "./info/", 7);
		break;
	}
	layer_reader_close(r);
	return is;
}

bool conda_is(const char *path)
{
	bool tarbz2 = ends_with(path, ".tar.bz2");
	struct io_in in;
	struct stat st;
	struct err e;
	bool is;

	if (!tarbz2 && !ends_with(path, ".conda"))
		return false;
	/* A FIFO is never opened to look (deb_is says why). */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (tarbz2 ? io_in_open(&in, path, &e)
		    : io_in_open_part(&in, path, 4, &e)) < 0)
		return false;
	is = conda_probe(path, in.data, in.len);
	io_in_close(&in);
	return is;
}

bool conda_probe(const char *name, const uint8_t *buf, size_t len)
{
	if (ends_with(name, ".conda"))
		return zip_probe(buf, len);
	return ends_with(name, ".tar.bz2") && tarbz2_probe(buf, len);
}

bool conda_is_tarbz2(const char *path)
{
	return ends_with(path, ".tar.bz2");
}

static bool named(const struct zip_entry *en, const char *prefix)
{
	size_t p = strlen(prefix);

	return en->name_len > p + 8 && !memcmp(en->name, prefix, p) &&
	       !memcmp(en->name + en->name_len - 8, ".tar.zst", 8) &&
	       !memchr(en->name, '/', en->name_len);
}

static bool is_paths(const struct layer_member *m)
{
	const char *n = m->name;
	size_t len = m->name_len;

	if (len >= 2 && n[0] == '.' && n[1] == '/') {
		n += 2;
		len -= 2;
	}
	return len == 15 && !memcmp(n, "info/paths.json", 15);
}

static int parse_paths(struct conda *c, const struct io_in *data,
		       struct err *e)
{
	json_error_t jerr;

	/* Held and parsed whole: bounded as a .conda's info tar is (a few
	 * KB of bzip2 could make it any size). */
	if (data->len > CONDA_INFO_MAX)
		return err_code_set(e, ERR_MALFORMED, "info/paths.json of %zu "
				    "bytes (at most %d)", data->len,
				    CONDA_INFO_MAX);
	json_decref(c->paths);
	c->paths = json_loadb((const char *)data->data, data->len,
			      JSON_REJECT_DUPLICATES, &jerr);
	if (!c->paths || !json_is_array(json_object_get(c->paths, "paths")))
		return err_code_set(e, ERR_MALFORMED, "info/paths.json: %s",
				    c->paths ? "no \"paths\" array" : jerr.text);
	return 0;
}

static int keep_paths(void *ctx, const struct layer_member *m,
		      const struct io_in *data, struct io_in *repl,
		      struct err *e)
{
	(void)repl;
	return is_paths(m) ? parse_paths(ctx, data, e) : 0;
}

/* The info tar read whole and its paths.json parsed. */
static int read_info(struct conda *c, struct err *e)
{
	const struct zip_entry *en = &c->zip.entry[c->info];
	struct layer_reader *r = NULL;
	struct layer_memory mr;
	struct layer_walk w = {
		.read = layer_memory_read, .read_ctx = &mr, .wants = layer_every_file,
		.member = keep_paths, .ctx = c,
	};
	size_t n;
	int rc = -1;

	if (layer_reader_open(&r, LAYER_ZSTD, c->in.data + en->data,
			      en->csize, e) < 0)
		return -1;
	if (!(c->info_tar = malloc(CONDA_INFO_MAX))) {
		err_nomem(e);
		goto out;
	}
	if (layer_reader_read(r, c->info_tar, CONDA_INFO_MAX, &n, e) < 0) {
		err_wrap(e, e->code, "%.*s", (int)en->name_len, en->name);
		goto out;
	}
	if (n == CONDA_INFO_MAX) {
		err_code_set(e, ERR_MALFORMED, "%.*s holds %d bytes or more",
			     (int)en->name_len, en->name, CONDA_INFO_MAX);
		goto out;
	}
	c->info_len = n;
	mr = (struct layer_memory){ c->info_tar, n, 0 };
	if (layer_walk(&w, e) < 0) {
		err_wrap(e, e->code, "%.*s", (int)en->name_len, en->name);
		goto out;
	}
	if (!c->paths) {
		err_code_set(e, ERR_MALFORMED, "%.*s has no info/paths.json",
			     (int)en->name_len, en->name);
		goto out;
	}
	rc = 0;
out:
	layer_reader_close(r);
	return rc;
}

static void conda_close(struct conda *c)
{
	io_in_close(&c->in);
	zip_close(&c->zip);
	free(c->info_tar);
	json_decref(c->paths);
}

/* The package in (taken) read: a .conda's zip and info tar; a .tar.bz2
 * is read as it is walked. */
static int conda_open(struct conda *c, struct io_in *in, struct err *e)
{
	memset(c, 0, sizeof(*c));
	c->in = *in;
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	c->tarbz2 = layer_codec_probe(c->in.data, c->in.len) == LAYER_BZIP2;
	if (c->tarbz2)
		return 0;
	if (zip_open(&c->zip, c->in.data, c->in.len, e) < 0)
		return -1;
	c->info = c->pkg = c->zip.n;
	for (size_t i = 0; i < c->zip.n; i++) {
		const struct zip_entry *en = &c->zip.entry[i];
		size_t *slot = named(en, "info-") ? &c->info :
			       named(en, "pkg-") ? &c->pkg : NULL;

		if (!slot)
			continue;
		if (*slot != c->zip.n)
			return err_code_set(e, ERR_MALFORMED, "two %s-*.tar.zst "
					    "members", slot == &c->info ?
					    "info" : "pkg");
		if (en->method != ZIP_STORED)
			return err_code_set(e, ERR_MALFORMED, "%.*s is not "
					    "stored", (int)en->name_len,
					    en->name);
		*slot = i;
	}
	if (c->info == c->zip.n || c->pkg == c->zip.n)
		return err_code_set(e, ERR_MALFORMED, "no %s-*.tar.zst member",
				    c->info == c->zip.n ? "info" : "pkg");
	return read_info(c, e);
}

/* The paths.json entry of a file, or NULL. */
static json_t *path_entry(const struct conda *c, const char *name, size_t len)
{
	json_t *paths = json_object_get(c->paths, "paths"), *p;
	size_t i;

	if (len >= 2 && name[0] == '.' && name[1] == '/') {
		name += 2;
		len -= 2;
	}
	json_array_foreach(paths, i, p) {
		json_t *n = json_object_get(p, "_path");

		if (json_is_string(n) && json_string_length(n) == len &&
		    !memcmp(json_string_value(n), name, len))
			return p;
	}
	return NULL;
}

struct prune_ctx {
	struct conda *c;
	const struct conda_prune_opts *o;
	struct conda_prune_result *res;
	struct member_prune mp;
	struct changed *changed;
	size_t nchanged;
};

/* A file prune changes: written again, noted for paths.json.  In a
 * .tar.bz2, paths.json itself is kept as it passes (info/ comes first,
 * but need not). */
static int rewrite(void *ctx, const struct layer_member *m,
		   const struct io_in *data, struct io_in *repl, struct err *e)
{
	struct prune_ctx *p = ctx;
	struct prune_opts po = p->o->prune;
	struct changed *ch;
	int planned;

	if (p->c->tarbz2 && is_paths(m))
		return parse_paths(p->c, data, e);
	po.decide_only = p->o->dry_run;
	if ((planned = member_prune_plan(&p->mp, data, &po, e)) <= 0)
		return planned < 0 ? err_wrap(e, e->code, "'%.*s'",
					      (int)m->name_len, m->name) : 0;
	p->res->files++;
	if (!(ch = realloc(p->changed, (p->nchanged + 1) * sizeof(*ch))))
		return err_nomem(e);
	p->changed = ch;
	ch = &p->changed[p->nchanged];
	memset(ch, 0, sizeof(*ch));
	if (!(ch->name = strndup(m->name, m->name_len)))
		return err_nomem(e);
	p->nchanged++;
	if (member_prune_sha256(data, ch->old_hex, e) < 0)
		return -1;
	if (p->o->dry_run)
		return 0;
	if (member_prune_write(&p->mp, data, repl, e) < 0 ||
	    member_prune_sha256(repl, ch->new_hex, e) < 0)
		return err_wrap(e, e->code, "'%.*s'", (int)m->name_len,
				m->name);
	ch->new_size = repl->len;
	p->res->code_before += data->len;
	p->res->code_after += repl->len;
	return 1;
}

/* Each changed file checked against its paths.json entry (a file whose
 * bytes did not match it is refused: a new sum would hide the damage),
 * the entry given its new sha256 and size. */
static int update_paths(struct prune_ctx *p, struct err *e)
{
	for (size_t i = 0; i < p->nchanged; i++) {
		const struct changed *ch = &p->changed[i];
		json_t *entry = path_entry(p->c, ch->name, strlen(ch->name));
		const char *sum = json_string_value(json_object_get(entry,
								    "sha256"));

		if (sum && strcmp(ch->old_hex, sum))
			return err_code_set(e, ERR_MALFORMED, "'%s' does not "
					    "match its paths.json sha256 (it is "
					    "%s)", ch->name, ch->old_hex);
		if (p->o->dry_run || !entry)
			continue;
		if (json_object_set_new(entry, "sha256",
					json_string(ch->new_hex)) ||
		    json_object_set_new(entry, "size_in_bytes",
					json_integer((json_int_t)ch->new_size)))
			return err_nomem(e);
	}
	return 0;
}

struct paths_ctx {
	char *text;
	size_t len;
};

static int replace_paths(void *ctx, const struct layer_member *m,
			 const struct io_in *data, struct io_in *repl,
			 struct err *e)
{
	struct paths_ctx *pc = ctx;

	(void)data;
	(void)e;
	if (!is_paths(m))
		return 0;
	memset(repl, 0, sizeof(*repl));
	repl->fd = -1;
	repl->data = (const uint8_t *)pc->text;
	repl->len = pc->len;
	return 1;
}

/* paths.json as conda-build writes it: its keys in their order,
 * indented by 2. */
static int dump_paths(const struct conda *c, struct paths_ctx *pc,
		      struct err *e)
{
	if (!(pc->text = json_dumps(c->paths, JSON_INDENT(2) |
				    JSON_PRESERVE_ORDER)))
		return err_nomem(e);
	pc->len = strlen(pc->text);
	return 0;
}

/* What a .tar.bz2's walks must see of its files: those a host format
 * claims, and JSON, info/paths.json among them (a walk sees a file's
 * head before its name). */
static bool wants_json(void *ctx, const uint8_t *head, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < len; i++)
		if (head[i] != ' ' && head[i] != '\t' && head[i] != '\r' &&
		    head[i] != '\n')
			return head[i] == '{';
	return false;
}

static bool wants_code_or_json(void *ctx, const uint8_t *head, size_t len)
{
	return wants_json(ctx, head, len) || hosts_member_wanted(ctx, head, len);
}

static void free_changed(struct prune_ctx *p)
{
	for (size_t i = 0; i < p->nchanged; i++)
		free(p->changed[i].name);
	free(p->changed);
}

/* A tar walked into a new .tar.zst in the scratch file out (seen through
 * view); its bytes and CRC told for the zip. */
static int write_tar(struct layer_walk *w, struct io_out *out,
		     struct io_in *view, struct zip_new *nw, size_t entry,
		     struct err *e)
{
	struct layer_writer *lw = NULL;
	char diff[SHA256_HEX + 1], blob[SHA256_HEX + 1];
	uint64_t size;
	uLong crc = crc32(0, NULL, 0);
	int rc = -1;

	if (io_scratch_open(out, e) < 0 ||
	    layer_writer_open(&lw, LAYER_ZSTD, CONDA_ZSTD_LEVEL, out, e) < 0)
		goto out;
	w->write = layer_writer_write;
	w->write_ctx = lw;
	if (layer_walk(w, e) < 0 ||
	    layer_writer_finish(lw, diff, blob, &size, e) < 0 ||
	    io_scratch_view(out, view, e) < 0)
		goto out;
	/* Its pages let go as they are summed, and copied by the kernel
	 * into the package (zip_new.from). */
	for (size_t at = 0; at < view->len;) {
		size_t part = view->len - at > (8u << 20) ? 8u << 20
							  : view->len - at;

		crc = crc32(crc, view->data + at, (uInt)part);
		io_in_hint(view, at, at + part, IO_IN_DONE);
		at += part;
	}
	*nw = (struct zip_new){ entry, view->data, size, size, (uint32_t)crc,
				view };
	rc = 0;
out:
	layer_writer_close(lw);
	return rc;
}

/* A .conda: pkg's tar pruned into a scratch file, paths.json updated in
 * info's, both given to zip_rewrite. */
static int prune_zip(struct conda *c, struct prune_ctx *p, struct io_out *out,
		     struct err *e)
{
	const struct zip_entry *en = &c->zip.entry[c->pkg];
	struct layer_walk w = { .wants = hosts_member_wanted, .member = rewrite,
				.ctx = p };
	struct layer_reader *r = NULL;
	struct io_out pkg = { .fd = -1 }, info = { .fd = -1 };
	struct paths_ctx pc = { 0 };
	struct layer_memory mr;
	struct zip_new nw[2];
	struct io_in view[2];
	int rc = -1;

	if (layer_reader_open(&r, LAYER_ZSTD, c->in.data + en->data,
			      en->csize, e) < 0)
		goto out;
	w.read = layer_reader_read;
	w.read_ctx = r;
	if ((p->o->dry_run ? layer_walk(&w, e) < 0
			   : write_tar(&w, &pkg, &view[0], &nw[0], c->pkg, e) < 0) ||
	    update_paths(p, e) < 0) {
		err_wrap(e, e->code, "%.*s", (int)en->name_len, en->name);
		goto out;
	}
	if (p->o->dry_run) {
		rc = 0;
		goto out;
	}
	/* Nothing pruned: the package as it was. */
	if (!p->res->files) {
		rc = zip_rewrite(&c->in, &c->zip, nw, 0, out, &p->res->after, e);
		goto out;
	}
	{
		struct layer_walk iw = { .read = layer_memory_read,
					 .read_ctx = &mr,
					 .wants = layer_every_file,
					 .member = replace_paths, .ctx = &pc };

		mr = (struct layer_memory){ c->info_tar, c->info_len, 0 };
		if (dump_paths(c, &pc, e) < 0 ||
		    write_tar(&iw, &info, &view[1], &nw[1], c->info, e) < 0)
			goto out;
	}
	rc = zip_rewrite(&c->in, &c->zip, nw, 2, out, &p->res->after, e);
out:
	layer_reader_close(r);
	free(pc.text);
	if (pkg.fd >= 0)
		io_out_discard(&pkg);
	if (info.fd >= 0)
		io_out_discard(&info);
	return rc;
}

/* The second pass over a .tar.bz2: the changed files in the order the
 * first met them, the next one due, and paths.json's new text. */
struct again {
	struct prune_ctx *p;
	struct paths_ctx *pc;
	size_t next;
};

/* A file pruned again, as the first pass pruned it: the same file (by
 * name) and the same bytes (by sha256), else the package changed between
 * the passes; paths.json replaced. */
static int rewrite_again(void *ctx, const struct layer_member *m,
			 const struct io_in *data, struct io_in *repl,
			 struct err *e)
{
	struct again *a = ctx;
	struct prune_ctx *p = a->p;
	const struct changed *ch = a->next < p->nchanged ?
				   &p->changed[a->next] : NULL;
	char hex[SHA256_HEX + 1];
	int planned;

	if (is_paths(m))
		return replace_paths(a->pc, m, data, repl, e);
	if ((planned = member_prune_plan(&p->mp, data, &p->o->prune, e)) < 0)
		return err_wrap(e, e->code, "'%.*s'", (int)m->name_len,
				m->name);
	if (!planned && !(ch && strlen(ch->name) == m->name_len &&
			  !memcmp(ch->name, m->name, m->name_len)))
		return 0;
	if (!planned || !ch || strlen(ch->name) != m->name_len ||
	    memcmp(ch->name, m->name, m->name_len))
		return err_code_set(e, ERR_CHANGED, "'%.*s' changed since it "
				    "was read", (int)m->name_len, m->name);
	if (member_prune_write(&p->mp, data, repl, e) < 0 ||
	    member_prune_sha256(repl, hex, e) < 0)
		return err_wrap(e, e->code, "'%.*s'", (int)m->name_len,
				m->name);
	if (strcmp(hex, ch->new_hex) || repl->len != ch->new_size)
		return err_code_set(e, ERR_CHANGED, "'%.*s' changed since it "
				    "was read", (int)m->name_len, m->name);
	a->next++;
	return 1;
}

/* A .tar.bz2: one tar, info/paths.json in it before the files whose sums
 * it holds (conda-build and cph put info/ first), so two passes over the
 * stream, no copy of the tar kept: the first prunes each file to learn
 * its new sha256 and size (and reads paths.json), the second prunes them
 * again, paths.json made new, into out with bzip2 at the input's block
 * size.  Only the file at hand is held: in memory, or over the spill
 * bound in a temporary file, and its pruned form in another, each let
 * go with the next file (it was the whole tar, uncompressed, in one). */
static int prune_tarbz2(struct conda *c, struct prune_ctx *p,
			struct io_out *out, struct err *e)
{
	struct layer_walk w = { .wants = wants_code_or_json, .member = rewrite,
				.ctx = p };
	struct layer_reader *r = NULL;
	struct layer_writer *bz = NULL;
	struct paths_ctx pc = { 0 };
	struct again a = { .p = p, .pc = &pc };
	char diff[SHA256_HEX + 1], blob[SHA256_HEX + 1];
	int rc = -1;

	if (layer_reader_open(&r, LAYER_BZIP2, c->in.data, c->in.len, e) < 0)
		goto out;
	w.read = layer_reader_read;
	w.read_ctx = r;
	if (layer_walk(&w, e) < 0)
		goto out;
	if (p->res->files && !c->paths) {
		err_code_set(e, ERR_MALFORMED, "no info/paths.json");
		goto out;
	}
	if (update_paths(p, e) < 0)
		goto out;
	if (p->o->dry_run) {
		rc = 0;
		goto out;
	}
	/* Nothing pruned: the package as it was. */
	if (!p->res->files) {
		if (io_out_copy(out, &c->in, 0, c->in.len, e) < 0)
			goto out;
		p->res->after = c->in.len;
		rc = 0;
		goto out;
	}
	layer_reader_close(r);
	r = NULL;
	if (dump_paths(c, &pc, e) < 0 ||
	    layer_reader_open(&r, LAYER_BZIP2, c->in.data, c->in.len, e) < 0 ||
	    layer_writer_open(&bz, LAYER_BZIP2, c->in.data[3] - '0', out, e) < 0)
		goto out;
	w = (struct layer_walk){ .read = layer_reader_read, .read_ctx = r,
				 .wants = wants_code_or_json,
				 .member = rewrite_again, .ctx = &a,
				 .write = layer_writer_write,
				 .write_ctx = bz };
	if (layer_walk(&w, e) < 0)
		goto out;
	if (a.next != p->nchanged) {
		err_code_set(e, ERR_CHANGED, "'%s' changed since it was read",
			     p->changed[a.next].name);
		goto out;
	}
	if (layer_writer_finish(bz, diff, blob, &p->res->after, e) < 0)
		goto out;
	rc = 0;
out:
	layer_reader_close(r);
	layer_writer_close(bz);
	free(pc.text);
	return rc;
}

int conda_prune(struct io_in *in, struct io_out *out,
		const struct conda_prune_opts *o,
		struct conda_prune_result *res, struct err *e)
{
	struct conda c;
	struct prune_ctx p = { .c = &c, .o = o, .res = res,
			       .mp = { .scratch = { .fd = -1 } } };
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (conda_open(&c, in, e) < 0)
		goto out;
	res->before = c.in.len;
	rc = c.tarbz2 ? prune_tarbz2(&c, &p, out, e) : prune_zip(&c, &p, out, e);
out:
	member_prune_done(&p.mp);
	free_changed(&p);
	conda_close(&c);
	return rc;
}

int conda_walk(const char *path, struct layer_walk *w, struct err *e)
{
	struct io_in in = { .fd = -1 };

	if (io_in_open(&in, path, e) < 0)
		return -1;
	return conda_walk_in(&in, w, e);
}

int conda_walk_in(struct io_in *in, struct layer_walk *w, struct err *e)
{
	struct conda c;
	struct layer_reader *r = NULL;
	const uint8_t *tar = NULL;
	size_t tar_len = 0;
	const char *name = "";
	int name_len = 0, rc = -1;

	if (conda_open(&c, in, e) < 0)
		goto out;
	if (c.tarbz2) {
		tar = c.in.data;
		tar_len = c.in.len;
	} else {
		const struct zip_entry *en = &c.zip.entry[c.pkg];

		tar = c.in.data + en->data;
		tar_len = en->csize;
		name = en->name;
		name_len = (int)en->name_len;
	}
	if (layer_reader_open(&r, c.tarbz2 ? LAYER_BZIP2 : LAYER_ZSTD, tar,
			      tar_len, e) < 0)
		goto out;
	w->read = layer_reader_read;
	w->read_ctx = r;
	if ((rc = layer_walk(w, e)) < 0 && name_len)
		err_wrap(e, e->code, "%.*s", name_len, name);
out:
	layer_reader_close(r);
	conda_close(&c);
	return rc;
}
