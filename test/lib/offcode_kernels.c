/* offcode_kernels: kernels read from code the caller holds
 * (offcode_code_kernels) through a client built against include/offcode.h
 * and liboffcode.so alone (test/libtest.test).
 *
 *   offcode_kernels FILE...     each entry's kernels, read from the code a
 *                               walk with OFFCODE_WALK_CODE hands over,
 *                               then the file's own (its bytes read
 *                               whole): every figure of every kernel
 *   offcode_kernels -a FILE...  the same of an opened artefact
 *                               (offcode_entry_kernels,
 *                               offcode_artifact_kernels): the lines must
 *                               be the walk's
 *   offcode_kernels -n          its refusals of bad arguments
 * An entry or file whose kernels cannot be read: its code's name and the
 * reason; bytes that are no code object: "nothing". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offcode.h>

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

/* What the list says of itself, and each kernel with every figure. */
static void print_list(const offcode_kernels *k)
{
	printf(" %s v%u target %s id %s processor %s ptx %s, %zu kernels\n",
	       offcode_kernels_source(k), offcode_kernels_code_object_version(k),
	       or_dash(offcode_kernels_target(k)),
	       or_dash(offcode_kernels_target_id(k)),
	       or_dash(offcode_kernels_processor(k)),
	       or_dash(offcode_kernels_ptx_version(k)),
	       offcode_kernels_count(k));
	for (size_t j = 0; j < offcode_kernels_count(k); j++) {
		const offcode_kernel *kn = offcode_kernels_at(k, j);
		struct offcode_kernel_descriptor d;
		uint64_t v;

		printf("  %s = %s", offcode_kernel_symbol(kn),
		       offcode_kernel_name(kn));
		for (int r = 0; r < OFFCODE_RESOURCES; r++)
			if (offcode_kernel_resource(kn, r, &v))
				printf(" %s=%" PRIu64, offcode_resource_name(r),
				       v);
		for (unsigned b = 0; b < OFFCODE_CONSTANT_BANKS; b++)
			if (offcode_kernel_constant_bytes(kn, b, &v))
				printf(" c%u=%" PRIu64, b, v);
		if (offcode_kernel_descriptor(kn, &d))
			printf(" kd@%" PRIu64 ":%u,%u,%u,%#x,%#x,%#x,%#x", d.offset,
			       d.group_segment_fixed_size,
			       d.private_segment_fixed_size, d.kernarg_size,
			       d.compute_pgm_rsrc1, d.compute_pgm_rsrc2,
			       d.compute_pgm_rsrc3, d.kernel_code_properties);
		putchar('\n');
	}
	if (offcode_kernels_at(k, offcode_kernels_count(k)))
		puts("  a kernel past the count!");
}

static void print_failure(int rc, const offcode_error *err)
{
	if (rc == OFFCODE_NOTHING && !err)
		puts(" nothing");
	else
		printf(" %s: %s\n", offcode_code_name(rc),
		       offcode_error_reason(err));
}

/* One entry's label: its container and index, and its target. */
static void label(const offcode_entry *e)
{
	const offcode_container *c = offcode_entry_container(e);
	const char *arch = offcode_entry_target_id(e, NULL);

	printf("%s #%u entry %u %s:", offcode_container_format(c),
	       offcode_container_number(c), offcode_entry_index(e),
	       or_dash(arch));
}

static void code_kernels(const void *code, uint64_t size)
{
	offcode_kernels *k = NULL;
	offcode_error *err = NULL;
	int rc = offcode_code_kernels(code, (size_t)size, &k, &err);

	if (rc) {
		print_failure(rc, err);
		if (k)
			puts("  a list with a failure!");
	} else {
		print_list(k);
	}
	offcode_code_kernels_free(k);
	offcode_error_free(err);
}

static int visit(void *ctx, const struct offcode_node *n)
{
	++*(size_t *)ctx;
	if (n->kind != OFFCODE_NODE_ENTRY || !n->code)
		return 0;
	label(n->entry);
	code_kernels(n->code, n->code_size);
	return 0;
}

static int walked(const char *path)
{
	struct offcode_walk_options o = { .size = sizeof(o),
					  .flags = OFFCODE_WALK_CODE };
	offcode_error *err = NULL;
	offcode_source *src;
	const void *buf;
	uint64_t len;
	size_t nodes = 0;
	int rc;

	printf("%s\n", path);
	if ((rc = offcode_walk_path(path, &o, visit, &nodes, &err))) {
		printf("error: %s: %s\n", offcode_code_name(rc),
		       offcode_error_reason(err));
		offcode_error_free(err);
		return 1;
	}
	/* A file with nothing under it, as ls reads one. */
	fputs("file:", stdout);
	if (nodes != 1) {
		puts(" nothing");
		return 0;
	}
	/* (its bytes as ls has them: the library's source of the file) */
	if ((rc = offcode_source_open_path(path, &src, &err))) {
		printf(" error: %s: %s\n", offcode_code_name(rc),
		       offcode_error_reason(err));
		offcode_error_free(err);
		return 1;
	}
	buf = offcode_source_bytes(src, &len);
	code_kernels(buf, len);
	offcode_source_close(src);
	return 0;
}

/* The same lines of an artefact's entries and of itself. */
static int opened(const char *path)
{
	struct offcode_open_options o = { .size = sizeof(o),
					  .flags = OFFCODE_OPEN_VERIFY };
	offcode_artifact *a;
	offcode_error *err = NULL;
	const offcode_kernels *k;
	int rc;

	printf("%s\n", path);
	if ((rc = offcode_open_path(path, &o, &a, &err))) {
		printf("error: %s: %s\n", offcode_code_name(rc),
		       offcode_error_reason(err));
		offcode_error_free(err);
		return 1;
	}
	for (size_t i = 0; i < offcode_entry_count(a); i++) {
		const offcode_entry *e = offcode_entry_at(a, i);
		uint64_t size;

		/* As the walk: entries with code at hand alone. */
		rc = offcode_entry_read(a, e, NULL, 0, &size);
		if (rc != OFFCODE_RANGE && rc != OFFCODE_OK)
			continue;
		label(e);
		if ((rc = offcode_entry_kernels(a, e, &k)) == OFFCODE_NOTHING)
			puts(" nothing");
		else if (rc)
			print_failure(rc, offcode_last_error(a));
		else
			print_list(k);
	}
	fputs("file:", stdout);
	if ((rc = offcode_artifact_kernels(a, &k)) == OFFCODE_NOTHING)
		puts(" nothing");
	else if (rc)
		print_failure(rc, offcode_last_error(a));
	else
		print_list(k);
	offcode_close(a);
	return 0;
}

static void refusals(void)
{
	offcode_kernels *k = (offcode_kernels *)&k;
	offcode_error *err = (offcode_error *)&err;
	static const char text[] = "no code object";
	int rc;

	rc = offcode_code_kernels(text, sizeof(text), NULL, &err);
	printf("into NULL: %s (%s)\n", offcode_code_name(rc),
	       offcode_error_reason(err));
	offcode_error_free(err);
	rc = offcode_code_kernels(NULL, 4, &k, &err);
	printf("code NULL, 4 bytes: %s (%s), list %s\n", offcode_code_name(rc),
	       offcode_error_reason(err), k ? "set" : "NULL");
	offcode_error_free(err);
	rc = offcode_code_kernels(NULL, 0, &k, &err);
	printf("code NULL, 0 bytes: %s, record %s, list %s\n",
	       offcode_code_name(rc), err ? "set" : "NULL", k ? "set" : "NULL");
	rc = offcode_code_kernels(text, sizeof(text), &k, NULL);
	printf("text, no record asked for: %s, list %s\n",
	       offcode_code_name(rc), k ? "set" : "NULL");
	/* An ELF header of EM_AMDGPU and nothing after it. */
	{
		unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x40 };

		elf[16] = 1;
		elf[18] = 224;
		rc = offcode_code_kernels(elf, sizeof(elf), &k, &err);
		printf("a bare AMDGPU ELF header: %s (%s), list %s\n",
		       offcode_code_name(rc), offcode_error_reason(err),
		       k ? "set" : "NULL");
		offcode_error_free(err);
	}
	offcode_code_kernels_free(NULL);
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc == 2 && !strcmp(argv[1], "-n")) {
		refusals();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-a")) {
		for (int i = 2; i < argc; i++)
			rc |= opened(argv[i]);
		return rc;
	}
	for (int i = 1; i < argc; i++)
		rc |= walked(argv[i]);
	return rc;
}
