/* stubhip.c: a stand-in for the HIP runtime (libamdhip64.so.5) that does
 * what the real one does first with a program's device code: it receives
 * each translation unit's fat binary through __hipRegisterFatBinary and
 * reads the offload bundle (or CCOB) the wrapper points at.  For every
 * entry it prints the ID, the size and an FNV-1a hash of the code, so a
 * test sees exactly what a loader would find, before and after pruning.
 * Built by prune.test; the real loader (ld.so) relocates the wrappers.
 * A CCOB (zstd or zlib, versions 2 and 3) is inflated first, as the
 * runtime does.  Link with -lzstd -lz; -DSTUB_NO_ZSTD builds it where the
 * target has neither (the AArch64 run under qemu): a CCOB is then named,
 * not decompressed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef STUB_NO_ZSTD
#include <zlib.h>
#include <zstd.h>
#endif

struct fatbin_wrapper {
	int32_t magic, version;
	const uint8_t *binary;
	void *unused;
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

static void show_bundle(const uint8_t *b, const char *how)
{
	uint64_t n = le(b + 24, 8), pos = 32;

	if (memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24)) {
		printf("  %s: not a bundle\n", how);
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = le(b + pos, 8), size = le(b + pos + 8, 8);
		uint64_t idl = le(b + pos + 16, 8);

		printf("  %s %.*s %llu %016llx\n", how, (int)idl, b + pos + 24,
		       (unsigned long long)size,
		       (unsigned long long)fnv(b + off, size));
		pos += 24 + idl;
	}
}

void **__hipRegisterFatBinary(const struct fatbin_wrapper *w)
{
	const uint8_t *b = w->binary;

	printf("register magic %08x version %d\n", (unsigned)w->magic,
	       w->version);
	if (!memcmp(b, "CCOB", 4)) {
		/* Versions 2 and 3: the total size says where it ends. */
		unsigned v = (unsigned)le(b + 4, 2);
		uint64_t hs = v == 2 ? 24 : 32;
		uint64_t total = v == 2 ? le(b + 8, 4) : le(b + 8, 8);
		uint64_t raw = v == 2 ? le(b + 12, 4) : le(b + 16, 8);
#ifdef STUB_NO_ZSTD
		(void)hs;
		(void)raw;
		printf("  CCOB version %u: %llu bytes, not decompressed\n", v,
		       (unsigned long long)total);
		fflush(stdout);
		return (void **)w;
#else
		uint8_t *out = malloc(raw ? raw : 1);
		uLongf got = (uLongf)raw;
		int zlib = le(b + 6, 2) == 0;

		if (!out || (zlib ? uncompress(out, &got, b + hs, total - hs) !=
				     Z_OK || got != raw
			      : ZSTD_decompress(out, raw, b + hs, total - hs) !=
				raw)) {
			printf("  CCOB: cannot decompress\n");
			exit(1);
		}
		show_bundle(out, "ccob");
		free(out);
#endif
	} else {
		show_bundle(b, "bundle");
	}
	fflush(stdout);
	return (void **)w;
}

void __hipRegisterFunction(void **h, const void *f, char *dev, const char *name,
			   int limit, void *a, void *b, void *c, void *d,
			   int *e)
{
	(void)h; (void)f; (void)limit; (void)a; (void)b; (void)c; (void)d;
	(void)e; (void)name;
	printf("  kernel %s\n", dev);
}

void __hipRegisterVar(void **h, void *var, char *host, const char *dev,
		      int ext, unsigned long size, int constant, int global)
{
	(void)h; (void)var; (void)host; (void)dev; (void)ext; (void)size;
	(void)constant; (void)global;
}

void __hipUnregisterFatBinary(void **h)
{
	(void)h;
}

int hipLaunchKernel(const void *f, uint64_t g, uint32_t gz, uint64_t b,
		    uint32_t bz, void **args, unsigned long shm, void *s)
{
	(void)f; (void)g; (void)gz; (void)b; (void)bz; (void)args; (void)shm;
	(void)s;
	return 0;
}

int __hipPushCallConfiguration(uint64_t g, uint32_t gz, uint64_t b,
			       uint32_t bz, unsigned long shm, void *s)
{
	(void)g; (void)gz; (void)b; (void)bz; (void)shm; (void)s;
	return 0;
}

int __hipPopCallConfiguration(void *g, void *b, unsigned long *shm, void **s)
{
	(void)g; (void)b; (void)shm; (void)s;
	return 0;
}
