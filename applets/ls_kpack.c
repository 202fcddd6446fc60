/* ls_kpack: a kpack-split host binary (ROCm/rocm-kpack, docs/multi_arch_
 * packaging_with_kpack.md, "Binary Conversion"), shown as what it is: its
 * .rocm_kpack_ref (the TOC key of its code, the archives' search paths),
 * its HIPK wrappers (each the index of a code object, the "#<index>" of
 * its TOC key), and the code objects the archives hold for them, as
 * ops/kpack_find.h finds them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_kernels.h"
#include "ls_kpack.h"
#include "ls_rows.h"
#include "messages.h"
#include "../formats/amdgpu_co.h"
#include "../formats/kernels.h"
#include "../formats/kpack.h"
#include "../ops/kpack_find.h"

struct kpack_lister {
	const struct ls_kpack_opts *o;
	const struct ls_kpack_sink *sink;
	void *ctx;
	struct kpack_find kh;
	int rc;
};

static const char amdgcn[] = "amdgcn-amd-amdhsa";

/* One error line, now or kept for later (o->errs). */
static void error(struct kpack_lister *h, const char *what, const char *file,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void error(struct kpack_lister *h, const char *what, const char *file,
		  const char *fmt, ...)
{
	char why[ERR_PATH_MAX + ERR_WHY_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	h->rc = 1;
	if (h->o->errs)
		fprintf(h->o->errs, "offload ls: error: %s '%s': %s\n", what,
			file, why);
	else
		applet_fail("ls", what, file, "%s", why);
}

static void error_err(struct kpack_lister *h, const char *what, const char *file,
		      const struct err *e)
{
	error(h, what, e->path[0] ? e->path : file, "%s",
	      e->path[0] ? e->why : e->msg);
}

/* Does -t take the code for target (with its TOC key id, or none)? */
static bool selected(struct kpack_lister *h, const char *id, const char *target)
{
	struct select_entry en = {
		.id = id, .id_len = id ? strlen(id) : 0,
		.arch = target, .arch_len = strlen(target),
		.triple = amdgcn, .triple_len = sizeof(amdgcn) - 1,
	};
	struct select *sel = h->o->sel;

	return !sel || !sel->n || select_match(sel, &en);
}

bool ls_kpack_code_for(const uint8_t *code, uint64_t n, const char *target,
		       char *got, size_t got_len)
{
	struct kernel_list l;
	struct err e;
	bool ok;

	snprintf(got, got_len, "not an AMDGPU code object");
	if (amdgpu_co_kernels(code, (size_t)n, &l, &e) < 0)
		return false;
	snprintf(got, got_len, "%s", l.target_id[0] ? l.target_id : "no target");
	ok = !strcmp(l.target_id, target) || !strcmp(l.processor, target);
	kernels_free(&l);
	return ok;
}

int ls_kpack_verify_code(FILE *errs, const char *path, const void *code,
			 uint64_t size, const char *key, size_t key_len,
			 const char *target, size_t target_len)
{
	char got[96], *t;
	bool ok;

	if (!code)
		return 0;
	if (!(t = strndup(target ? target : "", target ? target_len : 0)))
		return 0;
	ok = ls_kpack_code_for(code, size, t, got, sizeof(got));
	free(t);
	if (ok)
		return 0;
	if (errs)
		fprintf(errs, "offload ls: error: bad code object in '%s': "
			"'%.*s' for %.*s: %s\n", path, (int)key_len, key,
			(int)target_len, target, got);
	return 1;
}

int ls_kpack_verify_entry(FILE *errs, const char *path,
			  const struct inspect_node *n)
{
	return ls_kpack_verify_code(errs, path, n->data, n->size, n->name,
				    n->name_len, n->arch, n->arch_len);
}

/* The entry i of archive a, which wrapper w resolves to: told, and with
 * --verify checked. */
static void entry(struct kpack_lister *h, const struct kpack_find_archive *a,
		  size_t w, size_t i, const char *target)
{
	const struct ls_kpack_opts *o = h->o;
	const struct kpack_entry *en = &a->k.v[i];
	bool kernels = o->rs && o->rs->kernels;
	struct inspect_node n;
	uint8_t *code = NULL;
	struct row r = { 0 };
	struct err e;
	char got[96];

	if (kpack_find_entry(a, i, o->verify || kernels,
			     &(struct ccob_limits){
				     .max_ratio = CCOB_DEFAULT_MAX_RATIO,
				     .max_size = CCOB_DEFAULT_MAX_SIZE },
			     &n, &code, &e) < 0) {
		/* Told without its code; what is wrong said. */
		struct inspect_node bare = {
			.kind = INSPECT_ENTRY, .container = FATBIN_KPACK,
			.index = (unsigned)i, .name = en->key,
			.name_len = strlen(en->key), .arch = en->target,
			.arch_len = strlen(en->target), .triple = amdgcn,
			.triple_len = sizeof(amdgcn) - 1, .size = en->size,
		};

		if (ls_row_fill(&r, &bare) < 0)
			goto oom;
		h->sink->entry(h->ctx, a, h->kh.index[w], &r);
		if (o->verify || kernels)
			error(h, "bad code object in", a->path, "%s", e.msg);
		goto out;
	}
	if (ls_row_fill(&r, &n) < 0 || (kernels && ls_entry_kernels(&r, &n) < 0))
		goto oom;
	h->sink->entry(h->ctx, a, h->kh.index[w], &r);
	if (kernels && r.kernels_why) {
		char *why = ls_kernels_unread(&r);

		error(h, "cannot read kernels in", a->path, "%s",
		      why ? why : "out of memory");
		free(why);
	}
	if (!o->verify)
		goto out;
	if (target && strcmp(en->target, target) &&
	    strncmp(target, en->target, strlen(en->target)))
		error(h, "bad code object in", a->path, "'%s' is for %s, not "
		      "the archive's %s", en->key, en->target, target);
	else if (!ls_kpack_code_for(n.data, n.size, en->target, got, sizeof(got)))
		error(h, "bad code object in", a->path, "'%s' for %s: %s",
		      en->key, en->target, got);
	goto out;
oom:
	error(h, "cannot list", h->kh.path, "out of memory");
out:
	ls_row_free(&r);
	free(code);
}

/* One archive: each wrapper's code object in it. */
static void archive(struct kpack_lister *h, const struct kpack_find_archive *a)
{
	if (a->target && !selected(h, NULL, a->target))
		return;
	h->sink->archive(h->ctx, a);
	if (!a->read) {
		if (a->damaged)
			error(h, "cannot list", a->path, "kpack archive: %s",
			      a->e.msg);
		else
			error_err(h, "cannot read", a->path, &a->e);
		h->sink->end(h->ctx, 2);
		return;
	}
	for (size_t w = 0; w < h->kh.nhipk; w++) {
		char key[4200];
		bool found = false;

		size_t from, n;

		kpack_find_key(&h->kh, w, key, sizeof(key));
		n = kpack_find_lookup(a, key, &from);
		found = n > 0;
		for (size_t x = from; x < from + n; x++) {
			size_t i = a->by_key[x].entry;

			if (selected(h, key, a->k.v[i].target))
				entry(h, a, w, i, a->target);
		}
		if (found)
			continue;
		h->sink->missing(h->ctx, a, h->kh.index[w], key);
		if (h->o->verify)
			error(h, "missing code object for", h->kh.path,
			      "wrapper #%" PRIu64 ": no '%s' in '%s'",
			      h->kh.index[w], key, a->path);
	}
	h->sink->end(h->ctx, 2);
}

int ls_kpack_host(const char *path, const uint8_t *buf, size_t len,
		  const struct ls_kpack_opts *o,
		  const struct ls_kpack_sink *sink, void *ctx)
{
	struct kpack_lister h = { .o = o, .sink = sink, .ctx = ctx };
	struct err e;
	int split = kpack_find_open(&h.kh, path, buf, len, &e);

	if (split < 0) {
		error(&h, "cannot list", path, "%s", e.msg);
		goto out;
	}
	if (!split)
		goto out;
	sink->host(ctx, &h.kh);
	for (size_t sp = 0; sp < h.kh.ref.npaths; sp++) {
		const char *pattern = h.kh.ref.paths[sp];
		size_t found = 0;

		sink->search(ctx, &h.kh, sp);
		if (h.kh.no_dir[sp] && o->verify)
			error(&h, "no archive for", path, "search path '%s': no "
			      "directory '%s'", pattern, h.kh.dir[sp]);
		for (size_t i = 0; i < h.kh.na; i++)
			if (h.kh.a[i].search == sp) {
				found++;
				archive(&h, &h.kh.a[i]);
			}
		if (!found && !h.kh.no_dir[sp] && o->verify)
			error(&h, "no archive for", path, "search path '%s' "
			      "finds no archive", pattern);
		sink->end(ctx, 1);
	}
	sink->end(ctx, 0);
out:
	kpack_find_close(&h.kh);
	return h.rc;
}

/* ---- the text lines ---- */

static void text_host(void *ctx, const struct kpack_find *h)
{
	(void)ctx;
	printf("  kpack-split: code '%s', %zu HIPK wrapper%s", h->ref.kernel_name,
	       h->nhipk, h->nhipk == 1 ? "" : "s");
	for (size_t i = 0; i < h->nhipk; i++)
		printf("%s#%" PRIu64, i ? ", " : " (", h->index[i]);
	printf("%s\n", h->nhipk ? ")" : "");
}

static void text_search(void *ctx, const struct kpack_find *h, size_t sp)
{
	(void)ctx;
	printf("    search path %s\n", h->ref.paths[sp]);
}

static void text_archive(void *ctx, const struct kpack_find_archive *a)
{
	(void)ctx;
	printf("    archive %s (%s)", a->path, a->target ? a->target : "?");
	if (a->read)
		printf(": %s, %zu entr%s", kpack_scheme_name(a->k.scheme), a->k.n,
		       a->k.n == 1 ? "y" : "ies");
	putchar('\n');
}

static void text_entry(void *ctx, const struct kpack_find_archive *a,
		       uint64_t wrapper, const struct row *r)
{
	const struct rows *rs = ctx;

	(void)a;
	(void)wrapper;
	printf("      %.*s  %.*s  %" PRIu64 "\n", (int)r->n.name_len, r->n.name,
	       (int)r->n.arch_len, r->n.arch, r->n.size);
	if (rs && rs->kernels)
		ls_print_kernels(stdout, rs, r, 8);
}

static void text_missing(void *ctx, const struct kpack_find_archive *a,
			 uint64_t wrapper, const char *key)
{
	(void)ctx;
	(void)a;
	(void)wrapper;
	printf("      %s  missing\n", key);
}

static void text_end(void *ctx, int level)
{
	(void)ctx;
	(void)level;
}

const struct ls_kpack_sink ls_kpack_text = {
	.host = text_host, .search = text_search, .archive = text_archive,
	.entry = text_entry, .missing = text_missing, .end = text_end,
};
