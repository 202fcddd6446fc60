/* Drives the end of a mapped input's data, core/io_in.c (test/faults.test).
 *   io_in_test FILE CUT OFF  FILE mapped, then cut to CUT bytes (ftruncate;
 *                            -1: left as it is), and asked where its data
 *                            go on at OFF: the answer, and the input
 *                            noted as cut short (io_input_cut) before and
 *                            after the input is closed, its path's memory
 *                            freed with it. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/io_in.h"

int main(int argc, char **argv)
{
	struct io_in in;
	struct err e;
	char *path;
	long long cut;
	uint64_t off, next;

	if (argc != 4)
		return 2;
	io_input_cut_track();	/* as the tool does, at start */
	cut = strtoll(argv[2], NULL, 10);
	off = strtoull(argv[3], NULL, 10);
	/* The input's name is the caller's memory, as a library handle's
	 * copy is, gone when it closes. */
	if (!(path = strdup(argv[1])) || io_in_open(&in, path, &e) < 0) {
		fprintf(stderr, "%s\n", path ? e.msg : "out of memory");
		return 1;
	}
	if (cut >= 0 && truncate(path, (off_t)cut) < 0) {
		perror(path);
		return 1;
	}
	next = io_in_next_data(&in, off);
	printf("%" PRIu64 " of %zu bytes; cut: %s", next, in.len,
	       io_input_cut() ? io_input_cut() : "no");
	io_in_close(&in);
	memset(path, 'x', strlen(path));
	free(path);
	printf("; closed, cut: %s\n", io_input_cut() ? io_input_cut() : "no");
	return 0;
}
