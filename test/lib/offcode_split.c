/* offcode_split: liboffcode's kpack-split binaries (test/libtest.test):
 * what offcode_split says of each FILE, one line a fact, failures as
 * their codes and records say them; then calls made wrong on the first.
 * Usage: offcode_split FILE... */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <offcode.h>

static void say_err(const char *what, int rc, const offcode_error *err)
{
	printf("%s: %s", what, offcode_code_name(rc));
	if (err)
		printf(" (%s; path '%s')", offcode_error_message(err),
		       offcode_error_path(err));
	putchar('\n');
}

/* An FNV-1a of the code, to tell it apart without printing it. */
static uint32_t fnv(const unsigned char *p, uint64_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static void show(offcode_split *s)
{
	size_t na = offcode_split_archive_count(s);
	size_t nw = offcode_split_wrapper_count(s);

	for (size_t i = 0; i < offcode_split_search_count(s); i++) {
		struct offcode_split_search p = { .size = sizeof(p) };

		offcode_split_search(s, i, &p);
		printf("search %zu: '%s' in '%s'%s, %zu archives\n", i, p.path,
		       p.dir, p.no_dir ? " (no directory)" : "", p.archives);
	}
	for (size_t w = 0; w < nw; w++) {
		uint64_t index = 0;
		const char *key = NULL;

		offcode_split_wrapper(s, w, &index, &key);
		printf("wrapper %zu: #%" PRIu64 " '%s'\n", w, index, key);
	}
	for (size_t k = 0; k < na; k++) {
		struct offcode_split_archive a = { .size = sizeof(a) };

		offcode_split_archive(s, k, &a);
		printf("archive %zu: '%s' of search %zu, target %s, %s%s\n", k,
		       a.path, a.search, a.target ? a.target : "none",
		       a.error ? offcode_code_name(offcode_error_code(a.error))
			       : "read", a.has_id ? ", has an id" : "");
		if (a.error)
			printf("  %s: %s\n", a.damaged ? "damaged" : "not read",
			       offcode_error_message(a.error));
		for (size_t w = 0; w < nw; w++) {
			size_t n = offcode_split_code_count(s, k, w);

			for (size_t x = 0; x <= n; x++) {
				size_t i = offcode_split_code(s, k, w, x);
				struct offcode_split_entry en =
					{ .size = sizeof(en) };
				offcode_error *err = NULL;
				const void *code = NULL;
				uint64_t size = 0;
				int rc;

				if (x == n) {
					printf("  wrapper %zu, code %zu: %s\n", w,
					       x, i == SIZE_MAX ? "none" : "?");
					continue;
				}
				offcode_split_entry(s, k, i, &en);
				rc = offcode_split_read(s, k, i, 0, 0, &code,
							&size, &err);
				printf("  wrapper %zu, code %zu: entry %zu, %s, "
				       "%s, %" PRIu64 " bytes; read: ", w, x, i,
				       en.target, en.bundle_id ? en.bundle_id
							       : "no bundle ID",
				       en.code_size);
				if (rc)
					say_err("failed", rc, err);
				else
					printf("%" PRIu64 " bytes, %08x\n", size,
					       fnv(code, size));
				offcode_error_free(err);
			}
		}
	}
}

static void wrong(offcode_split *s)
{
	struct offcode_split_archive a = { .size = sizeof(a) };
	struct offcode_split_search p = { .size = 8 };
	struct offcode_split_entry en = { .size = sizeof(en) };
	size_t na = offcode_split_archive_count(s);
	offcode_error *err = NULL;
	const void *code;
	uint64_t size;
	int rc;

	printf("search with size 8: %s\n",
	       offcode_code_name(offcode_split_search(s, 0, &p)));
	p.size = sizeof(p);
	printf("search past the count: %s\n", offcode_code_name(
	       offcode_split_search(s, offcode_split_search_count(s), &p)));
	printf("archive past the count: %s\n",
	       offcode_code_name(offcode_split_archive(s, na, &a)));
	printf("wrapper past the count: %s\n", offcode_code_name(
	       offcode_split_wrapper(s, offcode_split_wrapper_count(s), NULL,
				     NULL)));
	printf("codes of an archive past the count: %zu\n",
	       offcode_split_code_count(s, na, 0));
	printf("entry past the archive's: %s\n", offcode_code_name(
	       offcode_split_entry(s, 0, 1000000, &en)));
	rc = offcode_split_read(s, 0, 1000000, 0, 0, &code, &size, &err);
	say_err("read past the archive's", rc, err);
	offcode_error_free(err);
	rc = offcode_split_read(s, 0, 0, 0, 0, NULL, &size, &err);
	say_err("read into NULL", rc, err);
	offcode_error_free(err);
	rc = offcode_split_read(s, 0, 0, 0, 2, &code, &size, &err);
	say_err("read within a ratio of 2", rc, err);
	offcode_error_free(err);
}

int main(int argc, char **argv)
{
	offcode_split *s = NULL, *first = NULL;
	offcode_error *err = NULL;
	int rc;

	for (int f = 1; f < argc; f++) {
		printf("%s:\n", argv[f]);
		rc = offcode_split_open_path(argv[f], &s, &err);
		if (rc) {
			say_err("open", rc, err);
			printf("  handle: %s\n", s ? "set" : "NULL");
			offcode_error_free(err);
			err = NULL;
			continue;
		}
		show(s);
		if (!first)
			first = s;
		else
			offcode_split_close(s);
	}
	rc = offcode_split_open_path(NULL, &s, &err);
	say_err("open NULL path", rc, err);
	offcode_error_free(err);
	rc = offcode_split_open_memory(NULL, 4, "x", &s, &err);
	say_err("open 4 bytes at NULL", rc, err);
	offcode_error_free(err);
	rc = offcode_split_open_memory(NULL, 0, "x", &s, &err);
	say_err("open no bytes", rc, err);
	offcode_error_free(err);
	rc = offcode_split_open_memory("\x7f" "ELF", 4, "x", &s, NULL);
	say_err("open 4 bytes of ELF, no record asked for", rc, NULL);
	printf("counts of NULL: %zu %zu %zu\n", offcode_split_search_count(NULL),
	       offcode_split_archive_count(NULL),
	       offcode_split_wrapper_count(NULL));
	if (first)
		wrong(first);
	offcode_split_close(first);
	offcode_split_close(NULL);
	return 0;
}
