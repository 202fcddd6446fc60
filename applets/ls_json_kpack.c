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
#include "../core/err.h"

struct kpack_json {
	const struct rows *rs;
	const char *kernel_name;
	bool any_search, any_archive, any_entry;
	uint64_t *missing;	/* the archive's wrappers with no code */
	size_t nmissing;
	bool oom;
};

static void kj_host(void *ctx, offcode_split *s)
{
	size_t n = offcode_split_wrapper_count(s);
	const char *name = offcode_split_kernel_name(s);
	bool f = false;

	((struct kpack_json *)ctx)->kernel_name = name;
	json_key(&f, "kpack");
	f = true;
	putchar('{');
	json_text(&f, "kernel_name", name, strlen(name));
	json_key(&f, "wrappers");
	for (size_t i = 0; i < n; i++) {
		uint64_t index = 0;

		offcode_split_wrapper(s, i, &index, NULL);
		printf("%s%" PRIu64, i ? "," : "[", index);
	}
	fputs(n ? "]" : "[]", stdout);
	json_u64(&f, "unsplit_wrappers", offcode_split_unsplit_count(s));
	json_key(&f, "search_paths");
	putchar('[');
}

static void kj_search(void *ctx, const struct offcode_split_search *p)
{
	struct kpack_json *kj = ctx;
	bool f = true;

	fputs(kj->any_search ? ",{" : "{", stdout);
	kj->any_search = true;
	kj->any_archive = false;
	json_text(&f, "pattern", p->path, strlen(p->path));
	json_text(&f, "directory", p->dir, strlen(p->dir));
	json_key(&f, "directory_found");
	fputs(p->no_dir ? "false" : "true", stdout);
	json_key(&f, "archives");
	putchar('[');
}

static void kj_archive(void *ctx, const struct offcode_split_archive *a)
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
	if (!a->error)
		printf("%u", a->version);
	else
		fputs("null", stdout);
	json_key(&f, "compression_scheme");
	if (!a->error)
		printf("\"%s\"", a->compression_scheme);
	else
		fputs("null", stdout);
	json_key(&f, "size");
	if (!a->error)
		printf("%" PRIu64, a->file_size);
	else
		fputs("null", stdout);
	/* What the error line says after the archive's name. */
	json_key(&f, "error");
	if (!a->error) {
		fputs("null", stdout);
	} else {
		const char *p = offcode_error_path(a->error);
		char why[ERR_PATH_MAX + ERR_WHY_MAX + 32];

		snprintf(why, sizeof(why), "%s%s", a->damaged ?
			 "kpack archive: " : "", a->damaged || !*p ?
			 offcode_error_message(a->error) :
			 offcode_error_reason(a->error));
		json_put_str(stdout, why, strlen(why));
	}
	json_key(&f, "entries");
	putchar('[');
}

/* A code object, as an entry of a kpack archive listed as a file, with
 * its wrapper's index. */
static void kj_entry(void *ctx, offcode_split *s,
		     const struct offcode_split_archive *a,
		     const struct ls_kpack_code *c)
{
	struct kpack_json *kj = ctx;
	const char *uri = c->in_file ? offcode_split_uri(s, c->archive,
							 c->index) : NULL;
	bool f = true;

	(void)a;
	if (kj->any_entry)
		putchar(',');
	kj->any_entry = true;
	putchar('{');
	json_u64(&f, "index", c->index);
	json_text(&f, "id", c->key, strlen(c->key));
	json_text(&f, "offload_kind", NULL, 0);
	json_text(&f, "triple", "amdgcn-amd-amdhsa", 17);
	json_text(&f, "arch", *c->target ? c->target : NULL,
		  strlen(c->target));
	json_text(&f, "image_kind", c->image_kind,
		  c->image_kind ? strlen(c->image_kind) : 0);
	json_u64(&f, "size", c->size);
	json_key(&f, "offset");
	if (c->in_file)
		printf("%" PRIu64, c->offset);
	else
		fputs("null", stdout);
	json_text(&f, "uri", uri, uri ? strlen(uri) : 0);
	json_key(&f, "compressed");
	fputs(c->in_file ? "false" : "true", stdout);
	json_u64(&f, "wrapper", c->wrapper);
	ls_json_kernels(&f, kj->rs, &c->kernels);
	putchar('}');
}

static void kj_missing(void *ctx, const struct offcode_split_archive *a,
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
