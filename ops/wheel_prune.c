/* wheel_prune: a wheel pruned, its RECORD kept true (wheel_prune.h). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hosts.h"
#include "layer_codec.h"
#include "member_prune.h"
#include "prune.h"
#include "prune_plan.h"
#include "wheel_prune.h"
#include "zip_rewrite.h"
#include "../core/io_out.h"
#include "../core/io_scratch.h"
#include "../core/io_write.h"
#include "../core/sha256.h"

/* A member written again: where its compressed bytes are in the pool. */
struct changed {
	size_t entry;
	uint64_t at;
	uint64_t csize, usize;
	uint32_t crc;
	char hash[44];		/* urlsafe base64 of its sha256 */
};

struct prune_ctx {
	struct wheel *w;
	const struct wheel_prune_opts *o;
	struct wheel_prune_result *res;
	struct member_prune mp;
	struct io_out pool;	/* every new member's compressed bytes */
	uint64_t pool_size;
	struct changed *changed;
	size_t nchanged;
};

/* Runs of a file read once, in order: a scratch view's pages (a member
 * inflated, a pruned file) leave our memory behind the reader. */
enum { RUN = 8 << 20 };

static size_t run_at(const struct io_in *in, size_t off)
{
	return in->len - off < RUN ? in->len - off : RUN;
}

static int rewrite(void *ctx, const struct layer_member *m,
		   const struct io_in *data, struct io_in *repl, struct err *e)
{
	struct prune_ctx *c = ctx;
	struct prune_opts po = c->o->prune;
	char hex[SHA256_HEX + 1], b64[44];
	size_t hash, size;

	int planned;

	po.decide_only = c->o->dry_run;
	if ((planned = member_prune_plan(&c->mp, data, &po, e)) <= 0)
		return planned < 0 ? err_wrap(e, e->code, "'%.*s'",
					      (int)m->name_len, m->name) : 0;
	c->res->files++;
	if (wheel_record_find(c->w, m->name, m->name_len, &hash, &size) == 0) {
		const char *h = c->w->record_text + hash;

		if (member_prune_sha256(data, hex, e) < 0)
			return -1;
		wheel_hash(hex, b64);
		if (strncmp(h, "sha256=", 7) || size - hash != 7 + 43 + 1 ||
		    memcmp(h + 7, b64, 43))
			return err_code_set(e, ERR_MALFORMED, "'%.*s' does not "
					    "match its RECORD line (its sha256 "
					    "is %s)", (int)m->name_len, m->name,
					    b64);
	}
	if (c->o->dry_run)
		return 0;
	if (member_prune_write(&c->mp, data, repl, e) < 0)
		return err_wrap(e, e->code, "'%.*s'", (int)m->name_len,
				m->name);
	c->res->code_before += data->len;
	c->res->code_after += repl->len;
	return 1;
}

/* New bytes for entry i, compressed as it was into the pool. */
static int add_changed(struct prune_ctx *c, size_t i, const struct io_in *in,
		       struct err *e)
{
	size_t len = in->len;
	const struct zip_entry *en = &c->w->zip.entry[i];
	enum layer_codec codec = en->method == ZIP_DEFLATED ? LAYER_DEFLATE
							     : LAYER_NONE;
	struct layer_writer *lw = NULL;
	char diff[SHA256_HEX + 1], blob[SHA256_HEX + 1];
	struct changed *ch;
	uint64_t csize;
	uLong crc = crc32(0, NULL, 0);

	if (!(ch = realloc(c->changed, (c->nchanged + 1) * sizeof(*ch))))
		return err_nomem(e);
	c->changed = ch;
	ch = &c->changed[c->nchanged];
	if (layer_writer_open(&lw, codec, 6, &c->pool, e) < 0)
		return -1;
	for (size_t off = 0; off < len; off += run_at(in, off)) {
		size_t n = run_at(in, off);

		crc = crc32(crc, in->data + off, (uInt)n);
		if (layer_writer_write(lw, in->data + off, n, e) < 0) {
			layer_writer_close(lw);
			return -1;
		}
		io_in_hint(in, off, off + n, IO_IN_DONE);
	}
	if (layer_writer_finish(lw, diff, blob, &csize, e) < 0) {
		layer_writer_close(lw);
		return err_wrap(e, e->code, "'%.*s'", (int)en->name_len,
				en->name);
	}
	layer_writer_close(lw);
	wheel_hash(diff, ch->hash);
	ch->entry = i;
	ch->at = c->pool_size;
	ch->csize = csize;
	ch->usize = len;
	ch->crc = (uint32_t)crc;
	c->pool_size += csize;
	c->nchanged++;
	return 0;
}

static int replaced(void *ctx, size_t entry, const struct io_in *repl,
		    struct err *e)
{
	return add_changed(ctx, entry, repl, e);
}

/* RECORD with each changed member's hash and size. */
static char *new_record(const struct prune_ctx *c, size_t *len)
{
	const struct wheel *w = c->w;
	size_t cap = w->record_len + c->nchanged * 80 + 1, at = 0;
	char *s = malloc(cap);
	/* Where each changed member's hash and size are in RECORD, found
	 * once (SIZE_MAX: it has no line), not at each line. */
	size_t *hash = calloc(c->nchanged + 1, sizeof(*hash));
	size_t *size = calloc(c->nchanged + 1, sizeof(*size));

	if (!s || !hash || !size) {
		free(s);
		s = NULL;
		goto out;
	}
	for (size_t i = 0; i < c->nchanged; i++) {
		const struct zip_entry *en = &w->zip.entry[c->changed[i].entry];

		if (wheel_record_find(w, en->name, en->name_len, &hash[i],
				      &size[i]) < 0)
			hash[i] = SIZE_MAX;
	}
	/* A pass over RECORD, line by line. */
	for (const char *p = w->record_text, *end = p + w->record_len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t line_end = (size_t)((nl ? nl + 1 : end) - w->record_text);
		size_t start = (size_t)(p - w->record_text);
		bool done = false;

		for (size_t i = 0; i < c->nchanged && !done; i++) {
			const struct changed *ch = &c->changed[i];
			size_t size_end;

			if (hash[i] < start || hash[i] >= line_end)
				continue;
			size_end = size[i] + strspn(w->record_text + size[i],
						    "0123456789");
			memcpy(s + at, w->record_text + start, hash[i] - start);
			at += hash[i] - start;
			at += (size_t)snprintf(s + at, cap - at, "sha256=%s,%"
					       PRIu64, ch->hash, ch->usize);
			memcpy(s + at, w->record_text + size_end,
			       line_end - size_end);
			at += line_end - size_end;
			done = true;
		}
		if (!done) {
			memcpy(s + at, w->record_text + start,
			       line_end - start);
			at += line_end - start;
		}
		p = w->record_text + line_end;
	}
	s[at] = 0;
	*len = at;
out:
	free(hash);
	free(size);
	return s;
}

/* The pool's bytes given to zip_rewrite. */
static int write_wheel(struct prune_ctx *c, struct io_out *out,
		       struct err *e)
{
	struct zip_new *nw = calloc(c->nchanged + 1, sizeof(*nw));
	struct io_in pool;
	int rc = -1;

	if (!nw)
		return err_nomem(e);
	if (io_scratch_view(&c->pool, &pool, e) < 0)
		goto out;
	for (size_t i = 0; i < c->nchanged; i++) {
		const struct changed *ch = &c->changed[i];

		nw[i] = (struct zip_new){ ch->entry, pool.data + ch->at,
					  ch->csize, ch->usize, ch->crc,
					  &pool };
	}
	rc = zip_rewrite(&c->w->in, &c->w->zip, nw, c->nchanged, out,
			 &c->res->after, e);
out:
	free(nw);
	return rc;
}

int wheel_prune(struct wheel *w, struct io_out *out,
		const struct wheel_prune_opts *o,
		struct wheel_prune_result *res, struct err *e)
{
	struct prune_ctx c = {
		.w = w, .o = o, .res = res, .mp = { .scratch = { .fd = -1 } },
		.pool = { .fd = -1 },
	};
	char *record = NULL;
	size_t record_len;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	res->before = w->in.len;
	if (!o->dry_run && io_scratch_open(&c.pool, e) < 0)
		return err_wrap(e, e->code, "the members written again");
	if (wheel_walk(w, hosts_member_wanted, rewrite,
		       o->dry_run ? NULL : replaced, &c, e) < 0)
		goto out;
	if (o->dry_run) {
		rc = 0;
		goto out;
	}
	/* Nothing pruned: the wheel as it was (RECORD not compressed anew). */
	if (c.nchanged && !(record = new_record(&c, &record_len))) {
		err_nomem(e);
		goto out;
	}
	if (record) {
		struct io_in text = { .data = (const uint8_t *)record,
				      .len = record_len, .fd = -1 };

		if (add_changed(&c, w->record, &text, e) < 0)
			goto out;
	}
	if (write_wheel(&c, out, e) < 0)
		goto out;
	rc = 0;
out:
	member_prune_done(&c.mp);
	free(record);
	free(c.changed);
	if (c.pool.fd >= 0)
		io_out_discard(&c.pool);
	return rc;
}
