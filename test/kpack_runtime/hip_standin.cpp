// hip_standin: a HIP runtime stand-in (libamdhip64.so for the programs
// kpack_split.test builds) that takes the HIPK path as AMD's runtime does:
// for a wrapper whose magic is HIPK, the binary pointer is the
// .rocm_kpack_ref map in memory and reserved1 the code object's index, and
// kpack_load_code_object (AMD's kpack runtime library, linked in) finds the
// code object for the binary the wrapper lives in.  Each one found is
// written to $STANDIN_OUT/<binary's name>.<index>.co for the test to compare
// with the fat original's, and named on stderr; a failure is a line and
// exit status 3.  $STANDIN_ARCH is the GPU's target ID.  A HIPF wrapper
// (not split) is named and left alone.
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rocm_kpack/kpack.h>

#include "nohip.h"

namespace {

struct wrapper {
	uint32_t magic, version;
	const void *binary;
	uint64_t reserved1;
};

// The file the wrapper is in: the library dladdr names, or the program.
void binary_of(const void *p, char *path)
{
	Dl_info info;
	ssize_t n;

	if (dladdr(p, &info) && info.dli_fname && strchr(info.dli_fname, '/') &&
	    realpath(info.dli_fname, path))
		return;
	n = readlink("/proc/self/exe", path, PATH_MAX - 1);
	path[n < 0 ? 0 : n] = 0;
}

kpack_cache_t cache;
void *handle;

}  // namespace

extern "C" void **__hipRegisterFatBinary(const void *p)
{
	const wrapper *w = static_cast<const wrapper *>(p);
	const char *arch = getenv("STANDIN_ARCH"), *out = getenv("STANDIN_OUT");
	char path[PATH_MAX], file[PATH_MAX + 64];
	const char *base;
	void *code = nullptr;
	size_t size = 0;

	binary_of(p, path);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (w->magic != 0x4B504948) {
		fprintf(stderr, "standin: %s: HIPF wrapper\n", base);
		return &handle;
	}
	if (!arch || !out) {
		fprintf(stderr, "standin: STANDIN_ARCH and STANDIN_OUT unset\n");
		exit(3);
	}
	if (!cache && kpack_cache_create(&cache) != KPACK_SUCCESS) {
		fprintf(stderr, "standin: kpack_cache_create failed\n");
		exit(3);
	}
	kpack_error_t r = kpack_load_code_object(cache, w->binary, path,
						 (uint32_t)w->reserved1, &arch,
						 1, &code, &size);
	if (r != KPACK_SUCCESS) {
		fprintf(stderr, "standin: %s #%llu: kpack_load_code_object "
			"failed: %d\n", base, (unsigned long long)w->reserved1,
			(int)r);
		exit(3);
	}
	snprintf(file, sizeof(file), "%s/%s.%llu.co", out, base,
		 (unsigned long long)w->reserved1);
	FILE *f = fopen(file, "wb");
	if (!f || fwrite(code, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "standin: cannot write %s\n", file);
		exit(3);
	}
	fprintf(stderr, "standin: %s #%llu: %zu bytes\n", base,
		(unsigned long long)w->reserved1, size);
	kpack_free_code_object(code);
	return &handle;
}

extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, void *) { return 0; }
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, void *) { return 0; }
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, void **) { return 0; }
extern "C" void __hipRegisterFunction(void **, const void *, char *, const char *, int, void *, void *, void *, void *, int *) {}
extern "C" void __hipRegisterVar(void **, void *, char *, const char *, int, unsigned long, int, int) {}
extern "C" void __hipUnregisterFatBinary(void *) {}
