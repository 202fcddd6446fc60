/* deb_prune: a Debian package pruned, its sums and size kept true
 * (deb_prune.h). */
#include <inttypes.h>
#include <md5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deb_prune.h"
#include "hosts.h"
#include "member_prune.h"
#include "prune.h"
#include "prune_plan.h"
#include "xz_splice.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/io_write.h"
#include "../formats/ar.h"

/* A file pruned: its name (no "./"), its new md5 and both sizes. */
struct changed {
	char *name;
	char md5[MD5_DIGEST_STRING_LENGTH];
	uint64_t before, after;
};

struct prune_ctx {
	struct deb *d;
	const struct deb_prune_opts *o;
	struct deb_prune_result *res;
	struct member_prune mp;
	struct changed *changed;
	size_t nchanged;
};

/* The MD5 of in's bytes: a run at a time, the pages of a scratch view (a
 * spilled or pruned file) let go as they are hashed. */
static void md5_hex(const struct io_in *in, char hex[MD5_DIGEST_STRING_LENGTH])
{
	enum { RUN = 8 << 20 };
	MD5_CTX m;

	MD5Init(&m);
	for (size_t off = 0; off < in->len; off += RUN) {
		size_t n = in->len - off < RUN ? in->len - off : RUN;

		MD5Update(&m, in->data + off, n);
		io_in_hint(in, off, off + n, IO_IN_DONE);
	}
	MD5End(&m, hex);
}

/* The file's plan: 0 nothing to drop, 1 a plan to write, -1 failed. */
static int plan(struct prune_ctx *c,
		const struct io_in *data, struct err *e)
{
	struct prune_opts po = c->o->prune;

	po.decide_only = c->o->dry_run;
	return member_prune_plan(&c->mp, data, &po, e);
}

/* A file prune changes: checked against md5sums, written again. */
static int rewrite(void *ctx, const struct layer_member *m,
		   const struct io_in *data, struct io_in *repl, struct err *e)
{
	struct prune_ctx *c = ctx;
	size_t len = m->name_len;
	const char *name = deb_name(m->name, &len);
	const char *sum = deb_md5sum(c->d, name, len);
	char hex[MD5_DIGEST_STRING_LENGTH];
	struct changed *ch;
	int r = plan(c, data, e);

	if (r <= 0)
		return r < 0 ? err_wrap(e, e->code, "'%.*s'", (int)len, name)
			     : 0;
	c->res->files++;
	if (sum) {
		md5_hex(data, hex);
		if (memcmp(hex, sum, 32))
			return err_code_set(e, ERR_MALFORMED, "'%.*s' does not "
					    "match its md5sums line (it is "
					    "%s, not %.32s)", (int)len, name,
					    hex, sum);
	}
	if (c->o->dry_run)
		return 0;
	ch = realloc(c->changed, (c->nchanged + 1) * sizeof(*ch));
	if (!ch)
		return err_nomem(e);
	c->changed = ch;
	ch = &c->changed[c->nchanged];
	if (!(ch->name = strndup(name, len)))
		return err_nomem(e);
	c->nchanged++;
	if (member_prune_write(&c->mp, data, repl, e) < 0)
		return err_wrap(e, e->code, "'%.*s'", (int)len, name);
	md5_hex(repl, ch->md5);
	ch->before = data->len;
	ch->after = repl->len;
	c->res->code_before += data->len;
	c->res->code_after += repl->len;
	return 1;
}

/* md5sums with the changed files' sums in place: every other byte kept. */
static char *new_md5sums(const struct prune_ctx *c, size_t *len)
{
	const struct deb *d = c->d;
	char *s = malloc(d->md5sums_len + 1);

	if (!s)
		return NULL;
	memcpy(s, d->md5sums, d->md5sums_len + 1);
	for (size_t i = 0; i < c->nchanged; i++) {
		const char *at = deb_md5sum(d, c->changed[i].name,
					    strlen(c->changed[i].name));

		if (at)
			memcpy(s + (at - d->md5sums), c->changed[i].md5, 32);
	}
	*len = d->md5sums_len;
	return s;
}

/* The value of control's Installed-Size field: its offset and length in
 * the text, or -1 when there is none. */
static long long installed_size(const char *text, size_t *at, size_t *len)
{
	static const char field[] = "Installed-Size:";
	const char *p = text;

	for (; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char *end;
		long long v;

		if (strncasecmp(p, field, sizeof(field) - 1))
			continue;
		p += sizeof(field) - 1;
		p += strspn(p, " \t");
		v = strtoll(p, &end, 10);
		if (end == p || v < 0)
			return -1;
		*at = (size_t)(p - text);
		*len = (size_t)(end - p);
		return v;
	}
	return -1;
}

static long long kib(uint64_t bytes)
{
	return (long long)((bytes + 1023) / 1024);
}

/* control with Installed-Size moved by each changed file's change in
 * KiB (dpkg-gencontrol adds each file's size rounded up to a KiB). */
static char *new_control(const struct prune_ctx *c, size_t *len)
{
	const struct deb *d = c->d;
	size_t at, old_len;
	long long v = installed_size(d->control_text, &at, &old_len);
	char num[32], *s;
	int n;

	c->res->installed_before = c->res->installed_after = v;
	if (v < 0) {
		*len = d->control_text_len;
		return strdup(d->control_text);
	}
	for (size_t i = 0; i < c->nchanged; i++)
		v += kib(c->changed[i].after) - kib(c->changed[i].before);
	c->res->installed_after = v;
	n = snprintf(num, sizeof(num), "%lld", v);
	*len = d->control_text_len - old_len + (size_t)n;
	if (!(s = malloc(*len + 1)))
		return NULL;
	memcpy(s, d->control_text, at);
	memcpy(s + at, num, (size_t)n);
	memcpy(s + at + n, d->control_text + at + old_len,
	       d->control_text_len - at - old_len + 1);
	return s;
}

/* dpkg-deb's level for each codec (its -z default): gzip 9, xz 6, zstd 3. */
static int dpkg_level(enum layer_codec c)
{
	switch (c) {
	case LAYER_NONE:
		return 0;
	case LAYER_GZIP:
		return 9;
	case LAYER_DEFLATE:	/* no package member's */
		return 6;
	case LAYER_ZSTD:
		return 3;
	case LAYER_XZ:
		return 6;
	case LAYER_BZIP2:	/* no package member's */
		return 9;
	}
	return 0;
}

/* The new md5sums and control, given for the control tar's files. */
struct control_ctx {
	char *md5sums, *control;
	size_t md5sums_len, control_len;
};

static int replace_control_file(void *ctx, const struct layer_member *m,
				const struct io_in *data, struct io_in *repl,
				struct err *e)
{
	struct control_ctx *c = ctx;
	size_t len = m->name_len;
	const char *name = deb_name(m->name, &len);

	(void)data;
	(void)e;
	memset(repl, 0, sizeof(*repl));
	repl->fd = -1;
	if (len == 7 && !memcmp(name, "md5sums", 7) && c->md5sums) {
		repl->data = (const uint8_t *)c->md5sums;
		repl->len = c->md5sums_len;
		return 1;
	}
	if (len == 7 && !memcmp(name, "control", 7)) {
		repl->data = (const uint8_t *)c->control;
		repl->len = c->control_len;
		return 1;
	}
	return 0;
}

/* A member's stream written, compressed with c as dpkg-deb would, into
 * the scratch file out; its size told. */
static int write_member(struct layer_walk *w, struct deb *d, size_t member,
			struct io_out *out, uint64_t *size, struct err *e)
{
	struct layer_writer *lw = NULL;
	char diff[SHA256_HEX + 1], hex[SHA256_HEX + 1];
	enum layer_codec codec = d->member[member].codec;
	int rc = -1;

	if (io_scratch_open(out, e) < 0 ||
	    layer_writer_open(&lw, codec, dpkg_level(codec), out, e) < 0)
		goto out;
	w->write = layer_writer_write;
	w->write_ctx = lw;
	if (member == d->data) {
		if (deb_data_walk(d, w, e) < 0)
			goto out;
	} else if (layer_walk(w, e) < 0) {
		err_wrap(e, e->code, "%s", d->member[member].name);
		goto out;
	}
	if (layer_writer_finish(lw, diff, hex, size, e) < 0)
		goto out;
	rc = 0;
out:
	layer_writer_close(lw);
	return rc;
}

/* The data tar in xz: written again with the original's blocks that
 * hold none of the changed files copied as they are (ops/xz_splice.c),
 * the rest compressed as dpkg-deb compresses. */
static int write_data_xz(struct layer_walk *w, struct deb *d,
			 struct io_out *out, uint64_t *size,
			 struct deb_prune_result *res, struct err *e)
{
	const struct deb_member *m = &d->member[d->data];
	struct xz_splice *s = NULL;
	struct xz_splice_told t;
	int rc = -1;

	if (io_scratch_open(out, e) < 0 ||
	    xz_splice_open(&s, &d->in, m->offset, m->size,
			   dpkg_level(LAYER_XZ), out, e) < 0)
		goto out;
	w->write = xz_splice_write;
	w->span = xz_splice_span;
	w->write_ctx = s;
	if (deb_data_walk(d, w, e) < 0 || xz_splice_finish(s, size, e) < 0)
		goto out;
	xz_splice_told(s, &t);
	res->blocks_copied = t.blocks_copied;
	res->bytes_copied = t.bytes_copied;
	res->blocks_made = t.blocks_made;
	res->bytes_made = t.bytes_made;
	rc = 0;
out:
	xz_splice_close(s);
	return rc;
}

/* The control tar written again with the new md5sums and control. */
static int write_control(struct prune_ctx *c, struct io_out *out,
			 uint64_t *size, struct err *e)
{
	struct deb *d = c->d;
	struct control_ctx cc = { 0 };
	struct layer_memory mr = { d->control_tar, d->control_len, 0 };
	struct layer_walk w = {
		.read = layer_memory_read, .read_ctx = &mr, .wants = layer_every_file,
		.member = replace_control_file, .ctx = &cc,
	};
	int rc = -1;

	if ((d->md5sums && !(cc.md5sums = new_md5sums(c, &cc.md5sums_len))) ||
	    !(cc.control = new_control(c, &cc.control_len))) {
		err_nomem(e);
		goto out;
	}
	rc = write_member(&w, d, d->control, out, size, e);
out:
	free(cc.md5sums);
	free(cc.control);
	return rc;
}

/* A member's ar header with a new size, the rest as it was. */
static int put_header(struct io_out *out, const struct deb *d,
		      const struct deb_member *m, uint64_t size, struct err *e)
{
	char h[AR_HEADER_LEN + 1];

	memcpy(h, d->in.data + m->header, AR_HEADER_LEN);
	snprintf(h + 48, 11, "%-10" PRIu64, size);
	h[58] = '`';
	return io_out_write(out, h, AR_HEADER_LEN, e);
}

/* The package: each member as it was but control and data, written from
 * their scratch files. */
static int write_deb(struct deb *d, struct io_out *out, struct io_out *ctl,
		     uint64_t ctl_size, struct io_out *data,
		     uint64_t data_size, uint64_t *written, struct err *e)
{
	struct io_in view;

	if (io_out_write(out, d->in.data, AR_MAGIC_LEN, e) < 0)
		return -1;
	*written = AR_MAGIC_LEN;
	for (size_t i = 0; i < d->nmember; i++) {
		const struct deb_member *m = &d->member[i];
		struct io_out *from = i == d->control ? ctl :
				      i == d->data ? data : NULL;
		uint64_t size = i == d->control ? ctl_size :
				i == d->data ? data_size : m->size;

		if (!from) {
			/* Header, bytes and padding as they were. */
			if (io_out_copy(out, &d->in, m->header,
					m->offset - m->header + m->size +
					(m->size & 1), e) < 0)
				return -1;
		} else if (put_header(out, d, m, size, e) < 0 ||
			   io_scratch_view(from, &view, e) < 0 ||
			   io_out_copy(out, &view, 0, view.len, e) < 0 ||
			   ((size & 1) && io_out_write(out, "\n", 1, e) < 0)) {
			return -1;
		}
		*written += AR_HEADER_LEN + size + (size & 1);
	}
	return 0;
}

int deb_prune(struct deb *d, struct io_out *out, const struct deb_prune_opts *o,
	      struct deb_prune_result *res, struct err *e)
{
	struct prune_ctx c = {
		.d = d, .o = o, .res = res, .mp = { .scratch = { .fd = -1 } },
	};
	struct layer_walk w = {
		.wants = hosts_member_wanted, .member = rewrite, .ctx = &c,
		.spill = o->spill,
	};
	struct io_out data = { .fd = -1 }, ctl = { .fd = -1 };
	uint64_t data_size = 0, ctl_size = 0;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	res->installed_before = res->installed_after = -1;
	res->deb_before = d->in.len;
	res->data_before = d->member[d->data].size;
	if (o->dry_run) {
		rc = deb_data_walk(d, &w, e);
		goto done;
	}
	/* The data tar decoded on this thread: xz's encoder has a thread
	 * per CPU and waits on none but this one, which keeps ahead of
	 * it (decoding is a twentieth of the encoding's CPU), and a
	 * threaded decoder's block buffers would be 128 MiB more. */
	d->decode_threads = 1;
	if ((d->member[d->data].codec == LAYER_XZ ?
	     write_data_xz(&w, d, &data, &data_size, res, e) :
	     write_member(&w, d, d->data, &data, &data_size, e)) < 0 ||
	    write_control(&c, &ctl, &ctl_size, e) < 0 ||
	    write_deb(d, out, &ctl, ctl_size, &data, data_size,
		      &res->deb_after, e) < 0)
		goto done;
	res->data_after = data_size;
	rc = 0;
done:
	member_prune_done(&c.mp);
	for (size_t i = 0; i < c.nchanged; i++)
		free(c.changed[i].name);
	free(c.changed);
	if (data.fd >= 0)
		io_out_discard(&data);
	if (ctl.fd >= 0)
		io_out_discard(&ctl);
	return rc;
}
