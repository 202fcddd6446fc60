/* A stub of LLVM's offload runtime (libomptarget) for prune.test: what a
 * program's constructor registers, printed as the runtime would see it.
 * __tgt_register_lib is handed the linker wrapper's descriptor; each image
 * it lists is printed with its size, its kind (an AMDGPU code object's
 * EF_AMDGPU_MACH, or a package) and an FNV-1a hash of its bytes, so a
 * pruned program can be compared with the original: the kept images the
 * same, the dropped ones gone. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct tgt_device_image {
	void *start, *end;
	void *entries_begin, *entries_end;
};

struct tgt_bin_desc {
	int32_t count;
	struct tgt_device_image *images;
	void *entries_begin, *entries_end;
};

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

void __tgt_register_lib(struct tgt_bin_desc *d)
{
	printf("register %d images\n", d->count);
	for (int32_t i = 0; i < d->count; i++) {
		const unsigned char *p = d->images[i].start;
		size_t n = (size_t)((const char *)d->images[i].end -
				    (const char *)d->images[i].start);
		uint32_t flags = 0;

		if (n >= 52 && !memcmp(p, "\177ELF", 4)) {
			memcpy(&flags, p + 48, 4);
			printf("  image elf mach 0x%02x %zu %016llx\n",
			       flags & 0xff, n, (unsigned long long)fnv(p, n));
		} else {
			printf("  image %s %zu %016llx\n",
			       n >= 4 && !memcmp(p, "\x10\xff\x10\xad", 4) ?
			       "package" : "unknown", n,
			       (unsigned long long)fnv(p, n));
		}
	}
	fflush(stdout);
}

void __tgt_unregister_lib(struct tgt_bin_desc *d)
{
	(void)d;
}

void __tgt_init_all_rtls(void)
{
}
