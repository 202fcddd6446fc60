/* offcode_api: liboffcode's calls made wrong on purpose, and its edges
 * (test/libtest.test): one line each, what came back.
 * Usage: offcode_api FILE DIR  (FILE: a fat binary with a bundle of
 * several entries; DIR: an empty scratch directory). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <offcode.h>

static void say(const char *what, int rc, const offcode_error *err)
{
	printf("%s: %s", what, offcode_code_name(rc));
	if (err)
		printf(" (%s)", offcode_error_message(err));
	putchar('\n');
}

/* The whole of path, malloc'd. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*len = buf ? (size_t)n : 0;
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	offcode_artifact *a = NULL, *b = NULL, *m = NULL;
	offcode_error *err = NULL;
	unsigned char small[16], *buf;
	char path[4096];
	size_t len = 0;
	uint64_t size = 0;
	bool match;
	int rc, fd;

	if (argc != 3)
		return 2;
	rc = offcode_open_path(NULL, NULL, &a, &err);
	say("open NULL path", rc, err);
	offcode_error_free(err);

	{
		struct offcode_open_options o = { .size = sizeof(o),
						  .flags = OFFCODE_OPEN_BORROW };

		rc = offcode_open_memory(NULL, 0, NULL, &o, &m, &err);
	}
	printf("open an empty buffer: %s, %zu inputs (%s), %zu containers\n",
	       offcode_code_name(rc), offcode_input_count(m),
	       offcode_input_format(offcode_input_at(m, 0)),
	       offcode_container_count(m));
	offcode_close(m);

	buf = slurp(argv[1], &len);
	{
		struct offcode_open_options o = { .size = sizeof(o),
						  .flags = OFFCODE_OPEN_BORROW };

		rc = offcode_open_memory(buf, len, "fat", &o, &m, &err);
		printf("open a borrowed buffer: %s, %zu entries, named %s\n",
		       offcode_code_name(rc), offcode_entry_count(m),
		       offcode_artifact_path(m));
		offcode_close(m);
	}
	/* A struct of an older, smaller version: its fields alone read. */
	{
		struct offcode_open_options o = { .size = sizeof(size_t),
						  .flags = OFFCODE_OPEN_VERIFY };

		rc = offcode_open_path(argv[1], &o, &a, &err);
		printf("open with options of size %zu: %s, %zu entries\n",
		       sizeof(size_t), offcode_code_name(rc),
		       offcode_entry_count(a));
	}
	rc = offcode_open_path(argv[1], NULL, &b, &err);

	/* A damaged copy: the name given is the one the record says. */
	memset(buf + len / 2, 0xff, len - len / 2);
	{
		offcode_artifact *d;

		rc = offcode_open_memory(buf, len, NULL, NULL, &d, &err);
		say("open a damaged buffer", rc, err);
		offcode_error_free(err);
	}

	fd = open(argv[2], O_RDONLY | O_DIRECTORY);
	rc = offcode_open_fd(fd, "dir", NULL, &m, &err);
	say("open a directory's fd", rc, err);
	printf("  errno is EISDIR: %s; the caller's fd is open: %s\n",
	       offcode_error_errno(err) == 21 ? "yes" : "no",
	       fcntl(fd, F_GETFD) >= 0 ? "yes" : "no");
	offcode_error_free(err);
	close(fd);

	/* Entries of another handle, and buffers too small. */
	rc = offcode_entry_read(a, offcode_entry_at(b, 1), small,
				sizeof(small), &size);
	say("read another handle's entry", rc, offcode_last_error(a));
	rc = offcode_entry_read(a, offcode_entry_at(a, 1), NULL, 0, &size);
	printf("size query: %s, %llu bytes\n", offcode_code_name(rc),
	       (unsigned long long)size);
	rc = offcode_entry_read(a, offcode_entry_at(a, 1), small,
				sizeof(small), &size);
	say("read into 16 bytes", rc, offcode_last_error(a));
	rc = offcode_entry_read(a, NULL, small, sizeof(small), &size);
	say("read entry NULL", rc, offcode_last_error(a));

	/* Files that cannot be written. */
	snprintf(path, sizeof(path), "%s/no/such/dir/x", argv[2]);
	rc = offcode_entry_write_path(a, offcode_entry_at(a, 1), path);
	printf("write into a missing directory: %s, %s\n",
	       offcode_code_name(rc),
	       offcode_error_reason(offcode_last_error(a)));
	snprintf(path, sizeof(path), "%s/sub", argv[2]);
	mkdir(path, 0755);
	rc = offcode_entry_write_path(a, offcode_entry_at(a, 1), path);
	printf("write over a directory: %s, %s\n", offcode_code_name(rc),
	       offcode_error_reason(offcode_last_error(a)));
	rc = offcode_entry_write_fd(a, offcode_entry_at(a, 1), -1);
	say("write to fd -1", rc, NULL);

	rc = offcode_entry_matches(a, offcode_entry_at(a, 1), NULL, 0, &match);
	say("match rules NULL", rc, NULL);
	rc = offcode_entry_matches(a, offcode_entry_at(a, 1), "gfx90a,",
				   0, &match);
	say("match an empty rule", rc, offcode_last_error(a));
	printf("gfx90a takes gfx90a:xnack+: %s; gfx90a:xnack- takes it: %s\n",
	       offcode_target_id_compatible("gfx90a:xnack+", "gfx90a")
	       ? "yes" : "no",
	       offcode_target_id_compatible("gfx90a:xnack+", "gfx90a:xnack-")
	       ? "yes" : "no");

	{
		struct offcode_prune_options o = { .size = 0 };
		struct offcode_prune_options both = { .size = sizeof(both),
						      .keep = "gfx90a",
						      .drop = "gfx1100" };

		snprintf(path, sizeof(path), "%s/pruned", argv[2]);
		rc = offcode_prune(argv[1], path, &o, NULL, &err);
		say("prune, options of size 0", rc, err);
		offcode_error_free(err);
		rc = offcode_prune(argv[1], path, &both, NULL, &err);
		say("prune, keep and drop", rc, err);
		offcode_error_free(err);
		both.keep = NULL;
		both.drop = "gfx803";
		rc = offcode_prune(argv[1], path, &both, NULL, &err);
		printf("prune, a drop rule that takes nothing: %s; written: "
		       "%s\n", offcode_code_name(rc),
		       access(path, F_OK) == 0 ? "yes" : "no");
		offcode_error_free(err);
	}

	{
		struct offcode_host h = { .size = sizeof(h) - 1 };
		const offcode_kernels *k;
		uint64_t off = 7;

		say("host into a struct too small",
		    offcode_input_host(offcode_input_at(a, 0), &h), NULL);
		h.size = sizeof(h);
		say("host of input NULL", offcode_input_host(NULL, &h), NULL);
		rc = offcode_input_host(offcode_input_at(a, 0), &h);
		printf("host: %s, %s\n", offcode_code_name(rc), h.description);
		rc = offcode_artifact_kernels(a, &k);
		say("kernels of a file of containers", rc, offcode_last_error(a));
		rc = offcode_artifact_kernels(a, NULL);
		say("kernels into NULL", rc, offcode_last_error(a));
		printf("section extent of NULL: %s; ",
		       offcode_container_section_extent(NULL, &off, NULL) ?
		       "yes" : "no");
		printf("of the first container: %s",
		       offcode_container_section_extent(
			       offcode_container_at(a, 0), &off, NULL) ?
		       "yes" : "no");
		printf(" at %llu\n", (unsigned long long)off);
	}
	printf("code names: %s %s %s; past the enum: %s\n",
	       offcode_code_name(OFFCODE_OK), offcode_code_name(OFFCODE_NOMEM),
	       offcode_code_name(OFFCODE_BAD_HASH),
	       offcode_code_name((enum offcode_code)99) ? "a name" : "NULL");
	printf("resource names: %s ... %s; past the enum: %s\n",
	       offcode_resource_name(OFFCODE_RES_SGPRS),
	       offcode_resource_name(OFFCODE_RES_MAX_THREADS),
	       offcode_resource_name(OFFCODE_RESOURCES) ? "a name" : "NULL");
	printf("last error of a handle that never failed: %s\n",
	       offcode_last_error(b) ? "a record" : "NULL");
	printf("version %s\n", offcode_version());
	offcode_kernels_free(a, NULL);
	offcode_kernels_free(NULL, NULL);
	offcode_error_free(NULL);
	offcode_close(NULL);
	offcode_close(a);
	offcode_close(b);
	offcode_close(m);
	free(buf);
	/* Nothing left behind in DIR but what was made on purpose. */
	return 0;
}
