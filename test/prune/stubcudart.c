/* stubcudart.c: a stand-in for the CUDA runtime (libcudart.so.13) that does
 * what the real one does first with a program's device code: it receives
 * each translation unit's fatbin through __cudaRegisterFatBinary and walks
 * the entries of the container the wrapper points at.  For each it prints
 * the kind, the arch, the stored size and an FNV-1a hash of the payload,
 * so a test sees what the driver would be offered, before and after
 * pruning.  Built by prune.test with a version script (the program asks
 * for symbols of version libcudart.so.13); the real loader relocates the
 * wrappers. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct fatbin_wrapper {
	int32_t magic, version;
	const uint8_t *data;
	void *filename_or_fatbins;
};

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static uint64_t fnv(const uint8_t *p, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

void **__cudaRegisterFatBinary(const struct fatbin_wrapper *w)
{
	const uint8_t *f = w->data;
	uint64_t hs, size, pos;

	printf("register magic %08x\n", (unsigned)w->magic);
	if (le(f, 4) != 0xBA55ED50u) {
		printf("  not a fatbin\n");
		return (void **)w;
	}
	hs = le(f + 6, 2);
	size = le(f + 8, 8);
	for (pos = hs; pos < hs + size;) {
		const uint8_t *e = f + pos;
		uint64_t ehs = le(e + 4, 4), psize = le(e + 8, 8);
		uint64_t flags = le(e + 40, 8);

		printf("  %s %u%s %llu %016llx\n",
		       le(e, 2) == 1 ? "ptx" : "elf", (unsigned)le(e + 28, 4),
		       flags & 0x100000 ? "a" : flags & 0x200000 ? "f" : "",
		       (unsigned long long)psize,
		       (unsigned long long)fnv(e + ehs, psize));
		pos += ehs + psize;
	}
	fflush(stdout);
	return (void **)w;
}

void __cudaRegisterFatBinaryEnd(void **h) { (void)h; }
void __cudaUnregisterFatBinary(void **h) { (void)h; }
void __cudaInitModule(void **h) { (void)h; }

void __cudaRegisterFunction(void **h, const char *f, char *dev,
			    const char *name, int limit, void *a, void *b,
			    void *c, void *d, int *e)
{
	(void)h; (void)f; (void)name; (void)limit; (void)a; (void)b; (void)c;
	(void)d; (void)e;
	printf("  kernel %s\n", dev);
}

int __cudaPushCallConfiguration(uint64_t g, uint32_t gz, uint64_t b,
				uint32_t bz, size_t shm, void *s)
{
	(void)g; (void)gz; (void)b; (void)bz; (void)shm; (void)s;
	return 0;
}

int __cudaPopCallConfiguration(void *g, void *b, size_t *shm, void **s)
{
	(void)g; (void)b; (void)shm; (void)s;
	return 0;
}

int __cudaGetKernel(void **k, const void *f)
{
	(void)f;
	*k = NULL;
	return 0;
}

int __cudaLaunchKernel(const void *k, uint64_t g, uint32_t gz, uint64_t b,
		       uint32_t bz, void **args, size_t shm, void *s)
{
	(void)k; (void)g; (void)gz; (void)b; (void)bz; (void)args; (void)shm;
	(void)s;
	return 0;
}
