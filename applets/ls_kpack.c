/* ls_kpack: a kpack-split host binary (ROCm/rocm-kpack, docs/multi_arch_
 * packaging_with_kpack.md, "Binary Conversion"), shown as what it is: its
 * .rocm_kpack_ref (the TOC key of its code, the archives' search paths),
 * its HIPK wrappers (each the index of a code object, the "#<index>" of
 * its TOC key), and the code objects the archives hold for them, as
 * liboffcode's offcode_split finds and reads them (include/offcode.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_kernels.h"
#include "ls_kpack.h"
#include "messages.h"

struct kpack_lister {
	const struct ls_kpack_opts *o;
	const struct ls_kpack_sink *sink;
	void *ctx;
	offcode_split *s;
	const char *path;	/* the binary */
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

/* The failure r about file: the file it names, else file with its whole
 * message. */
static void error_record(struct kpack_lister *h, const char *what,
			 const char *file, const offcode_error *r)
{
	const char *p = offcode_error_path(r);

	error(h, what, *p ? p : file, "%s", *p ? offcode_error_reason(r)
					     : offcode_error_message(r));
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
	ok = offcode_split_code_for(code, size, t, got, sizeof(got));
	free(t);
	if (ok)
		return 0;
	if (errs)
		fprintf(errs, "offload ls: error: bad code object in '%s': "
			"'%.*s' for %.*s: %s\n", path, (int)key_len, key,
			(int)target_len, target, got);
	return 1;
}

/* The entry i of archive k (at a), which the wrapper of code object
 * index wrapper resolves to: told, and with --verify checked.  Its code
 * is read when it lies in the archive as it is (its image kind), or is
 * to be checked or its kernels listed. */
static void entry(struct kpack_lister *h, size_t k,
		  const struct offcode_split_archive *a, uint64_t wrapper,
		  size_t i)
{
	const struct ls_kpack_opts *o = h->o;
	bool kernels = o->rs && o->rs->kernels, want = o->verify || kernels;
	struct offcode_split_entry en = { .size = sizeof(en) };
	struct ls_kpack_code c = { .archive = k, .index = i,
				   .wrapper = wrapper };
	offcode_error *why = NULL;
	const void *code = NULL;
	uint64_t size = 0;
	char got[96];

	if (offcode_split_entry(h->s, k, i, &en))
		return;
	c.key = en.key;
	c.target = en.target;
	c.size = en.code_size;
	if ((en.in_file || want) &&
	    offcode_split_read(h->s, k, i, 0, 0, &code, &size, &why)) {
		/* Told without its code; what is wrong said. */
		h->sink->entry(h->ctx, h->s, a, &c);
		if (want)
			error(h, "bad code object in", a->path, "%s",
			      offcode_error_message(why));
		goto out;
	}
	c.in_file = en.in_file;
	c.offset = en.offset;
	c.image_kind = code ? offcode_split_image_kind(code, size) : NULL;
	if (kernels && ls_code_kernels(&c.kernels, code, (size_t)size) < 0) {
		error(h, "cannot list", h->path, "out of memory");
		goto out;
	}
	h->sink->entry(h->ctx, h->s, a, &c);
	if (kernels && c.kernels.error) {
		/* Named as the archive's listing names its entry. */
		char *t = *en.target ? applet_escape(en.target,
						     strlen(en.target), false)
				     : NULL;

		error(h, "cannot read kernels in", a->path,
		      "kpack #0 entry %zu%s%s%s: %s", i, t ? " (" : "",
		      t ? t : "", t ? ")" : "", ls_kernels_why(&c.kernels));
		free(t);
	}
	if (!o->verify)
		goto out;
	if (a->target && strcmp(en.target, a->target) &&
	    strncmp(a->target, en.target, strlen(en.target)))
		error(h, "bad code object in", a->path, "'%s' is for %s, not "
		      "the archive's %s", en.key, en.target, a->target);
	else if (!offcode_split_code_for(code, size, en.target, got,
					 sizeof(got)))
		error(h, "bad code object in", a->path, "'%s' for %s: %s",
		      en.key, en.target, got);
out:
	offcode_error_free(why);
	ls_code_kernels_free(&c.kernels);
}

/* Archive k (a): each wrapper's code object in it. */
static void archive(struct kpack_lister *h, size_t k,
		    const struct offcode_split_archive *a)
{
	if (a->target && !selected(h, NULL, a->target))
		return;
	h->sink->archive(h->ctx, a);
	if (a->error) {
		if (a->damaged)
			error(h, "cannot list", a->path, "kpack archive: %s",
			      offcode_error_message(a->error));
		else
			error_record(h, "cannot read", a->path, a->error);
		h->sink->end(h->ctx, 2);
		return;
	}
	for (size_t w = 0; w < offcode_split_wrapper_count(h->s); w++) {
		size_t n = offcode_split_code_count(h->s, k, w);
		const char *wkey = NULL;
		uint64_t index = 0;
		char *key;

		/* (the key is s's until the next call: kept) */
		if (offcode_split_wrapper(h->s, w, &index, &wkey) ||
		    !(key = strdup(wkey))) {
			error(h, "cannot list", h->path, "out of memory");
			break;
		}
		for (size_t x = 0; x < n; x++) {
			size_t i = offcode_split_code(h->s, k, w, x);
			struct offcode_split_entry en = { .size = sizeof(en) };

			if (!offcode_split_entry(h->s, k, i, &en) &&
			    selected(h, key, en.target))
				entry(h, k, a, index, i);
		}
		if (!n) {
			h->sink->missing(h->ctx, a, index, key);
			if (h->o->verify)
				error(h, "missing code object for", h->path,
				      "wrapper #%" PRIu64 ": no '%s' in '%s'",
				      index, key, a->path);
		}
		free(key);
	}
	h->sink->end(h->ctx, 2);
}

int ls_kpack_host(const char *path, const uint8_t *buf, size_t len,
		  const struct ls_kpack_opts *o,
		  const struct ls_kpack_sink *sink, void *ctx)
{
	struct kpack_lister h = { .o = o, .sink = sink, .ctx = ctx,
				  .path = path };
	offcode_error *why = NULL;
	int opened = offcode_split_open_memory(buf, len, path, &h.s, &why);

	if (opened == OFFCODE_NOTHING)
		return 0;
	if (opened) {
		error(&h, "cannot list", path, "%s", offcode_error_message(why));
		offcode_error_free(why);
		return h.rc;
	}
	sink->host(ctx, h.s);
	/* (the archives come each search path's in turn: k runs on) */
	for (size_t sp = 0, k = 0; sp < offcode_split_search_count(h.s); sp++) {
		struct offcode_split_search p = { .size = sizeof(p) };

		if (offcode_split_search(h.s, sp, &p))
			continue;
		sink->search(ctx, &p);
		if (p.no_dir && o->verify)
			error(&h, "no archive for", path, "search path '%s': no "
			      "directory '%s'", p.path, p.dir);
		for (; k < offcode_split_archive_count(h.s); k++) {
			struct offcode_split_archive a = { .size = sizeof(a) };

			if (offcode_split_archive(h.s, k, &a) || a.search != sp)
				break;
			archive(&h, k, &a);
		}
		if (!p.archives && !p.no_dir && o->verify)
			error(&h, "no archive for", path, "search path '%s' "
			      "finds no archive", p.path);
		sink->end(ctx, 1);
	}
	sink->end(ctx, 0);
	offcode_split_close(h.s);
	return h.rc;
}

/* ---- the text lines ---- */

/* s as ls shows a name (the reference's texts and the archives' are the
 * binary's to say, control bytes and all): applet_escape's. */
static void put_shown(const char *s)
{
	char *shown = applet_escape(s, strlen(s), false);

	fputs(shown ? shown : "?", stdout);
	free(shown);
}

static void text_host(void *ctx, offcode_split *s)
{
	size_t n = offcode_split_wrapper_count(s);

	(void)ctx;
	fputs("  kpack-split: code '", stdout);
	put_shown(offcode_split_kernel_name(s));
	printf("', %zu HIPK wrapper%s", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		uint64_t index = 0;

		offcode_split_wrapper(s, i, &index, NULL);
		printf("%s#%" PRIu64, i ? ", " : " (", index);
	}
	printf("%s\n", n ? ")" : "");
}

static void text_search(void *ctx, const struct offcode_split_search *p)
{
	(void)ctx;
	fputs("    search path ", stdout);
	put_shown(p->path);
	putchar('\n');
}

static void text_archive(void *ctx, const struct offcode_split_archive *a)
{
	(void)ctx;
	fputs("    archive ", stdout);
	put_shown(a->path);
	fputs(" (", stdout);
	put_shown(a->target ? a->target : "?");
	putchar(')');
	if (!a->error)
		printf(": %s, %zu entr%s", a->compression_scheme, a->entries,
		       a->entries == 1 ? "y" : "ies");
	putchar('\n');
}

static void text_entry(void *ctx, offcode_split *s,
		       const struct offcode_split_archive *a,
		       const struct ls_kpack_code *c)
{
	const struct rows *rs = ctx;

	(void)s;
	(void)a;
	fputs("      ", stdout);
	put_shown(c->key);
	fputs("  ", stdout);
	put_shown(c->target);
	printf("  %" PRIu64 "\n", c->size);
	if (rs && rs->kernels)
		ls_print_code_kernels(stdout, rs, &c->kernels, 8);
}

static void text_missing(void *ctx, const struct offcode_split_archive *a,
			 uint64_t wrapper, const char *key)
{
	(void)ctx;
	(void)a;
	(void)wrapper;
	fputs("      ", stdout);
	put_shown(key);
	fputs("  missing\n", stdout);
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
