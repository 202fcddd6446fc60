/* offcode_interrupted: the hook a read of a pipe asks when a signal cuts
 * it short (interrupted in offcode_source_options, offcode_open_options
 * and offcode_walk_options), through a client built against
 * include/offcode.h and liboffcode.so alone (test/libtest.test).
 *
 *   offcode_interrupted stop   each call reads a pipe whose writer stays
 *                              open, writing nothing, while a timer's
 *                              signal (a no-op handler, no SA_RESTART)
 *                              cuts its reads short; the hook says stop
 *                              at its second call: "CALL: CODE, ERRNO:
 *                              MESSAGE, hook called N times"
 *   offcode_interrupted go     the hook says go on, and at its third call
 *                              writes "data" and closes the writer: the
 *                              call reads it to its end
 *   offcode_interrupted fifo PATH  each call opens the FIFO PATH, which
 *                              no writer opens: its wait is cut short as a
 *                              read is, and the hook says stop at its
 *                              second call
 *   offcode_interrupted old    the hook set in a struct whose size stops
 *                              before it: never called; the read goes on
 *                              until a child writes "data" and exits
 * The calls: offcode_source_open_fd_with, offcode_source_open_path_with
 * (/dev/fd/N), offcode_open_fd, offcode_open_path (/dev/fd/N),
 * offcode_walk_fd. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <offcode.h>

enum mode { STOP, GO, OLD };

struct hook {
	enum mode mode;
	unsigned calls;
	int writer;	/* the pipe's write end, -1 once closed */
};

static int interrupted(void *ctx)
{
	struct hook *h = ctx;

	h->calls++;
	if (h->mode == STOP)
		return h->calls == 2;
	if (h->calls == 3 && h->writer >= 0) {
		if (write(h->writer, "data", 4) != 4)
			return 1;
		close(h->writer);
		h->writer = -1;
	}
	return 0;
}

static void tick(int sig)
{
	(void)sig;
}

/* A signal every 20 ms, which cuts a blocked read short (no SA_RESTART). */
static void timer(bool on)
{
	struct itimerval t = { { 0, on ? 20000 : 0 }, { 0, on ? 20000 : 0 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tick;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &t, NULL);
}

static int nodes(void *ctx, const struct offcode_node *n)
{
	(void)n;
	++*(unsigned *)ctx;
	return 0;
}

static void report(const char *call, int rc, offcode_error *err,
		   const char *got, const struct hook *h)
{
	if (rc)
		printf("%s: %s, %s: %s", call, offcode_code_name(rc),
		       err && offcode_error_errno(err) == EINTR ? "EINTR"
								: "not EINTR",
		       err ? offcode_error_message(err) : "(no record)");
	else
		printf("%s: %s", call, got);
	printf(", hook called %u times\n", h->calls);
	offcode_error_free(err);
}

/* The three calls' options, each asking h's hook. */
struct hooked {
	struct offcode_source_options so;
	struct offcode_open_options oo;
	struct offcode_walk_options wo;
};

static struct hooked hooked(struct hook *h)
{
	return (struct hooked){
		.so = { .size = sizeof(struct offcode_source_options),
			.interrupted = interrupted, .interrupted_ctx = h },
		.oo = { .size = sizeof(struct offcode_open_options),
			.interrupted = interrupted, .interrupted_ctx = h },
		.wo = { .size = sizeof(struct offcode_walk_options),
			.interrupted = interrupted, .interrupted_ctx = h },
	};
}

static void one(enum mode mode, int call)
{
	static const char *names[] = { "source fd", "source path", "open fd",
				       "open path", "walk fd" };
	struct hook h = { .mode = mode };
	struct hooked o = hooked(&h);
	offcode_error *err = NULL;
	offcode_source *s = NULL;
	offcode_artifact *a = NULL;
	char path[64], got[64] = "";
	unsigned n = 0;
	pid_t child = -1;
	int p[2], rc = -1;

	if (pipe(p) < 0) {
		perror("pipe");
		exit(1);
	}
	/* (at a number of its own, for the message that names its path) */
	if (dup2(p[0], 10) < 0) {
		perror("dup2");
		exit(1);
	}
	close(p[0]);
	p[0] = 10;
	h.writer = p[1];
	snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
	if (mode == OLD) {
		/* A caller built before the hook: its structs end before it. */
		o.so.size = offsetof(struct offcode_source_options, interrupted);
		o.oo.size = offsetof(struct offcode_open_options, interrupted);
		o.wo.size = offsetof(struct offcode_walk_options, interrupted);
		child = fork();
		if (child == 0) {
			close(p[0]);
			usleep(200000);
			_exit(write(p[1], "data", 4) != 4);
		}
		close(p[1]);
		h.writer = -1;
	}
	timer(true);
	switch (call) {
	case 0:
		rc = offcode_source_open_fd_with(p[0], "pipe", &o.so, &s, &err);
		break;
	case 1:
		rc = offcode_source_open_path_with(path, &o.so, &s, &err);
		break;
	case 2:
		rc = offcode_open_fd(p[0], "pipe", &o.oo, &a, &err);
		break;
	case 3:
		rc = offcode_open_path(path, &o.oo, &a, &err);
		break;
	case 4:
		rc = offcode_walk_fd(p[0], "pipe", &o.wo, nodes, &n, &err);
		break;
	}
	timer(false);
	if (s) {
		uint64_t len;
		const char *b = offcode_source_bytes(s, &len);

		snprintf(got, sizeof(got), "\"%.*s\" read", (int)len, b);
		offcode_source_close(s);
	} else if (a) {
		uint64_t len;
		const char *b = offcode_artifact_bytes(a, &len);

		snprintf(got, sizeof(got), "\"%.*s\" opened", (int)len, b);
		offcode_close(a);
	} else {
		snprintf(got, sizeof(got), "%u node walked", n);
	}
	report(names[call], rc, err, got, &h);
	if (child > 0)
		waitpid(child, NULL, 0);
	if (h.writer >= 0)
		close(h.writer);
	close(p[0]);
}

/* Each path call on a FIFO no writer opens. */
static void fifo(const char *path)
{
	static const char *names[] = { "source path", "open path",
				       "walk path" };

	for (int call = 0; call < 3; call++) {
		struct hook h = { .mode = STOP, .writer = -1 };
		struct hooked o = hooked(&h);
		offcode_error *err = NULL;
		offcode_source *s = NULL;
		offcode_artifact *a = NULL;
		unsigned n = 0;
		int rc = -1;

		timer(true);
		if (call == 0)
			rc = offcode_source_open_path_with(path, &o.so, &s, &err);
		else if (call == 1)
			rc = offcode_open_path(path, &o.oo, &a, &err);
		else
			rc = offcode_walk_path(path, &o.wo, nodes, &n, &err);
		timer(false);
		offcode_source_close(s);
		offcode_close(a);
		report(names[call], rc, err, "opened", &h);
	}
}

int main(int argc, char **argv)
{
	enum mode mode;

	if (argc == 3 && !strcmp(argv[1], "fifo")) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		fifo(argv[2]);
		return 0;
	}
	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "stop"))
		mode = STOP;
	else if (!strcmp(argv[1], "go"))
		mode = GO;
	else if (!strcmp(argv[1], "old"))
		mode = OLD;
	else
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int call = 0; call < 5; call++)
		one(mode, call);
	return 0;
}
