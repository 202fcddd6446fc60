/* offcode_layer_bytes: liboffcode's packages and images handed over as
 * bytes (offcode_layer_walk_bytes; test/libtest.test).
 *   offcode_layer_bytes FILE...   each FILE opened with
 *       OFFCODE_OPEN_STREAM, each layer walked: a line for each file
 *       handed over (its layer, index, name, size, a hash of its bytes,
 *       and whether a descriptor holds them: then read back through it
 *       and compared)
 *   offcode_layer_bytes -e FILE   calls made wrong, and a caller that
 *       stops, on FILE: one line each, what came back */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <offcode.h>

static uint32_t fnv(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static int file(void *ctx, const struct offcode_member *m, const void *bytes,
		size_t len, int fd)
{
	const char *held = "in memory";
	unsigned char *back;

	(void)ctx;
	if (fd >= 0) {
		held = "in a file, read back the same";
		if (!(back = malloc(len ? len : 1)) ||
		    pread(fd, back, len, 0) != (ssize_t)len ||
		    memcmp(back, bytes, len))
			held = "in a file, read back DIFFERENT";
		free(back);
	}
	printf("  %zu #%" PRIu64 " %.*s: %zu bytes (%" PRIu64 "), %08x, %s\n",
	       m->layer, m->index, (int)m->name_len, m->name, len, m->size,
	       fnv(bytes, len), held);
	return 0;
}

static int stop(void *ctx, const struct offcode_member *m, const void *bytes,
		size_t len, int fd)
{
	offcode_artifact *a = ctx;
	int rc;

	(void)m, (void)bytes, (void)len, (void)fd;
	rc = offcode_layer_walk_bytes(a, 0, file, NULL);
	printf("walk from the callback: %s (%s)\n", offcode_code_name(rc),
	       offcode_error_message(offcode_last_error(a)));
	return 100;
}

int main(int argc, char **argv)
{
	struct offcode_open_options o = { .size = sizeof(o),
					  .flags = OFFCODE_OPEN_STREAM };
	bool errors = argc > 1 && !strcmp(argv[1], "-e");
	offcode_artifact *a = NULL;
	offcode_error *err = NULL;
	int rc;

	for (int f = errors ? 2 : 1; f < argc; f++) {
		if ((rc = offcode_open_path(argv[f], &o, &a, &err))) {
			printf("%s: %s (%s)\n", argv[f], offcode_code_name(rc),
			       offcode_error_message(err));
			offcode_error_free(err);
			err = NULL;
			continue;
		}
		printf("%s: %zu layer(s)\n", argv[f], offcode_layer_count(a));
		if (errors) {
			rc = offcode_layer_walk_bytes(a, 0, NULL, NULL);
			printf("no function: %s\n", offcode_code_name(rc));
			rc = offcode_layer_walk_bytes(a, offcode_layer_count(a),
						      file, NULL);
			printf("layer past the count: %s\n",
			       offcode_code_name(rc));
			rc = offcode_layer_walk_bytes(a, 0, stop, a);
			printf("a caller that stops: %d\n", rc);
			rc = offcode_layer_walk_bytes(NULL, 0, file, NULL);
			printf("artefact NULL: %s\n", offcode_code_name(rc));
		}
		for (size_t i = 0; !errors && i < offcode_layer_count(a); i++)
			if ((rc = offcode_layer_walk_bytes(a, i, file, NULL)))
				printf("layer %zu: %s (%s)\n", i,
				       offcode_code_name(rc),
				       offcode_error_message(
					       offcode_last_error(a)));
		offcode_close(a);
		a = NULL;
	}
	return 0;
}
