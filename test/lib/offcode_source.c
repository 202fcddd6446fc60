/* offcode_source: liboffcode's sources (offcode_source_*) through a
 * client built against include/offcode.h and liboffcode.so alone
 * (test/libtest.test).
 *
 *   offcode_source FILE...        each opened by its path ("-": standard
 *                                 input): "FILE: N bytes, mapped" (or
 *                                 "read"), its first bytes; or
 *                                 "FILE: CODE, ERRNO: MESSAGE"
 *   offcode_source -f FILE...     the same opened by a descriptor (the
 *                                 caller's, which stays open), named as
 *                                 given, and "<fd N>" for the first
 *   offcode_source -p WANT FILE...  each opened for its first WANT bytes
 *                                 (offcode_source_open_part), as above
 *   offcode_source -c FILE...     offcode_source_check_stdout of each
 *   offcode_source -s FILE OFF... where FILE's data go on at or after each
 *                                 OFF (offcode_source_next_data)
 *   offcode_source -w FILE        FILE walked over the source's bytes with
 *                                 its hints (and with none): the nodes
 *                                 each walk handed over
 *   offcode_source -n             the refusals of bad arguments */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <offcode.h>

static const char *errno_name(int e)
{
	switch (e) {
	case 0:
		return "0";
	case ENOENT:
		return "ENOENT";
	case EACCES:
		return "EACCES";
	case EISDIR:
		return "EISDIR";
	case EBADF:
		return "EBADF";
	}
	return "another errno";
}

static void failed(const char *what, int rc, offcode_error *err)
{
	printf("%s: %s, %s: %s\n", what, offcode_code_name(rc),
	       errno_name(offcode_error_errno(err)),
	       err ? offcode_error_message(err) : "(no record)");
	offcode_error_free(err);
}

static void said(const char *what, offcode_source *s)
{
	uint64_t len = 7;
	const unsigned char *b = offcode_source_bytes(s, &len);

	printf("%s: %" PRIu64 " bytes, %s", what, len,
	       offcode_source_fd(s) >= 0 ? "mapped" : "read");
	if (len) {
		printf(", \"");
		for (uint64_t i = 0; i < len && i < 8; i++)
			putchar(b[i] >= 0x20 && b[i] < 0x7f ? b[i] : '.');
		putchar('"');
	}
	putchar('\n');
}

static void open_path(const char *path, uint64_t want)
{
	offcode_source *s = (offcode_source *)&s;
	offcode_error *err = NULL;
	int rc = want ? offcode_source_open_part(path, want, &s, &err)
		      : offcode_source_open_path(path, &s, &err);

	if (rc) {
		if (s)
			printf("%s: a handle left on failure\n", path);
		failed(path, rc, err);
		return;
	}
	if (err)
		printf("%s: a record left on success\n", path);
	said(path, s);
	offcode_source_close(s);
}

static void open_fd(const char *path, bool named)
{
	offcode_source *s;
	offcode_error *err = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	char name[64];

	if (fd < 0) {
		printf("%s: cannot open: %s\n", path, strerror(errno));
		return;
	}
	rc = offcode_source_open_fd(fd, named ? path : NULL, &s, &err);
	snprintf(name, sizeof(name), "%s", named ? path : "<fd>");
	if (rc)
		failed(name, rc, err);
	else
		said(name, s);
	if (!rc)
		offcode_source_close(s);
	/* The caller's descriptor is its own still. */
	printf("%s: fd %s\n", name, fstat(fd, &st) == 0 ? "kept" : "lost");
	close(fd);
}

static void next_data(const char *path, int n, char **offs)
{
	offcode_source *s;
	offcode_error *err = NULL;
	int rc = offcode_source_open_path(path, &s, &err);

	if (rc) {
		failed(path, rc, err);
		return;
	}
	for (int i = 0; i < n; i++) {
		uint64_t off = strtoull(offs[i], NULL, 0);

		printf("%" PRIu64 " -> %" PRIu64 "\n", off,
		       offcode_source_next_data(s, off));
	}
	offcode_source_close(s);
}

static int count(void *ctx, const struct offcode_node *n)
{
	(void)n;
	++*(unsigned *)ctx;
	return 0;
}

static void walk(const char *path)
{
	struct offcode_walk_options wo = {
		.size = sizeof(wo),
		.flags = OFFCODE_WALK_CODE | OFFCODE_WALK_VERIFY,
		.next_data = offcode_source_next_data,
		.reading = offcode_source_reading,
	};
	offcode_source *s;
	offcode_error *err = NULL;
	unsigned hinted = 0, plain = 0;
	const void *b;
	uint64_t len;
	int rc = offcode_source_open_path(path, &s, &err);

	if (rc) {
		failed(path, rc, err);
		return;
	}
	b = offcode_source_bytes(s, &len);
	wo.hint_ctx = s;
	rc = offcode_walk_memory(b, (size_t)len, path, &wo, count, &hinted,
				 NULL);
	printf("hinted: %s, %u nodes\n", offcode_code_name(rc), hinted);
	wo.next_data = NULL;
	wo.reading = NULL;
	rc = offcode_walk_memory(b, (size_t)len, path, &wo, count, &plain,
				 NULL);
	printf("plain: %s, %u nodes\n", offcode_code_name(rc), plain);
	offcode_source_close(s);
}

static void refusals(void)
{
	offcode_source *s = (offcode_source *)&s;
	offcode_error *err = NULL;
	int rc;

	rc = offcode_source_open_path(NULL, &s, &err);
	failed(s ? "NULL path (handle left)" : "NULL path", rc, err);
	rc = offcode_source_open_path("/", NULL, &err);
	failed("NULL out", rc, err);
	rc = offcode_source_open_fd(0, "x", NULL, &err);
	failed("fd, NULL out", rc, err);
	rc = offcode_source_open_fd(-1, NULL, &s, &err);
	failed(s ? "fd -1 (handle left)" : "fd -1", rc, err);
	rc = offcode_source_check_stdout(NULL, &err);
	failed("check NULL", rc, err);
	/* No record asked for: the code alone. */
	printf("no record: %s\n",
	       offcode_code_name(offcode_source_open_path("/", &s, NULL)));
	printf("NULL source: %" PRIu64 ", fd %d, %s\n",
	       offcode_source_next_data(NULL, 42), offcode_source_fd(NULL),
	       offcode_source_bytes(NULL, NULL) ? "bytes" : "no bytes");
	offcode_source_reading(NULL, 0, 1, true);
	offcode_source_close(NULL);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "-n")) {
		refusals();
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "-s")) {
		next_data(argv[2], argc - 3, argv + 3);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "-w")) {
		walk(argv[2]);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "-c")) {
		for (int i = 2; i < argc; i++) {
			offcode_error *err = NULL;
			int rc = offcode_source_check_stdout(argv[i], &err);

			if (rc)
				failed(argv[i], rc, err);
			else
				fprintf(stderr, "%s: not standard output's\n",
					argv[i]);
		}
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "-f")) {
		for (int i = 2; i < argc; i++)
			open_fd(argv[i], i > 2);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "-p")) {
		for (int i = 3; i < argc; i++)
			open_path(argv[i], strtoull(argv[2], NULL, 0));
		return 0;
	}
	for (int i = 1; i < argc; i++)
		open_path(argv[i], 0);
	return 0;
}
