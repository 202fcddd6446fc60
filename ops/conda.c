/* conda: a .conda package pruned, its paths.json kept true (conda.h). */
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
#include "../core/sha256.h"

enum { CONDA_INFO_MAX = 64 << 20, CONDA_ZSTD_LEVEL = 19 };

struct conda {
	struct io_in in;
	struct zip zip;
	size_t info, pkg;	/* entries of info-*.tar.zst and pkg-*.tar.zst */
	uint8_t *info_tar;	/* decompressed */
	size_t info_len;
	json_t *paths;		/* info/paths.json */
};

bool conda_is(const char *path)
{
	size_t n = strlen(path);
	struct io_in in;
	struct stat st;
	struct err e;
	bool is;

	if (n < 6 || strcmp(path + n - 6, ".conda"))
		return false;
	/* A FIFO is never opened to look (deb_is says why). */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    io_in_open_part(&in, path, 4, &e) < 0)
		return false;
	is = zip_probe(in.data, in.len);
	io_in_close(&in);
	return is;
}

static bool named(const struct zip_entry *en, const char *prefix)
{
	size_t p = strlen(prefix);

	return en->name_len > p + 8 && !memcmp(en->name, prefix, p) &&
	       !memcmp(en->name + en->name_len - 8, ".tar.zst", 8) &&
	       !memchr(en->name, '/', en->name_len);
}

static int keep_paths(void *ctx, const struct layer_member *m,
		      const struct io_in *data, struct io_in *repl,
		      struct err *e)
{
	struct conda *c = ctx;
	json_error_t jerr;

	(void)repl;
	if (m->name_len != 15 || memcmp(m->name, "info/paths.json", 15))
		return 0;
	json_decref(c->paths);
	c->paths = json_loadb((const char *)data->data, data->len,
			      JSON_REJECT_DUPLICATES, &jerr);
	if (!c->paths || !json_is_array(json_object_get(c->paths, "paths")))
		return err_code_set(e, ERR_MALFORMED, "info/paths.json: %s",
				    c->paths ? "no \"paths\" array" : jerr.text);
	return 0;
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

static int conda_open(struct conda *c, const char *path, struct err *e)
{
	memset(c, 0, sizeof(*c));
	c->in.fd = -1;
	if (io_in_open(&c->in, path, e) < 0 ||
	    zip_open(&c->zip, c->in.data, c->in.len, e) < 0)
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
};

/* A pkg file prune changes: checked against paths.json, written again,
 * its entry there given its new sha256 and size. */
static int rewrite(void *ctx, const struct layer_member *m,
		   const struct io_in *data, struct io_in *repl, struct err *e)
{
	struct prune_ctx *p = ctx;
	struct prune_opts po = p->o->prune;
	json_t *entry = path_entry(p->c, m->name, m->name_len);
	const char *sum = json_string_value(json_object_get(entry, "sha256"));
	char hex[SHA256_HEX + 1];

	int planned;

	po.decide_only = p->o->dry_run;
	if ((planned = member_prune_plan(&p->mp, data, &po, e)) <= 0)
		return planned < 0 ? err_wrap(e, e->code, "'%.*s'",
					      (int)m->name_len, m->name) : 0;
	p->res->files++;
	if (sum) {
		if (member_prune_sha256(data, hex, e) < 0)
			return -1;
		if (strcmp(hex, sum))
			return err_code_set(e, ERR_MALFORMED, "'%.*s' does not "
					    "match its paths.json sha256 (it is "
					    "%s)", (int)m->name_len, m->name,
					    hex);
	}
	if (p->o->dry_run)
		return 0;
	if (member_prune_write(&p->mp, data, repl, e) < 0 ||
	    member_prune_sha256(repl, hex, e) < 0)
		return err_wrap(e, e->code, "'%.*s'", (int)m->name_len,
				m->name);
	if (entry && (json_object_set_new(entry, "sha256", json_string(hex)) ||
		      json_object_set_new(entry, "size_in_bytes",
					  json_integer((json_int_t)repl->len))))
		return err_nomem(e);
	p->res->code_before += data->len;
	p->res->code_after += repl->len;
	return 1;
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
	if (m->name_len != 15 || memcmp(m->name, "info/paths.json", 15))
		return 0;
	memset(repl, 0, sizeof(*repl));
	repl->fd = -1;
	repl->data = (const uint8_t *)pc->text;
	repl->len = pc->len;
	return 1;
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
	if (size > UINT32_MAX) {
		err_code_set(e, ERR_MALFORMED, "the package would need ZIP64");
		goto out;
	}
	/* Its pages let go as they are summed, and copied by the kernel
	 * into the package (zip_new.from). */
	for (size_t at = 0; at < view->len;) {
		size_t part = view->len - at > (8u << 20) ? 8u << 20
							  : view->len - at;

		crc = crc32(crc, view->data + at, (uInt)part);
		io_in_hint(view, at, at + part, IO_IN_DONE);
		at += part;
	}
	*nw = (struct zip_new){ entry, view->data, (uint32_t)size,
				(uint32_t)size, (uint32_t)crc, view };
	rc = 0;
out:
	layer_writer_close(lw);
	return rc;
}

int conda_prune(const char *path, const char *out,
		const struct conda_prune_opts *o,
		struct conda_prune_result *res, struct err *e)
{
	struct conda c;
	struct prune_ctx p = { .c = &c, .o = o, .res = res,
			       .mp = { .scratch = { .fd = -1 } } };
	struct layer_reader *r = NULL;
	struct io_out pkg = { .fd = -1 }, info = { .fd = -1 };
	struct paths_ctx pc = { 0 };
	struct layer_memory mr;
	struct zip_new nw[2];
	struct io_in view[2];
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (conda_open(&c, path, e) < 0)
		goto out;
	res->before = c.in.len;
	{
		const struct zip_entry *en = &c.zip.entry[c.pkg];
		struct layer_walk w = { .wants = hosts_member_wanted, .member = rewrite,
					.ctx = &p };

		if (layer_reader_open(&r, LAYER_ZSTD, c.in.data + en->data,
				      en->csize, e) < 0)
			goto out;
		w.read = layer_reader_read;
		w.read_ctx = r;
		if (o->dry_run ? layer_walk(&w, e) < 0
			       : write_tar(&w, &pkg, &view[0], &nw[0], c.pkg, e) < 0) {
			err_wrap(e, e->code, "%.*s", (int)en->name_len,
				 en->name);
			goto out;
		}
	}
	if (o->dry_run) {
		rc = 0;
		goto out;
	}
	/* Nothing pruned: the package as it was. */
	if (!res->files) {
		rc = zip_rewrite(&c.in, &c.zip, nw, 0, out, &res->after, e);
		goto out;
	}
	{
		struct layer_walk w = { .read = layer_memory_read, .read_ctx = &mr,
					.wants = layer_every_file,
					.member = replace_paths, .ctx = &pc };
		char *text = json_dumps(c.paths, JSON_INDENT(2) |
					JSON_PRESERVE_ORDER);

		if (!text) {
			err_nomem(e);
			goto out;
		}
		pc.len = strlen(text);
		pc.text = text;
		mr = (struct layer_memory){ c.info_tar, c.info_len, 0 };
		if (write_tar(&w, &info, &view[1], &nw[1], c.info, e) < 0)
			goto out;
	}
	rc = zip_rewrite(&c.in, &c.zip, nw, 2, out, &res->after, e);
out:
	member_prune_done(&p.mp);
	layer_reader_close(r);
	free(pc.text);
	if (pkg.fd >= 0)
		io_out_discard(&pkg);
	if (info.fd >= 0)
		io_out_discard(&info);
	conda_close(&c);
	return rc;
}

int conda_walk(const char *path, struct layer_walk *w, struct err *e)
{
	struct conda c;
	struct layer_reader *r = NULL;
	int rc = -1;

	if (conda_open(&c, path, e) == 0 &&
	    layer_reader_open(&r, LAYER_ZSTD, c.in.data +
			      c.zip.entry[c.pkg].data,
			      c.zip.entry[c.pkg].csize, e) == 0) {
		const struct zip_entry *en = &c.zip.entry[c.pkg];

		w->read = layer_reader_read;
		w->read_ctx = r;
		if ((rc = layer_walk(w, e)) < 0)
			err_wrap(e, e->code, "%.*s", (int)en->name_len,
				 en->name);
	}
	layer_reader_close(r);
	conda_close(&c);
	return rc;
}
