/* ls_json_kpack: a kpack-split binary's "kpack" object in ls's JSON
 * output (ls_kpack.h's sink): its wrappers, the archives its search paths
 * find, and what is missing. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_json_kpack.h"
#include "ls_json_node.h"
#include "ls_json_put.h"
#include "ls_kpack.h"
#include "ls_rows.h"
#include "../formats/kpack.h"

struct kpack_json {
	const struct rows *rs;
	const char *kernel_name;
	bool any_search, any_archive, any_entry;
	uint64_t *missing;	/* the archive's wrappers with no code */
	size_t nmissing;
	bool oom;
};

static void kj_host(void *ctx, const struct kpack_find *h)
{
	bool f = false;

	((struct kpack_json *)ctx)->kernel_name = h->ref.kernel_name;
	json_key(&f, "kpack");
	f = true;
	putchar('{');
	json_text(&f, "kernel_name", h->ref.kernel_name,
		  strlen(h->ref.kernel_name));
	json_key(&f, "wrappers");
	for (size_t i = 0; i < h->nhipk; i++)
		printf("%s%" PRIu64, i ? "," : "[", h->index[i]);
	fputs(h->nhipk ? "]" : "[]", stdout);
	json_u64(&f, "unsplit_wrappers", h->nhipf);
	json_key(&f, "search_paths");
	putchar('[');
}

static void kj_search(void *ctx, const struct kpack_find *h, size_t sp)
{
	struct kpack_json *kj = ctx;
	bool f = true;

	fputs(kj->any_search ? ",{" : "{", stdout);
	kj->any_search = true;
	kj->any_archive = false;
	json_text(&f, "pattern", h->ref.paths[sp], strlen(h->ref.paths[sp]));
	json_text(&f, "directory", h->dir[sp], strlen(h->dir[sp]));
	json_key(&f, "directory_found");
	fputs(h->no_dir[sp] ? "false" : "true", stdout);
	json_key(&f, "archives");
	putchar('[');
}

static void kj_archive(void *ctx, const struct kpack_find_archive *a)
{
	struct kpack_json *kj = ctx;
	bool f = true;

	fputs(kj->any_archive ? ",{" : "{", stdout);
	kj->any_archive = true;
	kj->any_entry = false;
	kj->nmissing = 0;
	json_text(&f, "path", a->path, strlen(a->path));
	json_text(&f, "target", a->target, a->target ? strlen(a->target) : 0);
	json_key(&f, "format");
	fputs("\"kpack\"", stdout);
	json_key(&f, "version");
	if (a->read)
		printf("%u", a->k.version);
	else
		fputs("null", stdout);
	json_key(&f, "compression_scheme");
	if (a->read)
		printf("\"%s\"", kpack_scheme_name(a->k.scheme));
	else
		fputs("null", stdout);
	json_key(&f, "size");
	if (a->read)
		printf("%zu", a->in.len);
	else
		fputs("null", stdout);
	/* What the error line says after the archive's name. */
	json_key(&f, "error");
	if (a->read) {
		fputs("null", stdout);
	} else {
		char why[ERR_PATH_MAX + ERR_WHY_MAX + 32];

		snprintf(why, sizeof(why), "%s%s", a->damaged ?
			 "kpack archive: " : "", a->damaged || !a->e.path[0] ?
			 a->e.msg : a->e.why);
		json_put_str(stdout, why, strlen(why));
	}
	json_key(&f, "entries");
	putchar('[');
}

static void kj_entry(void *ctx, const struct kpack_find_archive *a,
		     uint64_t wrapper, const struct row *r)
{
	struct kpack_json *kj = ctx;

	if (kj->any_entry)
		putchar(',');
	kj->any_entry = true;
	ls_json_entry(kj->rs, r, NULL, a->path, (int64_t)wrapper);
}

static void kj_missing(void *ctx, const struct kpack_find_archive *a,
		       uint64_t wrapper, const char *key)
{
	struct kpack_json *kj = ctx;
	uint64_t *v = realloc(kj->missing, (kj->nmissing + 1) * sizeof(*v));

	(void)a;
	(void)key;
	if (!v) {
		kj->oom = true;
		return;
	}
	kj->missing = v;
	kj->missing[kj->nmissing++] = wrapper;
}

static void kj_end(void *ctx, int level)
{
	struct kpack_json *kj = ctx;

	if (level == 2) {
		/* Each missing one: its wrapper and the key not found. */
		fputs("],\"missing\":[", stdout);
		for (size_t i = 0; i < kj->nmissing; i++) {
			size_t n = strlen(kj->kernel_name) + 24;
			char *key = malloc(n);
			bool f = true;

			if (!key) {
				kj->oom = true;
				break;
			}
			snprintf(key, n, "%s#%" PRIu64, kj->kernel_name,
				 kj->missing[i]);
			fputs(i ? ",{" : "{", stdout);
			json_u64(&f, "wrapper", kj->missing[i]);
			json_text(&f, "id", key, strlen(key));
			putchar('}');
			free(key);
		}
		fputs("]}", stdout);
		kj->nmissing = 0;
	} else if (level == 1) {
		fputs("]}", stdout);
	} else {
		fputs("]}", stdout);
	}
}

static const struct ls_kpack_sink kpack_json_sink = {
	.host = kj_host, .search = kj_search, .archive = kj_archive,
	.entry = kj_entry, .missing = kj_missing, .end = kj_end,
};

/* The "kpack" object of a kpack-split binary, the file's last key. */
int ls_json_kpack(const struct rows *rs, const char *path,
		  const uint8_t *data, size_t len, bool verify, FILE *errs,
		  bool *oom)
{
	struct kpack_json kj = { .rs = rs };
	int rc = ls_kpack_host(path, data, len,
			       &(struct ls_kpack_opts){
					.verify = verify, .sel = rs->targets,
					.rs = rs, .errs = errs },
			       &kpack_json_sink, &kj);

	if (kj.oom)
		*oom = true;
	free(kj.missing);
	return rc;
}
