/* replay: run a fuzz target over files without libFuzzer, so that make check
 * replays the seed corpora with any compiler (and under SANITIZE=1).
 *   build/test/fuzz/<name> FILE...
 * Prints "PASS FILE" after each input; a crash stops the run, and the file
 * after the last PASS is the culprit (test/fuzz/replay.sh reports it).
 * Each input sits in a heap block of exactly its size, as under libFuzzer,
 * so ASan sees a read one byte past its end. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0;
	long end;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (end = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0)
		goto fail;
	len = (size_t)end;
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != len)
		goto fail;
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	printf("PASS %s\n", path);
	fflush(stdout);
	return 0;
fail:
	fprintf(stderr, "replay: cannot read '%s': %s\n", path,
		errno ? strerror(errno) : "short read");
	if (f)
		fclose(f);
	free(buf);
	return 1;
}

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= replay(argv[i]);
	return rc;
}
