/* kind_present: how the container kinds this tool began with present
 * their entries and themselves (the presentation hooks of their rows in
 * kinds.c; see kind.h): an entry's target and ID, ls's columns and
 * lines, ls --json's fields of their own.  Text and fields are made here;
 * the applets print them.  A new kind's hooks are in its own ops file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_names.h"
#include "kind_present.h"
#include "../formats/kpack.h"
#include "../formats/nvfatbin.h"
#include "../formats/package.h"
#include "../core/strjoin.h"

static void set(const char **s, size_t *len, const char *v, size_t n)
{
	*s = n ? v : NULL;
	*len = n;
}

static void set_str(const char **s, size_t *len, const char *v)
{
	set(s, len, v, v ? strlen(v) : 0);
}

const char *kind_present_image_name(uint16_t kind)
{
	static const char *const names[] = {
		NULL, "elf", "bitcode", "cubin", "fatbin", "ptx", "spirv",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : NULL;
}

static const char *entries_word(size_t n)
{
	return n == 1 ? "entry" : "entries";
}

/* ---- the defaults: entries named by a bundle ID ---- */

void kind_present_target_from_id(const struct inspect_node *n,
				 struct inspect_target *t)
{
	/* <kind>-<arch>-<vendor>-<os>-<env>[-<target ID>] */
	const char *dash[5];
	size_t k = 0;

	for (size_t i = 0; i < n->name_len && k < 5; i++)
		if (n->name[i] == '-')
			dash[k++] = n->name + i;
	if (k < 4)
		return;
	set(&t->kind, &t->kind_len, n->name, (size_t)(dash[0] - n->name));
	if (k == 4) {
		set(&t->triple, &t->triple_len, dash[0] + 1,
		    (size_t)(n->name + n->name_len - dash[0] - 1));
		return;
	}
	t->id_has_target = true;
	set_str(&t->image, &t->image_len, kind_present_image_name(n->image_kind));
	/* An empty environment ("amdgcn-amd-amdhsa-") is left out. */
	set(&t->triple, &t->triple_len, dash[0] + 1,
	    (size_t)(dash[4] - dash[0] - 1) -
	    (dash[4] - dash[3] == 1));
	set(&t->arch, &t->arch_len, dash[4] + 1,
	    (size_t)(n->name + n->name_len - dash[4] - 1));
}

char *kind_present_id_as_is(const struct inspect_node *n, size_t *len)
{
	*len = n->name_len;
	return strjoin(n->name, n->name_len, "", "", 0);
}

void kind_present_summary_plain(const struct inspect_node *n, char *buf,
				size_t cap)
{
	snprintf(buf, cap, " at %" PRIu64 ": %" PRIu64 " bytes, %zu %s",
		 n->offset, n->size, n->entries, entries_word(n->entries));
}

/* ---- object bundles ---- */

void kind_present_object_bundle_cells(const struct inspect_node *n,
				      const struct inspect_target *t,
				      struct kind_cells *c)
{
	(void)t;
	snprintf(c->buf, sizeof(c->buf), "[%u]", (unsigned)n->entry_section);
	c->v[c->n++] = (struct kind_text){ c->buf, strlen(c->buf) };
	c->v[c->n++] = (struct kind_text){ n->name, n->name_len };
}

void kind_present_object_bundle_summary(const struct inspect_node *n,
					char *buf, size_t cap)
{
	snprintf(buf, cap, ": %zu %s in __CLANG_OFFLOAD_BUNDLE__ sections",
		 n->entries, entries_word(n->entries));
}

void kind_present_object_bundle_entry_json(const struct inspect_node *n,
					   const struct inspect_node *c,
					   const struct kind_text d[],
					   struct kind_fields *f)
{
	(void)c;
	(void)d;
	kind_field(f, "section", KIND_FIELD_U64, n->entry_section, NULL, 0);
}

/* ---- CCOBs ---- */

void kind_present_ccob_summary(const struct inspect_node *n, char *buf,
			       size_t cap)
{
	int k = snprintf(buf, cap, " at %" PRIu64 ": version %u, %s, %"
			 PRIu64 " bytes, %" PRIu64 " uncompressed, hash "
			 "0x%016" PRIx64 " %s", n->offset, n->version,
			 n->ccob.method == CCOB_ZSTD ? "zstd" : "zlib",
			 n->size, n->ccob.raw_size, n->ccob.hash,
			 inspect_hash_name(n->hash));

	if (k > 0 && (size_t)k < cap && n->hash == INSPECT_HASH_BAD)
		k += snprintf(buf + k, cap - (size_t)k, " (computed 0x%016"
			      PRIx64 ")", n->computed_hash);
	if (k > 0 && (size_t)k < cap)
		snprintf(buf + k, cap - (size_t)k, ", %zu %s", n->entries,
			 entries_word(n->entries));
}

void kind_present_ccob_bad_hash(const struct inspect_node *c, char *buf,
				size_t cap)
{
	snprintf(buf, cap, "CCOB #%u at offset %" PRIu64 ": stored 0x%016"
		 PRIx64 ", computed 0x%016" PRIx64, c->number, c->offset,
		 c->ccob.hash, c->computed_hash);
}

/* Its header and hash, after its entries. */
void kind_present_ccob_container_json_end(const struct inspect_node *n,
					  struct kind_fields *f)
{
	kind_field(f, "ccob", KIND_FIELD_OPEN, 0, NULL, 0);
	kind_field_str(f, "method", n->ccob.method == CCOB_ZSTD ? "zstd"
								 : "zlib");
	kind_field(f, "compressed_size", KIND_FIELD_U64,
		   n->size - n->ccob.header_size, NULL, 0);
	kind_field(f, "uncompressed_size", KIND_FIELD_U64, n->ccob.raw_size,
		   NULL, 0);
	kind_field(f, "hash", KIND_FIELD_HEX, n->ccob.hash, NULL, 0);
	kind_field_str(f, "hash_check", inspect_hash_name(n->hash));
	if (n->hash == INSPECT_HASH_UNCHECKED)
		kind_field_str(f, "computed_hash", NULL);
	else
		kind_field(f, "computed_hash", KIND_FIELD_HEX,
			   n->computed_hash, NULL, 0);
	kind_field(f, NULL, KIND_FIELD_CLOSE, 0, NULL, 0);
}

bool kind_present_ccob_packed(const struct inspect_node *c,
			      uint64_t *stored, uint64_t *raw)
{
	*stored = c->size;
	*raw = c->ccob.raw_size;
	return true;
}

/* ---- offload packages ---- */

void kind_present_package_target(const struct inspect_node *n,
				 struct inspect_target *t)
{
	if (n->offload_kind != PACKAGE_OFK_NONE)
		set_str(&t->kind, &t->kind_len,
			package_offload_kind_describe(n->offload_kind));
	set(&t->triple, &t->triple_len, n->triple, n->triple_len);
	set(&t->arch, &t->arch_len, n->arch, n->arch_len);
	set_str(&t->image, &t->image_len, kind_present_image_name(n->image_kind));
}

/* kind-triple-arch, as the packager names what it extracts ("--" when
 * the triple has no environment). */
char *kind_present_package_id(const struct inspect_node *n,
			      const struct inspect_target *t, size_t *len)
{
	const char *kind = t->kind ? t->kind : "none";
	size_t dashes = 0;
	char *a, *b;

	(void)n;
	for (size_t i = 0; i < t->triple_len; i++)
		dashes += t->triple[i] == '-';
	a = strjoin(kind, strlen(kind), "-", t->triple ? t->triple : "",
		t->triple_len);
	if (!a)
		return NULL;
	b = strjoin(a, strlen(a), dashes == 2 ? "--" : "-",
		t->arch ? t->arch : "", t->arch_len);
	free(a);
	*len = b ? strlen(b) : 0;
	return b;
}

void kind_present_package_cells(const struct inspect_node *n,
				const struct inspect_target *t,
				struct kind_cells *c)
{
	(void)n;
	c->v[c->n++] = (struct kind_text){ t->kind, t->kind_len };
	c->v[c->n++] = (struct kind_text){ t->triple, t->triple_len };
	c->v[c->n++] = (struct kind_text){ t->arch, t->arch_len };
	c->v[c->n++] = (struct kind_text){ t->image, t->image_len };
}

void kind_present_package_summary(const struct inspect_node *n, char *buf,
				  size_t cap)
{
	char at[32];

	if (n->in_bitcode)
		snprintf(at, sizeof(at), " (in bitcode)");
	else
		snprintf(at, sizeof(at), " at %" PRIu64, n->offset);
	snprintf(buf, cap, "%s: version %u, %zu bytes, %zu image%s", at,
		 n->version, (size_t)n->size, n->entries,
		 n->entries == 1 ? "" : "s");
}

/* ---- NVIDIA fatbins ---- */

void kind_present_nv_target(const struct inspect_node *n,
			    struct inspect_target *t)
{
	set_str(&t->kind, &t->kind_len, "cuda");
	snprintf(t->arch_buf, sizeof(t->arch_buf), "sm_%u%s",
		 (unsigned)n->nv.arch, nvfatbin_arch_suffix(&n->nv));
	set_str(&t->arch, &t->arch_len, t->arch_buf);
	set_str(&t->image, &t->image_len, nvfatbin_kind_name(n->nv.kind));
}

char *kind_present_nv_id(const struct inspect_node *n,
			 const struct inspect_target *t, size_t *len)
{
	char *id = strdup(t->arch_buf);

	(void)n;
	*len = id ? strlen(id) : 0;
	return id;
}

/* PTX by nvcc's name (code=compute_80): what the driver's rules read. */
const char *kind_present_nv_select_arch(const struct inspect_node *n,
					char *buf, size_t cap)
{
	snprintf(buf, cap, "%s_%u%s",
		 n->nv.kind == NVFATBIN_PTX ? "compute" : "sm",
		 (unsigned)n->nv.arch, nvfatbin_arch_suffix(&n->nv));
	return buf;
}

void kind_present_nv_cells(const struct inspect_node *n,
			   const struct inspect_target *t,
			   struct kind_cells *c)
{
	(void)n;
	c->v[c->n++] = (struct kind_text){ t->image, t->image_len };
	c->v[c->n++] = (struct kind_text){ t->arch, t->arch_len };
}

void kind_present_nv_summary(const struct inspect_node *n, char *buf,
			     size_t cap)
{
	snprintf(buf, cap, " at %" PRIu64 ": version %u, %" PRIu64 " bytes, "
		 "%zu %s", n->offset, n->version, n->size, n->entries,
		 entries_word(n->entries));
}

bool kind_present_nv_where(const struct inspect_node *n, char *buf,
			   size_t cap)
{
	snprintf(buf, cap, "(%s-compressed, %" PRIu64 " bytes uncompressed%s)",
		 n->nv.flags & NVFATBIN_FLAG_ZSTD ? "zstd" : "lz4",
		 n->nv.uncompressed_size,
		 n->hash == INSPECT_HASH_BAD ? ", does not decode" : "");
	return true;
}

/* Its code inflated, when compressed. */
void kind_present_nv_sizes(const struct inspect_node *n, uint64_t *code,
			   uint64_t *stored)
{
	*code = nvfatbin_compressed(&n->nv) ? n->nv.uncompressed_size
					    : n->size;
	*stored = n->size;
}

/* Its identifier and ptxas options. */
void kind_present_nv_details(const struct inspect_node *n,
			     struct kind_text d[KIND_DETAILS])
{
	if (n->nv.ident_len)
		d[0] = (struct kind_text){
			(const char *)n->nv_base + n->nv.ident_offset,
			n->nv.ident_len };
	if (n->nv.options_len)
		d[1] = (struct kind_text){
			(const char *)n->nv_base + n->nv.options_offset,
			n->nv.options_len };
}

/* Its header, as read (see man/offload-ls.1); c is its container, whose
 * offset gives the entry's in the file. */
void kind_present_nv_entry_json(const struct inspect_node *n,
				const struct inspect_node *c,
				const struct kind_text d[KIND_DETAILS],
				struct kind_fields *f)
{
	const struct nvfatbin_entry *nv = &n->nv;
	const char *variant = nvfatbin_arch_suffix(nv);

	kind_field(f, "nv", KIND_FIELD_OPEN, 0, NULL, 0);
	kind_field(f, "kind", KIND_FIELD_U64, nv->kind, NULL, 0);
	kind_field_str(f, "kind_name", nvfatbin_kind_name(nv->kind));
	kind_field_fmt(f, "version", "%u.%u", nv->major, nv->minor);
	kind_field(f, "arch", KIND_FIELD_U64, nv->arch, NULL, 0);
	kind_field_str(f, "variant", *variant ? variant : NULL);
	if (nv->kind == NVFATBIN_PTX)
		kind_field_fmt(f, "ptx_version", "%u.%u", nv->major,
			       nv->minor);
	else
		kind_field_str(f, "ptx_version", NULL);
	kind_field(f, "flags", KIND_FIELD_U64, nv->flags, NULL, 0);
	kind_field_str(f, "producer", nvfatbin_producer(nv));
	kind_field_str(f, "host", nvfatbin_host(nv));
	kind_field(f, "bits", KIND_FIELD_U64,
		   nv->flags & NVFATBIN_FLAG_64BIT ? 64 : 32, NULL, 0);
	kind_field(f, "debug", KIND_FIELD_BOOL,
		   (nv->flags & NVFATBIN_FLAG_DEBUG) != 0, NULL, 0);
	kind_field(f, "identifier", KIND_FIELD_TEXT, 0, d[0].s, d[0].len);
	kind_field(f, "ptxas_options", KIND_FIELD_TEXT, 0, d[1].s, d[1].len);
	kind_field_str(f, "compression",
		       nv->flags & NVFATBIN_FLAG_ZSTD ? "zstd"
		       : nv->flags & NVFATBIN_FLAG_LZ4 ? "lz4" : NULL);
	kind_field(f, "compressed_size", KIND_FIELD_U64, nv->compressed_size,
		   NULL, 0);
	kind_field(f, "uncompressed_size", KIND_FIELD_U64,
		   nv->uncompressed_size, NULL, 0);
	kind_field(f, "unknown_flags", KIND_FIELD_U64,
		   nv->flags & ~(uint64_t)NVFATBIN_FLAGS_KNOWN, NULL, 0);
	/* Where to find it again: in the container, and in the file when
	 * the container is there as it is. */
	kind_field(f, "entry_offset", KIND_FIELD_U64, nv->offset, NULL, 0);
	kind_field(f, "header_size", KIND_FIELD_U64, nv->header_size, NULL,
		   0);
	kind_field(f, "payload_offset", KIND_FIELD_U64, nv->payload_offset,
		   NULL, 0);
	kind_field(f, "payload_size", KIND_FIELD_U64, nv->payload_size, NULL,
		   0);
	if (c && c->in_file)
		kind_field(f, "file_offset", KIND_FIELD_U64,
			   c->offset + nv->offset, NULL, 0);
	else
		kind_field_str(f, "file_offset", NULL);
	kind_field(f, NULL, KIND_FIELD_CLOSE, 0, NULL, 0);
}

/* ---- kpack archives ---- */

/* The TOC's target, an AMDGPU code object. */
void kind_present_kpack_target(const struct inspect_node *n,
			       struct inspect_target *t)
{
	set(&t->triple, &t->triple_len, n->triple, n->triple_len);
	set(&t->arch, &t->arch_len, n->arch, n->arch_len);
	set_str(&t->image, &t->image_len, kind_present_image_name(n->image_kind));
}

/* The TOC key and the target: "bin/app#0-gfx90a". */
char *kind_present_kpack_id(const struct inspect_node *n,
			    const struct inspect_target *t, size_t *len)
{
	char *id = strjoin(n->name, n->name_len, "-", t->arch, t->arch_len);

	*len = id ? strlen(id) : 0;
	return id;
}

void kind_present_kpack_cells(const struct inspect_node *n,
			      const struct inspect_target *t,
			      struct kind_cells *c)
{
	c->v[c->n++] = (struct kind_text){ n->name, n->name_len };
	c->v[c->n++] = (struct kind_text){ t->arch, t->arch_len };
}

void kind_present_kpack_summary(const struct inspect_node *n, char *buf,
				size_t cap)
{
	snprintf(buf, cap, " at %" PRIu64 ": version %u, %s, %" PRIu64
		 " bytes, %zu %s", n->offset, n->version,
		 kpack_scheme_name(n->kpack_scheme), n->size, n->entries,
		 entries_word(n->entries));
}

/* Its frame, or its code stored as it is. */
void kind_present_kpack_sizes(const struct inspect_node *n, uint64_t *code,
			      uint64_t *stored)
{
	*code = n->size;
	*stored = n->kpack_stored;
}

void kind_present_kpack_container_json(const struct inspect_node *n,
				       struct kind_fields *f)
{
	kind_field_str(f, "compression_scheme",
		       kpack_scheme_name(n->kpack_scheme));
}
