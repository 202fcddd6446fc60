/* bench_ccob_floor: the work the CCOBs of prune --compress ask for and
 * nothing else, make bench's third floor for it (test/bench.py).
 *
 *   bench_ccob_floor FILE < BUNDLES
 *
 * BUNDLES: one "offset size" line per bundle of FILE.  Each bundle is
 * compressed as LLVM's bundler compresses it (llvm::compression::zstd::
 * compress: a new context, long-distance matching, the level, one
 * ZSTD_compress2; what prune --compress must write byte for byte), and all
 * are hashed in md5lanes' sixteen lanes (the CCOB header's MD5), the file
 * mapped and read in whole first.  Nothing is written: what is left over
 * it in prune --compress is reading the input and writing the output.
 * Prints the bytes the frames take and the CPU seconds of each part. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "../core/md5lanes.h"

enum { LEVEL = 3, MAX_BUNDLES = 1 << 16 };

static double cpu_seconds(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 +
	       r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

static int die(const char *what)
{
	fprintf(stderr, "bench_ccob_floor: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	static const uint8_t *msg[MAX_BUNDLES];
	static size_t len[MAX_BUNDLES];
	unsigned long long off, size;
	size_t n = 0, frames = 0, cap = 0;
	uint8_t (*digest)[16];
	uint8_t *map, *out = NULL;
	double t0, t1, t2;
	struct stat st;
	int fd;

	if (argc != 2)
		return die("usage: bench_ccob_floor FILE < BUNDLES");
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || !st.st_size)
		return die("cannot read the file");
	map = mmap(NULL, (size_t)st.st_size, PROT_READ,
		   MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return die("cannot map the file");
	while (n < MAX_BUNDLES && scanf("%llu %llu", &off, &size) == 2) {
		if (off > (unsigned long long)st.st_size ||
		    size > (unsigned long long)st.st_size - off)
			return die("a bundle past the end of the file");
		msg[n] = map + off;
		len[n++] = (size_t)size;
		if (ZSTD_compressBound((size_t)size) > cap)
			cap = ZSTD_compressBound((size_t)size);
	}
	digest = malloc(n ? n * sizeof(*digest) : 1);
	out = malloc(cap ? cap : 1);
	if (!digest || !out)
		return die("out of memory");
	t0 = cpu_seconds();
	for (size_t i = 0; i < n; i++) {
		ZSTD_CCtx *z = ZSTD_createCCtx();
		size_t r;

		if (!z ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(
			    z, ZSTD_c_enableLongDistanceMatching, 1)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(
			    z, ZSTD_c_compressionLevel, LEVEL)))
			return die("zstd: cannot set LLVM's parameters");
		r = ZSTD_compress2(z, out, cap, msg[i], len[i]);
		if (ZSTD_isError(r))
			return die(ZSTD_getErrorName(r));
		frames += r;
		ZSTD_freeCCtx(z);
	}
	t1 = cpu_seconds();
	md5lanes_each(msg, len, n, digest, NULL, NULL);
	t2 = cpu_seconds();
	printf("%zu bundles: %zu bytes of frames; zstd %.2f s, md5 %.2f s, "
	       "mapping %.2f s\n", n, frames, t1 - t0, t2 - t1, t0);
	free(out);
	free(digest);
	munmap(map, (size_t)st.st_size);
	close(fd);
	return 0;
}
