/* kpack_image: a file being edited as rocm-kpack's ElfSurgery edits its
 * bytearray (python/rocm_kpack/elf/surgery.py), without a copy of it in
 * memory: the input's bytes (mapped, never written), small patches over
 * them, one range of them cut out, and bytes appended after them.
 * Positions are the file's as it stands after every edit so far, as the
 * splitter's bytearray indices are. */
#ifndef OPS_KPACK_IMAGE_H
#define OPS_KPACK_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_types.h"

enum { KPACK_IMAGE_PATCH = 64 };	/* the longest patch over the input */

struct kpack_image_patch {
	uint64_t at;		/* in the input */
	size_t seq;		/* the later of two overlapping ones wins */
	uint8_t len, b[KPACK_IMAGE_PATCH];
};

struct kpack_image {
	const uint8_t *in;
	uint64_t in_len;
	uint64_t cut_at, cut_len;	/* in the input; cut_len 0: none */
	struct kpack_image_patch *patch;
	size_t npatch, patch_cap;
	uint8_t *tail;			/* appended, owned */
	size_t tail_len, tail_cap;
};

/* m over the n bytes at in (kept, not copied). */
void kpack_image_init(struct kpack_image *m, const uint8_t *in, uint64_t n);
void kpack_image_free(struct kpack_image *m);
uint64_t kpack_image_len(const struct kpack_image *m);
/* n bytes of p (zeros when p is NULL) after the end. */
int kpack_image_append(struct kpack_image *m, const void *p, size_t n,
		       struct err *e);
/* n bytes of p over the file at at (at + n within it). */
int kpack_image_write(struct kpack_image *m, uint64_t at, const void *p,
		      size_t n, struct err *e);
/* The n bytes at at cut out: once, and within the input's bytes. */
int kpack_image_cut(struct kpack_image *m, uint64_t at, uint64_t n,
		    struct err *e);
/* The file as it stands, written to o. */
int kpack_image_out(struct kpack_image *m, struct io_out *o, struct err *e);

#endif
