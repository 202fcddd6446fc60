/* offcode_nv: an NVIDIA entry's header (offcode_entry_nv) and a lone
 * cubin's SM (offcode_input_cubin_arch), what `offload ls
 * --format=cuobjdump` names them by, through a client built against
 * include/offcode.h and liboffcode.so alone (test/libtest.test).
 *
 *   offcode_nv FILE...      each file walked (offcode_walk_path): a line
 *                           for each input that is a cubin and for each
 *                           entry of an NVIDIA fatbin
 *   offcode_nv -o FILE...   the same of the artefact opened
 *                           (offcode_open_path): the records say the same
 *   offcode_nv -n           the refusals: NULL, a struct too small, an
 *                           entry of another kind
 * A file that fails: "error: CODE: REASON". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <offcode.h>

static void text(const char *key, const char *s, size_t len)
{
	if (!s) {
		printf(" %s=none", key);
		return;
	}
	printf(" %s='%.*s'(%zu)", key, (int)len, s, len);
	/* (the header promises a NUL after them, a walk's as an open's) */
	if (s[len])
		printf(" not NUL-terminated");
}

static void input_line(const offcode_input *in)
{
	const char *name;
	size_t len;
	unsigned arch = 0;

	if (!offcode_input_cubin_arch(in, &arch))
		return;
	name = offcode_input_name(in, &len);
	printf("input %.*s: cubin sm_%u\n", (int)len, name, arch);
}

static void entry_line(const offcode_entry *e)
{
	struct offcode_nv_entry nv = { .size = sizeof(nv) };
	int rc = offcode_entry_nv(e, &nv);

	if (rc == OFFCODE_NOTHING)
		return;
	if (rc) {
		printf("entry %u: %s\n", offcode_entry_index(e),
		       offcode_code_name(rc));
		return;
	}
	printf("entry %u: kind %u arch %u variant '%s' flags 0x%" PRIx64,
	       offcode_entry_index(e), nv.kind, nv.arch, nv.variant, nv.flags);
	text("identifier", nv.identifier, nv.identifier_len);
	text("ptxas_options", nv.ptxas_options, nv.ptxas_options_len);
	printf(" size %zu\n", nv.size);
}

static int visit(void *ctx, const struct offcode_node *n)
{
	(void)ctx;
	if (n->kind == OFFCODE_NODE_INPUT)
		input_line(n->input);
	else if (n->kind == OFFCODE_NODE_ENTRY)
		entry_line(n->entry);
	return 0;
}

static int failed(int rc, offcode_error *err)
{
	printf("error: %s: %s\n", offcode_code_name(rc),
	       err ? offcode_error_reason(err) : "(no record)");
	offcode_error_free(err);
	return 1;
}

static int walked(const char *path)
{
	offcode_error *err = NULL;
	int rc = offcode_walk_path(path, NULL, visit, NULL, &err);

	return rc ? failed(rc, err) : 0;
}

/* The opened artefact's records, in the walk's order: each input, then
 * its containers' entries (an input's containers follow it). */
static int opened(const char *path)
{
	offcode_artifact *a = NULL;
	offcode_error *err = NULL;
	int rc = offcode_open_path(path, NULL, &a, &err);
	size_t c = 0;

	if (rc)
		return failed(rc, err);
	for (size_t i = 0; i < offcode_input_count(a); i++) {
		const offcode_input *in = offcode_input_at(a, i);

		input_line(in);
		for (; c < offcode_container_count(a) &&
		       offcode_container_input(offcode_container_at(a, c)) == in;
		     c++) {
			const offcode_container *k = offcode_container_at(a, c);

			for (size_t j = 0; j < offcode_container_entry_count(k); j++)
				entry_line(offcode_container_entry_at(k, j));
		}
	}
	offcode_close(a);
	return 0;
}

/* What each bad call returns, and that *nv is left alone. */
static int refusals(void)
{
	struct offcode_nv_entry nv = { .size = sizeof(nv) - 1, .arch = 7 };
	struct offcode_nv_entry b = { .size = sizeof(b), .arch = 7 };
	offcode_artifact *a = NULL;
	unsigned arch = 3;
	int rc;

	printf("entry NULL: %s\n",
	       offcode_code_name(offcode_entry_nv(NULL, &nv)));
	printf("nv NULL: %s\n", offcode_code_name(offcode_entry_nv(NULL, NULL)));
	rc = offcode_input_cubin_arch(NULL, &arch);
	printf("input NULL: %d arch %u\n", rc, arch);
	/* A bundle's entry, and a struct too small, of a real entry. */
	if (offcode_open_path("test/files/inspect/lib.a", NULL, &a, NULL))
		return 1;
	rc = offcode_entry_nv(offcode_entry_at(a, 1), &b);
	printf("bundle entry: %s arch %u\n", offcode_code_name(rc), b.arch);
	printf("ELF input, not a cubin: %d\n",
	       offcode_input_cubin_arch(offcode_input_at(a, 1), NULL));
	offcode_close(a);
	if (offcode_open_path("test/files/nv118/a.fatbin", NULL, &a, NULL))
		return 1;
	rc = offcode_entry_nv(offcode_entry_at(a, 0), &nv);
	printf("size too small: %s arch %u\n", offcode_code_name(rc), nv.arch);
	nv.size = sizeof(nv) + 8;	/* a later header's: kept */
	rc = offcode_entry_nv(offcode_entry_at(a, 0), &nv);
	printf("size larger: %s size %s arch %u\n", offcode_code_name(rc),
	       nv.size == sizeof(nv) + 8 ? "kept" : "changed", nv.arch);
	offcode_close(a);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc == 2 && !strcmp(argv[1], "-n"))
		return refusals();
	if (argc >= 3 && !strcmp(argv[1], "-o")) {
		for (int i = 2; i < argc; i++)
			rc |= opened(argv[i]);
		return rc;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: offcode_nv [-o] FILE... | -n\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		rc |= walked(argv[i]);
	return rc;
}
