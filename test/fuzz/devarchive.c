/* Fuzz target: heterogeneous device archives (ops/devarchive.c): every
 * entry of every member (object, binary and compressed bundles), the bytes
 * each stands for (stripping host objects), member names, and the archive
 * of them written to /dev/null; then every image of the members' offload
 * packages (devarchive_images), each touched whole.
 * libFuzzer: -max_len=65536
 */
#include <stdlib.h>

#include "fuzz.h"
#include "../../ops/devarchive.h"
#include "../../core/io_out.h"

static int count_ids(void *ctx, const char *file, size_t file_len, char **ids,
		     size_t n)
{
	fuzz_touch(file, file_len);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(ids[i] != NULL);
	*(size_t *)ctx += n;
	return 0;
}

static int touch_image(void *ctx, const struct devarchive_image *im,
		       struct err *e)
{
	(void)e;
	fuzz_touch(im->file, im->file_len);
	fuzz_touch(im->data, im->len);
	FUZZ_CHECK(im->img != NULL);
	++*(size_t *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ccob_limits lim = { .max_ratio = 64, .max_size = 1 << 20 };
	struct devarchive_reader r;
	struct devarchive_entry ent;
	struct devarchive_member m[16];
	struct io_out out = { .fd = -1 };
	struct err e;
	size_t n = 0, ids = 0;

	devarchive_member_ids(data, size, count_ids, &ids, LLVM_NEWEST, &e);
	if (devarchive_open(&r, data, size, &lim, LLVM_NEWEST, &e) < 0)
		return 0;
	while (devarchive_next(&r, &ent, &e) == 1 && n < 16) {
		const uint8_t *bytes;
		size_t len;

		fuzz_touch(ent.id, ent.id_len);
		if (devarchive_bytes(&r, &ent, &bytes, &len, &e) < 0)
			continue;
		fuzz_touch(bytes, len);
		m[n].name = devarchive_member_name(ent.file, ent.file_len, ent.id,
						   ent.id_len, "gfx90a");
		if (!m[n].name)
			break;
		m[n].data = bytes;
		m[n++].len = len;
	}
	if (io_out_open(&out, "/dev/null", &e) == 0) {
		devarchive_write(&out, m, n, &e);
		io_out_discard(&out);
	}
	for (size_t i = 0; i < n; i++)
		free(m[i].name);
	devarchive_close(&r);
	if (devarchive_open(&r, data, size, &lim, LLVM_NEWEST, &e) == 0) {
		size_t images = 0;

		devarchive_images(&r, touch_image, &images, &e);
		devarchive_close(&r);
	}
	return 0;
}
