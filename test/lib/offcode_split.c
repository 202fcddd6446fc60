/* offcode_split: liboffcode's kpack-split binaries (test/libtest.test):
 * what offcode_split says of each FILE, one line a fact, failures as
 * their codes and records say them; then calls made wrong on the first.
 * Usage: offcode_split FILE... */
#include <inttypes.h>
#include <stddef.h>
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

/* Entry i of archive k (en), its code (NULL: not read): its key, where
 * its code lies, its image kind, and whether it is for its target and
 * for another. */
static void code_facts(offcode_split *s, size_t k, size_t i,
		       const struct offcode_split_entry *en, const void *code,
		       uint64_t size)
{
	const char *uri = offcode_split_uri(s, k, i);
	char got[96] = "?";
	bool ok;

	printf("    key '%s', ", en->key);
	if (en->in_file)
		printf("in the file at %" PRIu64 ", %s\n", en->offset, uri);
	else
		printf("not in the file (offset %" PRIu64 "), uri %s\n",
		       en->offset, uri ? uri : "none");
	if (!code)
		return;
	ok = offcode_split_code_for(code, size, en->target, got, sizeof(got));
	printf("    image kind %s, for %s: %s", offcode_split_image_kind(code,
								     size),
	       en->target, ok ? "yes" : got);
	ok = offcode_split_code_for(code, size, "gfx942", got, sizeof(got));
	printf(", for gfx942: %s\n", ok ? "yes" : got);
}

static void show(offcode_split *s)
{
	size_t na = offcode_split_archive_count(s);
	size_t nw = offcode_split_wrapper_count(s);

	printf("kernel name '%s', %zu wrappers, %zu unsplit\n",
	       offcode_split_kernel_name(s), nw, offcode_split_unsplit_count(s));
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
		printf("  TOC: version %u, %s, %" PRIu64 " bytes, %zu entries\n",
		       a.version, a.compression_scheme ? a.compression_scheme
						       : "no scheme",
		       a.file_size, a.entries);
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
				code_facts(s, k, i, &en, rc ? NULL : code, size);
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
	printf("uri past the archive's: %s\n",
	       offcode_split_uri(s, 0, 1000000) ? "set" : "NULL");
	printf("uri of an archive past the count: %s\n",
	       offcode_split_uri(s, na, 0) ? "set" : "NULL");
	printf("uri of NULL: %s\n", offcode_split_uri(NULL, 0, 0) ? "set"
								: "NULL");
}

/* What the calls on code alone and on NULL say. */
static void code_alone(void)
{
	char got[8] = "?";
	bool ok;

	printf("image kinds: %s %s %s %s %s\n",
	       offcode_split_image_kind("BC\xc0\xde", 4),
	       offcode_split_image_kind("\x50\xed\x55\xba", 4),
	       offcode_split_image_kind("\x03\x02\x23\x07", 4),
	       offcode_split_image_kind("BC\xc0", 3) ? "?" : "(3 bytes) NULL",
	       offcode_split_image_kind(NULL, 64) ? "?" : "(NULL) NULL");
	ok = offcode_split_code_for("BC\xc0\xde", 4, "gfx90a", got, sizeof(got));
	printf("bitcode for gfx90a: %s, '%s' (cut to 8 bytes)\n",
	       ok ? "yes" : "no", got);
	printf("NULL for gfx90a, nowhere to say why: %s\n",
	       offcode_split_code_for(NULL, 0, "gfx90a", NULL, 0) ? "yes" : "no");
	printf("kernel name and unsplit wrappers of NULL: %s %zu\n",
	       offcode_split_kernel_name(NULL) ? "?" : "NULL",
	       offcode_split_unsplit_count(NULL));
}

/* A caller built before the fields added at the end of the structs: it
 * is given those it has room for, and nothing past them. */
static void older_caller(offcode_split *s)
{
	struct offcode_split_entry en = { .key = "untouched", .in_file = true,
					  .offset = 7 };
	struct offcode_split_archive a = { .version = 99, .entries = 99 };

	int rc;

	en.size = offsetof(struct offcode_split_entry, key);
	rc = offcode_split_entry(s, 0, 0, &en);
	printf("entry of the first size: %s, %s, key %s, in_file %d, offset "
	       "%" PRIu64 "\n", offcode_code_name(rc), en.target, en.key,
	       en.in_file, en.offset);
	en.size = offsetof(struct offcode_split_entry, code_size);
	printf("entry without room for code_size: %s\n",
	       offcode_code_name(offcode_split_entry(s, 0, 0, &en)));
	a.size = offsetof(struct offcode_split_archive, version);
	rc = offcode_split_archive(s, 0, &a);
	printf("archive of the first size: %s, %s, version %u, entries %zu\n",
	       offcode_code_name(rc), a.path, a.version, a.entries);
	a.size = offsetof(struct offcode_split_archive, inode);
	printf("archive without room for inode: %s\n",
	       offcode_code_name(offcode_split_archive(s, 0, &a)));
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
	code_alone();
	if (first) {
		wrong(first);
		older_caller(first);
	}
	offcode_split_close(first);
	offcode_split_close(NULL);
	return 0;
}
