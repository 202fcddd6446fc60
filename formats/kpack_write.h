/* kpack_write: AMD kpack archives and .rocm_kpack_ref maps written
 * (formats/kpack_write.c); the format is described in kpack.h. */
#ifndef FORMATS_KPACK_WRITE_H
#define FORMATS_KPACK_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "kpack.h"

/* Writing an archive (formats/kpack_write.c), byte for byte what
 * rocm-kpack's PackedKernelArchive.write writes for the same kernels added
 * in the same order ("Kpack Archive Format"; python/rocm_kpack/kpack.py
 * and compression.py): the 16-byte header, zeros to offset 64, the blobs
 * ("none": each code object as it is, back to back) or the zstd blob
 * ("zstd-per-kernel": u32 count, then u32 size and a zstd frame of the
 * given level per kernel, content size in the frame header, no checksum),
 * then the TOC: one map of format_version, group_name, gfx_arch_family,
 * gfx_arches, toc, compression_scheme and blobs, or zstd_offset and
 * zstd_size, in that order, in the smallest MessagePack form of each
 * value (what Python's msgpack.pack(use_bin_type=True) writes: str8 for
 * 32..255-byte strings).  toc maps each key, in the order its first kernel
 * came, to its kernels' targets, in their order, each {type: "hsaco",
 * ordinal, original_size[, metadata]}, the ordinal being the kernel's place
 * in the order given. */
struct kpack_new {
	const char *key;	/* the TOC key, "stage/bin/app#0" */
	const char *arch;	/* the target it is filed under, "gfx90a" */
	const uint8_t *code;
	uint64_t size;
	/* The entry's metadata, one MessagePack object as it goes into the
	 * TOC (kpack_meta_strings makes the splitter's), or NULL for none. */
	const uint8_t *meta;
	size_t meta_len;
};

struct kpack_write_opts {
	const char *group_name;		/* the splitter's artifact prefix */
	const char *arch_family;	/* gfx_arch_family */
	const char *const *arches;	/* gfx_arches */
	size_t narches;
	enum kpack_scheme scheme;
	int level;			/* zstd's, for KPACK_ZSTD (rocm-kpack: 3) */
};

/* Where the bytes go, in order: 0, or -1 with e filled. */
typedef int kpack_sink(void *ctx, const void *p, size_t n, struct err *e);

/* The archive of the n kernels v, in that order, to out.  The same key and
 * arch twice is an error (rocm-kpack refuses it too), as is a key or arch
 * that is empty; -1 with e filled, nothing more written. */
int kpack_write(const struct kpack_new *v, size_t n,
		const struct kpack_write_opts *o, kpack_sink *out, void *ctx,
		struct err *e);
/* The same archive written as its kernels come, one at a time, for a
 * caller that cannot hold them all: kpack_stream_begin writes the header
 * (its TOC offset 0 for now) and the zeros, kpack_stream_add one kernel's
 * blob or frame (keeping its key, arch, size and metadata), and
 * kpack_stream_end the TOC; then the caller writes head
 * (KPACK_HEADER_SIZE bytes) over the file's first bytes and, for
 * zstd-per-kernel, count (4 bytes) over those at offset 64.  The bytes
 * are kpack_write's for the same kernels. */
struct kpack_stream {
	struct kpack_write_opts o;
	struct kpack_new *v;	/* code NULL; key, arch and meta owned */
	uint64_t *off;		/* "none": each blob's offset */
	size_t n, cap;
	uint64_t at;		/* bytes written */
	void *cctx;		/* zstd's */
	char *group, *family;	/* o's strings, owned */
	char **arches;
};
int kpack_stream_begin(struct kpack_stream *st,
		       const struct kpack_write_opts *o, kpack_sink *out,
		       void *ctx, struct err *e);
int kpack_stream_add(struct kpack_stream *st, const struct kpack_new *k,
		     kpack_sink *out, void *ctx, struct err *e);
int kpack_stream_end(struct kpack_stream *st, kpack_sink *out, void *ctx,
		     uint8_t head[KPACK_HEADER_SIZE], uint8_t count[4],
		     struct err *e);
void kpack_stream_free(struct kpack_stream *st);
/* A map of string pairs kv[0]: kv[1], kv[2]: kv[3], ... (npairs of them)
 * packed into *out (malloc'd, *len bytes): the splitter's metadata is
 * {"target": <bundle entry ID>, "source_prefix": <prefix>}. */
/* The .rocm_kpack_ref map as the splitter writes it ("Binary
 * Conversion": kpack_search_paths, then kernel_name), into *out
 * (malloc'd, *len bytes). */
int kpack_ref_pack(const char *kernel_name, const char *const *paths,
		   size_t npaths, uint8_t **out, size_t *len, struct err *e);
int kpack_meta_strings(const char *const *kv, size_t npairs, uint8_t **out,
		       size_t *len, struct err *e);

#endif
