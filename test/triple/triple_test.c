/* triple_test: check core/triple*.c against goldens from LLVM 22's bundler.
 *
 * Lines of golden.tsv (see regen.sh):
 *   <triple>\t<host bundle ID | ERROR | FATAL>
 *   compat\t<bundled triple>\t<requested triple>\t<0|1>
 *
 * The bundle ID is rebuilt the bundler's way: reject an unknown arch, then
 * "host-" + normalize(triple, 4) + "-", or for AMDHSA
 * "host-" + normalize(triple, 3) + "--".  For compat lines the bundler
 * compares the triples of the two standardised IDs, so both sides go
 * through the same normalization before triple_compatible. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/env.h"
#include "../../core/triple.h"
#include "../../core/triple_normalize.h"

/* The goldens are LLVM 22's: its triples, without 23's amdgpu*. */
static const enum llvm_release golden_release = LLVM_22;

/* The triple part of the standardised ID (without kind and target ID), or
 * NULL where LLVM aborts; *fatal tells that apart from out of memory. */
static char *standard_triple(const char *s, bool *fatal)
{
	struct err e;
	struct triple t;
	bool hsa;
	char *n, *r;
	size_t len;

	triple_parse(s, strlen(s), golden_release, &t);
	hsa = triple_os_is_amdhsa(&t);
	n = triple_normalize(s, strlen(s), hsa ? 3 : 4, golden_release, &e);
	*fatal = !n && e.code == ERR_FATAL;
	if (!n)
		return NULL;
	if (!hsa)
		return n;
	/* AMDHSA keeps an empty environment: "amdgcn-amd-amdhsa-". */
	len = strlen(n);
	r = realloc(n, len + 2);
	if (!r) {
		free(n);
		return NULL;
	}
	r[len] = '-';
	r[len + 1] = '\0';
	return r;
}

/* Expected-value text for a host line. */
static char *host_id(const char *s)
{
	struct triple t;
	bool fatal;
	char *n, *id;

	triple_parse(s, strlen(s), golden_release, &t);
	if (!triple_arch_known(&t))
		return strdup("ERROR");
	n = standard_triple(s, &fatal);
	if (!n)
		return strdup(fatal ? "FATAL" : "OUT OF MEMORY");
	id = malloc(strlen(n) + 7);
	if (id)
		sprintf(id, "host-%s-", n);
	free(n);
	return id;
}

static int compat(const char *a, const char *b)
{
	struct triple ta, tb;
	bool fatal;
	char *na = standard_triple(a, &fatal);
	char *nb = standard_triple(b, &fatal);
	int r = -1;

	if (na && nb) {
		triple_parse(na, strlen(na), golden_release, &ta);
		triple_parse(nb, strlen(nb), golden_release, &tb);
		r = triple_compatible(&ta, &tb);
	}
	free(na);
	free(nb);
	return r;
}

int main(int argc, char **argv)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0, pass = 0, fail = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s golden.tsv\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *field[4] = { line };
		int n = 1;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		for (char *p = line; *p && n < 4; p++) {
			if (*p == '\t') {
				*p = '\0';
				field[n++] = p + 1;
			}
		}
		if (n == 4 && !strcmp(field[0], "compat")) {
			int want = atoi(field[3]);
			int got = compat(field[1], field[2]);

			if (got == want) {
				pass++;
			} else {
				fail++;
				printf("%lu: compat '%s' '%s': got %d, want %d\n",
				       lineno, field[1], field[2], got, want);
			}
		} else if (n == 2) {
			char *got = host_id(field[0]);

			if (got && !strcmp(got, field[1])) {
				pass++;
			} else {
				fail++;
				printf("%lu: '%s': got '%s', want '%s'\n", lineno,
				       field[0], got ? got : "(null)", field[1]);
			}
			free(got);
		} else {
			fail++;
			printf("%lu: malformed line\n", lineno);
		}
	}
	free(line);
	fclose(f);
	printf("%lu passed, %lu failed\n", pass, fail);
	return fail != 0;
}
