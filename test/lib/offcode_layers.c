/* offcode_layers: liboffcode's packages and images streamed
 * (test/libtest.test), built against include/offcode.h and liboffcode.so
 * alone.
 *
 *   offcode_layers FILE   opened with OFFCODE_OPEN_STREAM: its layers, each
 *                         walked with OFFCODE_WALK_ROOT, a line for each
 *                         file handed over (its layer, index, size, name,
 *                         entries, and du's figures of them), the walk's
 *                         counts; then each manifest and its root's files
 *   offcode_layers -h FILE  each entry's image_kind, opened as usual and
 *                         with OFFCODE_OPEN_HEADERS_ONLY
 * A failure: "error: CODE: MESSAGE" on stderr, exit status 1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offcode.h>

static int member(void *ctx, const struct offcode_member *m,
		  offcode_artifact *file, const offcode_error *err)
{
	uint64_t code = 0, stored = 0;
	size_t n = file ? offcode_entry_count(file) : 0;

	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		uint64_t c, s;

		offcode_entry_du_sizes(offcode_entry_at(file, i), &c, &s);
		code += c;
		stored += s;
	}
	printf("  %zu #%" PRIu64 " %" PRIu64 " bytes %.*s: %s, %zu entries, "
	       "code %" PRIu64 ", stored %" PRIu64 "%s%s\n", m->layer,
	       m->index, m->size, (int)m->name_len, m->name,
	       file ? offcode_artifact_path(file) : "-", n, code, stored,
	       err ? "; " : "", err ? offcode_error_message(err) : "");
	return 0;
}

static int root_file(void *ctx, size_t layer, uint64_t index, uint64_t size)
{
	(void)ctx;
	printf("  layer %zu #%" PRIu64 " %" PRIu64 " bytes\n", layer, index,
	       size);
	return 0;
}

static int fail(offcode_artifact *a, int rc)
{
	fprintf(stderr, "error: %s: %s\n", offcode_code_name(rc),
		offcode_error_message(offcode_last_error(a)));
	offcode_close(a);
	return 1;
}

static int headers(const char *path)
{
	for (int only = 0; only < 2; only++) {
		struct offcode_open_options o = {
			.size = sizeof(o),
			.flags = only ? OFFCODE_OPEN_HEADERS_ONLY : 0 };
		offcode_artifact *a;
		offcode_error *err;
		int rc = offcode_open_path(path, &o, &a, &err);

		if (rc) {
			fprintf(stderr, "error: %s\n", offcode_code_name(rc));
			offcode_error_free(err);
			return 1;
		}
		printf("%s:", only ? "headers only" : "as usual");
		for (size_t i = 0; i < offcode_entry_count(a); i++) {
			const char *k = offcode_entry_image_kind(offcode_entry_at(a, i));

			printf(" %s", k ? k : "-");
		}
		printf("\n");
		offcode_close(a);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct offcode_open_options o = { .size = sizeof(o),
					  .flags = OFFCODE_OPEN_STREAM };
	offcode_artifact *a;
	offcode_error *err;
	int rc;

	if (argc == 3 && !strcmp(argv[1], "-h"))
		return headers(argv[2]);
	if (argc != 2)
		return 2;
	if ((rc = offcode_open_path(argv[1], &o, &a, &err))) {
		fprintf(stderr, "error: %s: %s\n", offcode_code_name(rc),
			err ? offcode_error_message(err) : "out of memory");
		offcode_error_free(err);
		return 1;
	}
	printf("%s: %s, %zu layer(s), %zu input(s), %zu entries\n",
	       offcode_artifact_path(a),
	       offcode_input_format(offcode_input_at(a, 0)),
	       offcode_layer_count(a), offcode_input_count(a),
	       offcode_entry_count(a));
	for (size_t i = 0; i < offcode_layer_count(a); i++) {
		struct offcode_layer l = { .size = sizeof(l) };
		struct offcode_layer_stats st = { .size = sizeof(st) };

		if ((rc = offcode_layer_walk(a, i, OFFCODE_WALK_ROOT, member,
					     NULL, &st)))
			return fail(a, rc);
		offcode_layer_info(a, i, &l);
		printf("layer %zu '%s' (%s, %" PRIu64 " bytes): %" PRIu64
		       " members, %" PRIu64 " files, %" PRIu64 " bytes\n", i,
		       l.name, l.compression, l.stored, st.members, st.files,
		       st.file_bytes);
	}
	for (size_t i = 0; i < offcode_manifest_count(a); i++) {
		struct offcode_manifest m = { .size = sizeof(m) };

		offcode_manifest_info(a, i, &m);
		printf("manifest %zu (%s) of %zu layer(s):\n", i,
		       m.platform[0] ? m.platform : "-", m.layer_count);
		if ((rc = offcode_manifest_root(a, i, root_file, NULL)))
			return fail(a, rc);
	}
	offcode_close(a);
	return 0;
}
