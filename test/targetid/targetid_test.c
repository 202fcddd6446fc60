/* Checks core/targetid.c against golden.tsv (made by regen.sh from LLVM 22).
 *   targetid_test golden.tsv
 * Lines (tab separated):
 *   known    <name>  <0|1>
 *   compat   <triple> <entry id> <request id> <0|1>
 *   conflict <id,id,...> <none|i,j|crash>
 * compat lines give the IDs as written in the bundle and on the command line;
 * like the bundler, the harness first reduces both to the kept target ID and
 * counts equal ones as an exact match before asking targetid_compatible.
 * conflict lists are already sorted and deduplicated; "crash" (LLVM died on a
 * malformed ID) must come out as -1 from targetid_conflict_ex. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/targetid.h"

static int passed, failed;

static void fail(int lineno, const char *line, const char *fmt, const char *got)
{
	failed++;
	fprintf(stderr, "line %d: %s: ", lineno, line);
	fprintf(stderr, fmt, got);
	fputc('\n', stderr);
}

/* Split s in place on c; returns the number of fields (at most max). */
static int split(char *s, char c, char **f, int max)
{
	int n = 0;

	f[n++] = s;
	while (n < max && (s = strchr(s, c)) != NULL) {
		*s++ = '\0';
		f[n++] = s;
	}
	return n;
}

static void check_known(int lineno, const char *line, char **f, int n)
{
	bool want, got;

	if (n != 3) {
		fail(lineno, line, "%s", "bad known line");
		return;
	}
	want = strcmp(f[2], "1") == 0;
	got = targetid_known_processor(f[1], strlen(f[1]));
	if (got != want)
		fail(lineno, line, "got %s", got ? "1" : "0");
	else
		passed++;
}

static void check_compat(int lineno, const char *line, char **f, int n)
{
	struct triple t;
	size_t el, rl;
	bool want, got;

	if (n != 5) {
		fail(lineno, line, "%s", "bad compat line");
		return;
	}
	want = strcmp(f[4], "1") == 0;
	triple_parse(f[1], strlen(f[1]), LLVM_NEWEST, &t);
	el = targetid_effective_len(f[2], strlen(f[2]));
	rl = targetid_effective_len(f[3], strlen(f[3]));
	if (el == rl && memcmp(f[2], f[3], el) == 0)
		got = true; /* exact match, decided by the caller */
	else
		got = targetid_compatible(f[2], strlen(f[2]), f[3], strlen(f[3]),
					  &t);
	if (got != want)
		fail(lineno, line, "got %s", got ? "1" : "0");
	else
		passed++;
}

static void check_conflict(int lineno, const char *line, char **f, int n)
{
	char *ids[256], buf[64];
	size_t a = 0, b = 0;
	int m, r;

	if (n != 3) {
		fail(lineno, line, "%s", "bad conflict line");
		return;
	}
	m = split(f[1], ',', ids, 256);
	r = targetid_conflict_ex((const char *const *)ids, (size_t)m, &a, &b);
	if (r == 1)
		snprintf(buf, sizeof buf, "%zu,%zu", a, b);
	else if (r == 0)
		snprintf(buf, sizeof buf, "none");
	else
		snprintf(buf, sizeof buf, "crash");
	if (strcmp(buf, f[2]) != 0) {
		fail(lineno, line, "got %s", buf);
		return;
	}
	/* The plain entry point agrees, with -1 read as no conflict. */
	{
		size_t c = 99, d = 99;
		bool got = targetid_conflict((const char *const *)ids,
					     (size_t)m, &c, &d);
		if (got != (r == 1) || (got && (c != a || d != b))) {
			fail(lineno, line, "%s", "targetid_conflict disagrees");
			return;
		}
	}
	passed++;
}

int main(int argc, char **argv)
{
	char line[4096], copy[4096];
	char *f[8];
	int lineno = 0, n;
	FILE *fp;

	if (argc != 2) {
		fprintf(stderr, "usage: %s golden.tsv\n", argv[0]);
		return 2;
	}
	fp = fopen(argv[1], "r");
	if (!fp) {
		perror(argv[1]);
		return 2;
	}
	while (fgets(line, sizeof line, fp)) {
		size_t len = strlen(line);

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		memcpy(copy, line, len + 1);
		n = split(line, '\t', f, 8);
		if (strcmp(f[0], "known") == 0)
			check_known(lineno, copy, f, n);
		else if (strcmp(f[0], "compat") == 0)
			check_compat(lineno, copy, f, n);
		else if (strcmp(f[0], "conflict") == 0)
			check_conflict(lineno, copy, f, n);
		else
			fail(lineno, copy, "%s", "unknown line kind");
	}
	fclose(fp);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
