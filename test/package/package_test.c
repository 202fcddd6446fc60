/* package_test: formats/package.c read directly, every image of each file
 * named described on one line (the fixtures of test/files/package: versions
 * 1 to 3, zstd and zlib, a value holding a NUL, HIP as LLVM 15-20 numbered
 * it); package.test compares the listing with golden.txt, which this
 * program wrote and which was checked by hand against make.py there. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/package.h"

/* Printable bytes as they are, others as \ooo. */
static void show(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			putchar(c);
		else
			printf("\\%03o", c);
	}
}

static int list(const char *path)
{
	const struct package_limits lim = {
		.max_ratio = PACKAGE_DEFAULT_MAX_RATIO,
		.max_size = PACKAGE_DEFAULT_MAX_SIZE };
	struct package_list l = { 0 };
	struct err e;
	FILE *f = fopen(path, "rb");
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	uint8_t *buf;
	long len;
	int rc = 0;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0 || !(buf = malloc((size_t)len + 1)) ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		perror(path);
		return 1;
	}
	fclose(f);
	if (package_scan(buf, (size_t)len, &lim, &l, &e) < 0) {
		printf("%s: error: %s\n", name, e.msg);
		rc = 1;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct package_image *img = &l.v[i];

		printf("%s [%zu] v%u at %llu: kind %u (.%s) offload %u (%s) "
		       "flags %u, %llu bytes %s %llu:", name, i, img->version,
		       (unsigned long long)img->binary_offset, img->image_kind,
		       package_image_kind_ext(img->image_kind, false),
		       img->offload_kind,
		       package_offload_kind_describe(img->offload_kind),
		       (unsigned)img->flags,
		       (unsigned long long)img->image_size,
		       img->inflated ? "inflated, at" : "at",
		       (unsigned long long)(img->inflated ? 0 : img->image_offset));
		for (size_t k = 0; k < img->nstrings; k++) {
			putchar(' ');
			show(img->strings[k].key, img->strings[k].key_len);
			putchar('=');
			show(img->strings[k].value, img->strings[k].value_len);
		}
		printf(" | ");
		show((const char *)img->image, (size_t)img->image_size);
		putchar('\n');
	}
	package_list_free(&l);
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= list(argv[i]);
	return rc;
}
