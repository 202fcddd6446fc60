/* llvmhash_test: core/llvmhash.c against hashes LLVM 22's libLLVM computed
 * (golden.tsv, made by regen.py): "<input hex>\t<hash hex>" per line. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/llvmhash.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int main(int argc, char **argv)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	unsigned long pass = 0, fail = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s golden.tsv\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	while (getline(&line, &cap, f) > 0) {
		char *tab = strchr(line, '\t');
		size_t hexlen, n;
		unsigned char *bytes;
		unsigned long long want, got;

		if (!tab) {
			fprintf(stderr, "bad line: %s", line);
			fail++;
			continue;
		}
		hexlen = (size_t)(tab - line);
		n = hexlen / 2;
		bytes = malloc(n + 1);
		if (!bytes)
			return 2;
		for (size_t i = 0; i < n; i++)
			bytes[i] = (unsigned char)(hexval(line[2 * i]) << 4 |
						   hexval(line[2 * i + 1]));
		want = strtoull(tab + 1, NULL, 16);
		got = llvmhash_bytes(bytes, n);
		if (got == want) {
			pass++;
		} else {
			fail++;
			printf("FAIL: %zu bytes %.40s...: want %016llx, got %016llx\n",
			       n, line, want, got);
		}
		free(bytes);
	}
	free(line);
	fclose(f);
	printf("%lu passed, %lu failed\n", pass, fail);
	return fail ? 1 : 0;
}
