/* Fuzz target: offload binaries (formats/package.c): how far a run of
 * them goes (package_run), the binaries of a section end to end, as extraction reads them (versions 1 to 3, zstd and
 * zlib bodies under small limits), then each image written back as a
 * version-1 binary by the writer and read again.  The limits keep the
 * fuzzer's allocations small: at most 1 MiB inflated, 64 times the
 * compressed bytes.
 * libFuzzer: -max_len=4096
 */
#include <string.h>

#include "fuzz.h"
#include "../../formats/package.h"

static const struct package_limits limits = {
	.max_ratio = 64,
	.max_size = 1u << 20,
};

static bool has_nul(const char *s, size_t n)
{
	return memchr(s, 0, n) != NULL;
}

/* Write img as a version-1 binary and read it back: the same kinds, strings
 * (unless a value holds a NUL, which version 1 cannot) and image. */
static void round_trip(const struct package_image *img)
{
	struct package_meta meta = { img->image_kind, img->offload_kind,
				     img->strings, img->nstrings };
	struct package_list again = { 0 };
	uint8_t *head = NULL, *bin;
	size_t head_len, tail, len;
	struct err e;
	bool nul = false;

	FUZZ_CHECK(package_write_head(&meta, img->image_size, &head, &head_len,
				      &tail, &e) == 0);
	len = head_len + (size_t)img->image_size + tail;
	FUZZ_CHECK(len % PACKAGE_ALIGN == 0);
	bin = calloc(1, len);
	FUZZ_CHECK(bin != NULL);
	memcpy(bin, head, head_len);
	memcpy(bin + head_len, img->image, (size_t)img->image_size);
	FUZZ_CHECK(package_scan(bin, len, &limits, &again, &e) == 0);
	FUZZ_CHECK(again.n == 1);
	FUZZ_CHECK(again.v[0].version == 1);
	FUZZ_CHECK(again.v[0].image_kind == img->image_kind);
	FUZZ_CHECK(again.v[0].offload_kind == img->offload_kind);
	FUZZ_CHECK(again.v[0].image_size == img->image_size);
	FUZZ_CHECK(!memcmp(again.v[0].image, img->image,
			   (size_t)img->image_size));
	FUZZ_CHECK(again.v[0].nstrings == img->nstrings);
	for (size_t i = 0; i < img->nstrings; i++)
		nul |= has_nul(img->strings[i].value, img->strings[i].value_len);
	for (size_t i = 0; i < img->nstrings && !nul; i++) {
		const struct package_string *a = &img->strings[i];
		const struct package_string *b = &again.v[0].strings[i];

		FUZZ_CHECK(a->key_len == b->key_len &&
			   !memcmp(a->key, b->key, a->key_len));
		FUZZ_CHECK(a->value_len == b->value_len &&
			   !memcmp(a->value, b->value, a->value_len));
	}
	package_list_free(&again);
	free(bin);
	free(head);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct package_list l = { 0 };
	struct err e;
	size_t run = package_run(data, size);

	/* The run of packages lies inside the input, on a word. */
	FUZZ_CHECK(run <= size && (run == size || run % PACKAGE_ALIGN == 0));
	if (package_scan(data, size, &limits, &l, &e) < 0) {
		FUZZ_CHECK(e.msg[0] != 0);
		package_list_free(&l);
		return 0;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct package_image *img = &l.v[i];
		size_t len;

		if (!img->inflated) {
			FUZZ_CHECK(img->image_offset <= size &&
				   img->image_size <= size - img->image_offset);
			FUZZ_CHECK(img->image == data + img->image_offset);
		}
		fuzz_touch(img->image, (size_t)img->image_size);
		for (size_t k = 0; k < img->nstrings; k++) {
			const struct package_string *s = &img->strings[k];

			fuzz_touch(s->key, s->key_len + 1);
			FUZZ_CHECK(s->key[s->key_len] == 0);
			fuzz_touch(s->value, s->value_len);
		}
		(void)package_get(img, "triple", 6, &len);
		(void)package_offload_kind_describe(img->offload_kind);
		(void)package_image_kind_ext(img->image_kind, true);
		round_trip(img);
	}
	package_list_free(&l);
	return 0;
}
