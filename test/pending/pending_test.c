/* Drives the signal handler's table of temporaries, core/io_signal.c
 * (test/pending.test).
 *   pending_test DIR N   N files made in DIR, each registered as a
 *                        temporary of DIR's descriptor; every other one
 *                        (1, 3, 5...) taken off again, in order; N/2 more
 *                        made and registered (in the slots freed); then
 *                        SIGTERM: the handler must remove every file
 *                        still registered and none other.
 *   pending_test - N     N names registered, then all taken off in
 *                        order, twice over, as the outputs of a command
 *                        that commit together are: "ok" (quickly: each
 *                        add and each removal looks where the last one
 *                        left off). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/io_signal.h"

static char **names(const char *prefix, size_t n)
{
	char **v = calloc(n, sizeof(*v));

	for (size_t i = 0; v && i < n; i++)
		if (asprintf(&v[i], "%s%zu", prefix, i) < 0)
			return NULL;
	return v;
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	char **a = names("f", n), **b = names("g", n / 2);
	int dirfd;

	if (argc != 3 || !a || !b) {
		fprintf(stderr, "usage: pending_test DIR|- N\n");
		return 2;
	}
	io_install_signal_cleanup();
	if (!strcmp(argv[1], "-")) {
		for (int round = 0; round < 2; round++) {
			for (size_t i = 0; i < n; i++)
				io_pending_add_at(AT_FDCWD, a[i]);
			for (size_t i = 0; i < n; i++)
				io_pending_remove(a[i]);
		}
		for (size_t i = 0; i < n; i++)
			free(a[i]);
		for (size_t i = 0; i < n / 2; i++)
			free(b[i]);
		free(a);
		free(b);
		puts("ok");
		return 0;
	}
	if ((dirfd = open(argv[1], O_PATH | O_DIRECTORY)) < 0) {
		perror(argv[1]);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		int fd = openat(dirfd, a[i], O_WRONLY | O_CREAT | O_EXCL, 0600);

		if (fd < 0)
			return 1;
		close(fd);
		io_pending_add_at(dirfd, a[i]);
	}
	for (size_t i = 1; i < n; i += 2)
		io_pending_remove(a[i]);
	for (size_t i = 0; i < n / 2; i++) {
		int fd = openat(dirfd, b[i], O_WRONLY | O_CREAT | O_EXCL, 0600);

		if (fd < 0)
			return 1;
		close(fd);
		io_pending_add_at(dirfd, b[i]);
	}
	raise(SIGTERM);
	return 1;
}
