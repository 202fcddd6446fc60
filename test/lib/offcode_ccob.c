/* offcode_ccob: offcode_ccob_inflate on the CCOBs of a file
 * (test/libtest.test).
 * Usage: offcode_ccob FILE         each CCOB's bytes, inflated, in order,
 *                                  to standard output
 *        offcode_ccob -e FILE      its first CCOB's bytes, given wrong,
 *                                  and limits and callers that stop: one
 *                                  line each, what came back */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offcode.h>

struct count {
	uint64_t bytes, pieces;
	uint64_t stop_after;	/* pieces; 0: never */
};

static int out(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	return fwrite(p, 1, n, stdout) == n ? 0 : 1;
}

static int count(void *ctx, const void *p, size_t n)
{
	struct count *c = ctx;

	(void)p;
	c->bytes += n;
	return ++c->pieces == c->stop_after ? 100 : 0;
}

static void try(const char *what, const void *p, size_t len, uint64_t size,
		uint64_t ratio, uint64_t stop_after, bool want_err)
{
	struct count c = { .stop_after = stop_after };
	offcode_error *err = NULL;
	int rc = offcode_ccob_inflate(p, len, size, ratio, count, &c,
				      want_err ? &err : NULL);
	const char *name = offcode_code_name(rc);

	if (name)
		printf("%s: %s, ", what, name);
	else
		printf("%s: %d, ", what, rc);
	printf("%" PRIu64 " bytes", c.bytes);
	if (err)
		printf(" (%s)", offcode_error_message(err));
	putchar('\n');
	offcode_error_free(err);
}

int main(int argc, char **argv)
{
	offcode_artifact *a = NULL;
	offcode_error *err = NULL;
	bool errors = argc == 3 && !strcmp(argv[1], "-e");
	const char *path = argv[argc - 1];
	unsigned char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc = 1;

	if (argc != 2 && !errors)
		return 2;
	if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) ||
	    (len = (size_t)ftell(f), fseek(f, 0, SEEK_SET)) ||
	    !(buf = malloc(len)) || fread(buf, 1, len, f) != len)
		return 2;
	fclose(f);
	if (offcode_open_path(path, NULL, &a, &err)) {
		printf("open: %s\n", offcode_error_message(err));
		goto out;
	}
	for (size_t i = 0; i < offcode_container_count(a); i++) {
		const offcode_container *c = offcode_container_at(a, i);
		uint64_t off, size = offcode_container_size(c);
		const unsigned char *p;

		if (strcmp(offcode_container_format(c), "ccob") ||
		    !offcode_container_offset(c, &off))
			continue;
		p = buf + off;
		if (!errors) {
			if (offcode_ccob_inflate(p, size, 0, 0, out, NULL, &err))
				goto out;
			continue;
		}
		try("whole", p, size, 0, 0, 0, true);
		try("one byte short", p, size - 1, 0, 0, 0, true);
		try("the header alone", p, 32, 0, 0, 0, true);
		try("ten bytes", p, 10, 0, 0, 0, true);
		try("not a CCOB", p + 1, size - 1, 0, 0, 0, true);
		try("declared size over max_size 1000", p, size, 1000, 0, 0,
		    true);
		try("over max_ratio 2", p, size, 0, 2, 0, true);
		try("stopped after a piece", p, size, 0, 0, 1, true);
		try("damaged, no record asked for", p, size - 1, 0, 0, 0, false);
		try("NULL bytes", NULL, size, 0, 0, 0, true);
		rc = offcode_ccob_inflate(p, size, 0, 0, NULL, NULL, NULL);
		printf("NULL function: %s\n", offcode_code_name(rc));
		break;
	}
	rc = 0;
out:
	if (err)
		fprintf(stderr, "error: %s\n", offcode_error_message(err));
	offcode_error_free(err);
	offcode_close(a);
	free(buf);
	return rc;
}
