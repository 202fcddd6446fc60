/* ls_json: the ls applet's JSON output, one object per file; the schema
 * is in man/offload-ls.1 and changes only with its version number. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_json.h"
#include "ls_kernels.h"
#include "ls_kpack.h"
#include "ls_rows.h"
#include "../ops/inspect_names.h"
#include "../ops/kinds.h"
#include "../core/err.h"
#include "../core/json.h"
#include "../core/uri.h"
#include "../formats/kpack.h"

static void json_key(bool *first, const char *key)
{
	printf("%s\"%s\":", *first ? "" : ",", key);
	*first = false;
}

static void json_u64(bool *first, const char *key, uint64_t v)
{
	json_key(first, key);
	printf("%" PRIu64, v);
}

static void json_text(bool *first, const char *key, const char *s, size_t len)
{
	json_key(first, key);
	json_put_str(stdout, s, len);
}

static void json_hex(bool *first, const char *key, uint64_t v)
{
	json_key(first, key);
	printf("\"0x%016" PRIx64 "\"", v);
}

static void json_u32(bool *first, const char *key, uint32_t v)
{
	json_key(first, key);
	if (v == KERNEL_NONE)
		fputs("null", stdout);
	else
		printf("%" PRIu32, v);
}

/* One kernel: its name as in the symbol table and as ls prints it, and
 * each figure the code object gives (null where it gives none). */
static void json_kernel(const struct rows *rs, const struct kernel_list *kl,
			const struct kernel *k)
{
	char *name = ls_kernel_name(rs, k->name);
	bool f = true;

	putchar('{');
	json_text(&f, "symbol", k->name, strlen(k->name));
	json_text(&f, "name", name, name ? strlen(name) : 0);
	free(name);
	if (kl->source == KERNELS_AMDGPU) {
		json_u32(&f, "sgprs", k->sgprs);
		json_u32(&f, "vgprs", k->vgprs);
		json_u32(&f, "agprs", k->agprs);
		json_u32(&f, "sgpr_spills", k->sgpr_spills);
		json_u32(&f, "vgpr_spills", k->vgpr_spills);
		json_u32(&f, "lds_bytes", k->lds);
		json_u32(&f, "scratch_bytes_per_lane", k->scratch);
		json_u32(&f, "kernarg_bytes", k->kernarg_size);
		json_u32(&f, "wavefront_size", k->wavefront);
		json_u32(&f, "max_flat_workgroup_size", k->max_flat_wg);
		json_key(&f, "dynamic_stack");
		fputs(k->dynamic_stack < 0 ? "null" : k->dynamic_stack ? "true"
			: "false", stdout);
		json_u32(&f, "occupancy_waves_per_simd",
			 k->occupancy ? k->occupancy : KERNEL_NONE);
		json_key(&f, "descriptor");
		if (!k->has_kd) {
			fputs("null", stdout);
		} else {
			bool g = true;

			putchar('{');
			json_u64(&g, "offset", k->kd.offset);
			json_u64(&g, "group_segment_fixed_size",
				 k->kd.group_segment_fixed_size);
			json_u64(&g, "private_segment_fixed_size",
				 k->kd.private_segment_fixed_size);
			json_u64(&g, "kernarg_size", k->kd.kernarg_size);
			json_u64(&g, "compute_pgm_rsrc1", k->kd.rsrc1);
			json_u64(&g, "compute_pgm_rsrc2", k->kd.rsrc2);
			json_u64(&g, "compute_pgm_rsrc3", k->kd.rsrc3);
			json_u64(&g, "kernel_code_properties", k->kd.properties);
			putchar('}');
		}
	} else if (kl->source == KERNELS_CUBIN) {
		json_u32(&f, "registers", k->regs);
		json_u32(&f, "stack_bytes", k->stack);
		json_u32(&f, "shared_bytes", k->shared);
		json_u32(&f, "local_bytes", k->local);
		json_key(&f, "constant_bytes");
		putchar('{');
		for (size_t b = 0, any = 0;
		     b < sizeof(k->constant) / sizeof(k->constant[0]); b++)
			if (k->constant[b] != KERNEL_NONE)
				printf("%s\"%zu\":%" PRIu32, any++ ? "," : "", b,
				       k->constant[b]);
		putchar('}');
		json_u32(&f, "max_threads", k->max_threads);
	}
	putchar('}');
}

static void json_kernels(bool *first, const struct rows *rs,
			 const struct row *r)
{
	const struct kernel_list *kl = r->kernels;
	bool f = true;

	json_key(first, "kernels");
	if (!rs->kernels || (!kl && !r->kernels_why)) {
		fputs("null", stdout);
		return;
	}
	putchar('{');
	json_key(&f, "source");
	if (kl)
		printf("\"%s\"", kernels_source_name(kl->source));
	else
		fputs("null", stdout);
	json_key(&f, "error");
	json_put_str(stdout, r->kernels_why,
		     r->kernels_why ? strlen(r->kernels_why) : 0);
	json_key(&f, "error_code");
	if (r->kernels_why)
		printf("\"%s\"", err_code_name(r->kernels_code));
	else
		fputs("null", stdout);
	json_key(&f, "code_object_version");
	if (kl && kl->source == KERNELS_AMDGPU)
		printf("%u", kl->co_version);
	else
		fputs("null", stdout);
	json_text(&f, "target", kl && kl->target[0] ? kl->target : NULL,
		  kl ? strlen(kl->target) : 0);
	json_text(&f, "processor", kl && kl->processor[0] ? kl->processor
		  : NULL, kl ? strlen(kl->processor) : 0);
	json_text(&f, "ptx_version", kl && kl->ptx_version[0] ?
		  kl->ptx_version : NULL, kl ? strlen(kl->ptx_version) : 0);
	json_key(&f, "list");
	putchar('[');
	for (size_t k = 0; kl && k < kl->n; k++) {
		if (k)
			putchar(',');
		json_kernel(rs, kl, &kl->v[k]);
	}
	fputs("]}", stdout);
}

/* An NVIDIA entry's header, as read (see man/offload-ls.1); c is its
 * container, whose offset gives the entry's in the file. */
static void json_nv(bool *first, const struct row *r,
		    const struct inspect_node *c)
{
	const struct nvfatbin_entry *nv = &r->n.nv;
	const char *kind = nvfatbin_kind_name(nv->kind);
	const char *producer = nvfatbin_producer(nv);
	const char *host = nvfatbin_host(nv);
	const char *variant = nvfatbin_arch_suffix(nv);
	char ptx[16];
	bool f = true;

	json_key(first, "nv");
	putchar('{');
	json_u64(&f, "kind", nv->kind);
	json_text(&f, "kind_name", kind, kind ? strlen(kind) : 0);
	json_key(&f, "version");
	printf("\"%u.%u\"", nv->major, nv->minor);
	json_u64(&f, "arch", nv->arch);
	json_text(&f, "variant", *variant ? variant : NULL, strlen(variant));
	snprintf(ptx, sizeof(ptx), "%u.%u", nv->major, nv->minor);
	json_text(&f, "ptx_version", nv->kind == NVFATBIN_PTX ? ptx : NULL,
		  strlen(ptx));
	json_u64(&f, "flags", nv->flags);
	json_text(&f, "producer", producer, producer ? strlen(producer) : 0);
	json_text(&f, "host", host, host ? strlen(host) : 0);
	json_key(&f, "bits");
	fputs(nv->flags & NVFATBIN_FLAG_64BIT ? "64" : "32", stdout);
	json_key(&f, "debug");
	fputs(nv->flags & NVFATBIN_FLAG_DEBUG ? "true" : "false", stdout);
	json_text(&f, "identifier", r->nv_ident,
		  r->nv_ident ? strlen(r->nv_ident) : 0);
	json_text(&f, "ptxas_options", r->nv_options,
		  r->nv_options ? strlen(r->nv_options) : 0);
	json_key(&f, "compression");
	if (nv->flags & NVFATBIN_FLAG_ZSTD)
		fputs("\"zstd\"", stdout);
	else if (nv->flags & NVFATBIN_FLAG_LZ4)
		fputs("\"lz4\"", stdout);
	else
		fputs("null", stdout);
	json_u64(&f, "compressed_size", nv->compressed_size);
	json_u64(&f, "uncompressed_size", nv->uncompressed_size);
	json_u64(&f, "unknown_flags", nv->flags & ~(uint64_t)NVFATBIN_FLAGS_KNOWN);
	/* Where to find it again: in the container, and in the file when
	 * the container is there as it is. */
	json_u64(&f, "entry_offset", nv->offset);
	json_u64(&f, "header_size", nv->header_size);
	json_u64(&f, "payload_offset", nv->payload_offset);
	json_u64(&f, "payload_size", nv->payload_size);
	json_key(&f, "file_offset");
	if (c && c->in_file)
		printf("%" PRIu64, c->offset + nv->offset);
	else
		fputs("null", stdout);
	putchar('}');
}

/* An entry of a container of path; a kpack-split binary's code object
 * (in the archive path) also names its wrapper's index (else -1). */
static void json_entry(const struct rows *rs, const struct row *r,
		       const struct inspect_node *c, const char *path,
		       int64_t wrapper)
{
	const struct inspect_node *n = &r->n;
	struct inspect_target t;
	bool f = true;
	char *uri;

	inspect_entry_target(n, &t);
	putchar('{');
	json_u64(&f, "index", n->index);
	json_text(&f, "id", kinds_get(n->container)->ids ? n->name : NULL,
		  n->name_len);
	json_text(&f, "offload_kind", t.kind, t.kind_len);
	json_text(&f, "triple", t.triple, t.triple_len);
	json_text(&f, "arch", t.arch, t.arch_len);
	json_text(&f, "image_kind", t.image, t.image_len);
	json_u64(&f, "size", n->size);
	json_key(&f, "offset");
	if (n->in_file)
		printf("%" PRIu64, n->offset);
	else
		fputs("null", stdout);
	uri = n->in_file ? uri_file(path, n->offset, n->size) : NULL;
	json_text(&f, "uri", uri, uri ? strlen(uri) : 0);
	free(uri);
	json_key(&f, "compressed");
	fputs(n->in_file || n->in_bitcode ? "false" : "true", stdout);
	switch (n->container) {
	case FATBIN_OBJECT_BUNDLE:
		json_u64(&f, "section", n->entry_section);
		break;
	case FATBIN_NV:
		json_nv(&f, r, c);
		break;
	case FATBIN_KPACK:
		if (wrapper >= 0)
			json_u64(&f, "wrapper", (uint64_t)wrapper);
		break;
	case FATBIN_BUNDLE:
	case FATBIN_CCOB:
	case FATBIN_PACKAGE:
		break;
	}
	json_kernels(&f, rs, r);
	putchar('}');
}

/* The "elf", "coff" or "pe" object of a file or member. */
static void json_object_file(const struct inspect_node *n, bool *f)
{
	const char *m;

	if (n->format == INSPECT_ELF) {
		const char *t = inspect_elf_type_name(n->elf_type);

		m = inspect_machine_name(n->machine);
		json_key(f, "elf");
		printf("{\"class\":%d,\"byte_order\":\"%s\",\"type\":",
		       n->is64 ? 64 : 32, n->big_endian ? "big" : "little");
		json_put_str(stdout, t, t ? strlen(t) : 0);
		printf(",\"type_number\":%u,\"machine\":", n->elf_type);
	} else if (n->format == INSPECT_COFF) {
		m = inspect_coff_machine_name(n->machine);
		json_key(f, "coff");
		printf("{\"bigobj\":%s,\"machine\":",
		       n->bigobj ? "true" : "false");
	} else if (n->format == INSPECT_PE) {
		m = inspect_coff_machine_name(n->machine);
		json_key(f, "pe");
		printf("{\"pe32plus\":%s,\"dll\":%s,\"machine\":",
		       n->is64 ? "true" : "false", n->dll ? "true" : "false");
	} else {
		return;
	}
	json_put_str(stdout, m, m ? strlen(m) : 0);
	printf(",\"machine_number\":%u}", n->machine);
}

/* A file or archive member: what it is (what is in it follows). */
static void json_input(const struct rows *rs, const struct row *r, bool *f,
		       const char *path)
{
	static const char *const formats[] = {
		"elf", "archive", "raw", "thin-member", "other", "coff", "text",
		"pe", "bitcode",
	};
	const struct inspect_node *n = &r->n;

	if (n->depth)
		json_text(f, "member", n->name, n->name_len);
	else
		json_text(f, "path", path, strlen(path));
	json_key(f, "format");
	printf("\"%s\"", formats[n->format]);
	json_u64(f, "offset", n->offset);
	json_u64(f, "size", n->size);
	json_kernels(f, rs, r);
	json_object_file(n, f);
}

/* A CCOB's header and hash. */
static void json_ccob(const struct inspect_node *n, bool *f)
{
	bool g = true;

	json_key(f, "ccob");
	putchar('{');
	json_key(&g, "method");
	fputs(n->ccob.method == CCOB_ZSTD ? "\"zstd\"" : "\"zlib\"", stdout);
	json_u64(&g, "compressed_size", n->size - n->ccob.header_size);
	json_u64(&g, "uncompressed_size", n->ccob.raw_size);
	json_hex(&g, "hash", n->ccob.hash);
	json_key(&g, "hash_check");
	printf("\"%s\"", inspect_hash_name(n->hash));
	json_key(&g, "computed_hash");
	if (n->hash == INSPECT_HASH_UNCHECKED)
		fputs("null", stdout);
	else
		printf("\"0x%016" PRIx64 "\"", n->computed_hash);
	putchar('}');
}

/* A container's header (its entries follow, then a CCOB's hash). */
static void json_container(const struct inspect_node *n, bool *f)
{
	json_u64(f, "number", n->number);
	json_key(f, "format");
	printf("\"%s\"", kinds_name(n->container));
	json_key(f, "offset");
	if (n->in_bitcode)	/* bits of the module's array */
		fputs("null", stdout);
	else
		printf("%" PRIu64, n->offset);
	json_u64(f, "size", n->size);
	json_key(f, "version");
	if (kinds_get(n->container)->versioned)
		printf("%u", n->version);
	else
		fputs("null", stdout);
	if (n->container == FATBIN_KPACK) {	/* its own field */
		json_key(f, "compression_scheme");
		printf("\"%s\"", kpack_scheme_name(n->kpack_scheme));
	}
}

static void json_section(const struct inspect_node *n, bool *f)
{
	json_u64(f, "index", n->section_index);
	json_text(f, "name", n->name, n->name_len);
	json_key(f, "kind");
	printf("\"%s\"", inspect_section_kind_name(n->section_kind));
	json_u64(f, "offset", n->offset);
	json_u64(f, "size", n->size);
}

/* ---- a kpack-split binary: its "kpack" object (ls_kpack.h's sink) ---- */

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
	json_entry(kj->rs, r, NULL, a->path, (int64_t)wrapper);
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
static void json_kpack(struct ls_json *js)
{
	struct kpack_json kj = { .rs = js->rs };

	js->rc |= ls_kpack_host(js->path, js->data, js->len,
				&(struct ls_kpack_opts){
					.verify = js->verify,
					.sel = js->rs->targets,
					.rs = js->rs, .errs = js->errs },
				&kpack_json_sink, &kj);
	if (kj.oom)
		js->oom = true;
	free(kj.missing);
}

/* ---- the stream: each node printed as the walk gives it ---- */

/* The arrays under each kind of node, in the order they are printed. */
enum { MAX_ARRAYS = 2 };
static int arrays_of(const struct inspect_node *n, const char **key)
{
	switch (n->kind) {
	case INSPECT_INPUT:
		switch (n->format) {
		case INSPECT_ELF:
		case INSPECT_COFF:
		case INSPECT_PE:
			key[0] = "sections";
			key[1] = "containers";
			return 2;
		case INSPECT_RAW:
		case INSPECT_BITCODE:
			key[0] = "containers";
			return 1;
		case INSPECT_ARCHIVE:
			key[0] = "members";
			return 1;
		default:
			return 0;
		}
	case INSPECT_SECTION:
		key[0] = "containers";
		return 1;
	case INSPECT_CONTAINER:
		key[0] = "entries";
		return 1;
	default:
		return 0;
	}
}

static const char *array_for(enum inspect_kind k)
{
	return k == INSPECT_SECTION ? "sections" : k == INSPECT_CONTAINER ?
	       "containers" : k == INSPECT_INPUT ? "members" : "entries";
}

/* Close the array open in l (if any), and print the empty ones before
 * the one named want (all that are left when want is NULL); open want. */
static void to_array(struct ls_json_level *l, const char *want)
{
	const char *key[MAX_ARRAYS];
	int n = arrays_of(&l->r.n, key);

	if (l->array >= 0 && want && !strcmp(key[l->array], want))
		return;
	if (l->array >= 0)
		putchar(']');
	for (int k = l->array + 1; k < n; k++) {
		json_key(&l->first, key[k]);
		putchar('[');
		l->array = k;
		l->any = false;
		if (want && !strcmp(key[k], want))
			return;
		putchar(']');
	}
}

/* A node is printed once something under it is (archive members without
 * device code are left out, and with -t sections and containers without
 * a selected entry), or at once. */
static bool deferred(const struct ls_json *js, const struct inspect_node *n)
{
	if (n->kind == INSPECT_INPUT)
		return n->depth == 0 || (n->format != INSPECT_ARCHIVE &&
					 n->format != INSPECT_THIN_MEMBER);
	return js->rs->targets && js->rs->targets->n &&
	       (n->kind == INSPECT_SECTION || n->kind == INSPECT_CONTAINER);
}

/* Print level d's opening and fields, and its parents' first. */
static void show(struct ls_json *js, size_t d)
{
	struct ls_json_level *l = &js->lv[d];

	if (l->shown)
		return;
	if (!d && js->comma)
		putchar(',');	/* after the file before */
	if (!d)
		js->printed = true;
	if (d) {
		struct ls_json_level *p = &js->lv[d - 1];

		show(js, d - 1);
		to_array(p, array_for(l->r.n.kind));
		if (p->any)
			putchar(',');
		p->any = true;
	}
	l->shown = true;
	l->first = true;
	l->array = -1;
	putchar('{');
	switch (l->r.n.kind) {
	case INSPECT_INPUT:
		json_input(js->rs, &l->r, &l->first, js->path);
		break;
	case INSPECT_SECTION:
		json_section(&l->r.n, &l->first);
		break;
	default:
		json_container(&l->r.n, &l->first);
		break;
	}
}

static void later(struct ls_json *js, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void later(struct ls_json *js, const char *what, const char *fmt, ...)
{
	va_list ap;

	js->rc = 1;
	if (!js->errs)
		return;
	fprintf(js->errs, "offload ls: error: %s '%s': ", what, js->path);
	va_start(ap, fmt);
	vfprintf(js->errs, fmt, ap);
	va_end(ap);
	fputc('\n', js->errs);
}

/* Close the deepest level: its arrays, a CCOB's hash, what failed in it. */
static void close_level(struct ls_json *js)
{
	struct ls_json_level *l = &js->lv[--js->n];
	const struct inspect_node *n = &l->r.n;

	if (!l->shown && n->depth == 0 && js->walked) {
		/* A file that is itself a code object is described. */
		if (ls_file_kernels(&l->r, js->data, js->len) < 0)
			js->oom = true;
		show(js, 0);
	}
	if (l->shown) {
		to_array(l, NULL);
		if (n->kind == INSPECT_INPUT && n->depth == 0 &&
		    n->format == INSPECT_ELF && js->walked)
			json_kpack(js);
		if (n->container == FATBIN_CCOB && n->kind == INSPECT_CONTAINER)
			json_ccob(n, &l->first);
		putchar('}');
		if (n->kind == INSPECT_CONTAINER && n->container == FATBIN_CCOB &&
		    n->hash == INSPECT_HASH_BAD)
			later(js, "bad hash in", "CCOB #%u at offset %" PRIu64
			      ": stored 0x%016" PRIx64 ", computed 0x%016" PRIx64,
			      n->number, n->offset, n->ccob.hash,
			      n->computed_hash);
		if (l->bad)
			later(js, "cannot decode", "nv-fatbin #%u at offset %"
			      PRIu64 ": %zu of %zu entr%s (%s); entry %u: %s",
			      n->number, n->offset, l->bad, l->listed,
			      l->listed == 1 ? "y" : "ies", l->bad_list,
			      l->first_bad, l->first_why ? l->first_why : "?");
		if (l->r.kernels_why && js->rs->kernels) {
			char *why = ls_kernels_unread(&l->r);

			later(js, "cannot read kernels in", "%s", why ? why : "?");
			free(why);
		}
	}
	free(l->first_why);
	ls_row_free(&l->r);
}

/* An entry: printed at once, what failed in it kept for the end. */
static int print_entry(struct ls_json *js, const struct inspect_node *n)
{
	struct ls_json_level *c = js->n ? &js->lv[js->n - 1] : NULL;
	struct row r;

	if (ls_row_fill(&r, n) < 0 ||
	    (js->rs->kernels && ls_entry_kernels(&r, n) < 0))
		return -1;
	if (js->verify && n->container == FATBIN_KPACK &&
	    ls_kpack_verify_entry(js->errs, js->path, n))
		js->rc = 1;
	if (c) {
		show(js, js->n - 1);
		to_array(c, "entries");
		if (c->any)
			putchar(',');
		c->any = true;
		c->listed++;
		if (kinds_get(n->container)->entry_coded &&
		    n->hash == INSPECT_HASH_BAD) {
			size_t len = strlen(c->bad_list);

			if (!c->bad++) {
				c->first_bad = n->index;
				c->first_why = r.why ? strdup(r.why) : NULL;
			}
			if (len + 16 < sizeof(c->bad_list))
				snprintf(c->bad_list + len, sizeof(c->bad_list) - len,
					 "%s%u", len ? ", " : "", n->index);
			else if (!strstr(c->bad_list, "..."))
				strcpy(c->bad_list + len, ", ...");
		}
	}
	json_entry(js->rs, &r, c ? &c->r.n : NULL, js->path, -1);
	if (r.kernels_why && js->rs->kernels) {
		char *why = ls_kernels_unread(&r);

		later(js, "cannot read kernels in", "%s", why ? why : "?");
		free(why);
	}
	ls_row_free(&r);
	return 0;
}

int ls_json_visit(void *ctx, const struct inspect_node *n)
{
	struct ls_json *js = ctx;

	if (n->update) {
		/* A streamed CCOB's hash, known after its entries (printed
		 * after them). */
		if (n->depth < js->n && js->lv[n->depth].r.n.number == n->number) {
			js->lv[n->depth].r.n.hash = n->hash;
			js->lv[n->depth].r.n.computed_hash = n->computed_hash;
		}
		return 0;
	}
	if (n->kind == INSPECT_ENTRY && !ls_wanted(js->rs, n))
		return 0;
	while (js->n > n->depth)
		close_level(js);
	if (n->kind == INSPECT_ENTRY)
		return print_entry(js, n);
	if (js->n == js->cap) {
		size_t cap = js->cap ? 2 * js->cap : 16;
		struct ls_json_level *v = realloc(js->lv, cap * sizeof(*v));

		if (!v)
			return -1;
		js->lv = v;
		js->cap = cap;
	}
	memset(&js->lv[js->n], 0, sizeof(js->lv[js->n]));
	if (ls_row_fill(&js->lv[js->n].r, n) < 0)
		return -1;
	js->n++;
	if (!deferred(js, n))
		show(js, js->n - 1);
	return 0;
}

int ls_json_end(struct ls_json *js, bool walked)
{
	/* A walk that failed after some of the file was printed leaves it
	 * valid JSON: what was read, closed. */
	js->walked = walked;
	while (js->n)
		if (walked || js->lv[0].shown)
			close_level(js);
		else
			ls_row_free(&js->lv[--js->n].r);
	free(js->lv);
	js->lv = NULL;
	return js->oom ? -1 : js->rc;
}

void ls_json_directory(const char *path)
{
	bool f = true;

	putchar('{');
	json_text(&f, "path", path, strlen(path));
	json_key(&f, "format");
	fputs("\"directory\"", stdout);
	json_u64(&f, "offset", 0);
	json_u64(&f, "size", 0);
	json_key(&f, "kernels");
	fputs("null}", stdout);
}
