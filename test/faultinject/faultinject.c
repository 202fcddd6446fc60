/* faultinject: an LD_PRELOAD library for test/writefaults.test that makes
 * the system calls an output is written with misbehave as a disk, a pipe
 * or a signal can make them: write, pwrite, pwrite64, writev, pwritev,
 * copy_file_range, sendfile, sendfile64, fallocate.  Standard input and
 * standard error are left alone (error messages must get out); every other
 * descriptor is faulted.  By environment:
 *   FAULT=short   each call moves half of what it is asked (at least 1)
 *   FAULT=odd     a third, made odd (1, 3, 5... bytes: off every boundary)
 *   FAULT=eintr   every other call fails with EINTR before moving a byte
 *   FAULT=enospc  after FAULT_AFTER bytes in all (0 by default) the call
 *   FAULT=efbig   that would pass them moves what fits, the next fails
 *                 with ENOSPC or EFBIG, as a full disk or ulimit -f do
 *   FAULT=count   nothing faulted: the calls logged and counted
 * FAULT_LOG=FILE gets one line per faulted call ("write 65536 -> 32768"):
 * the suite's proof that the library was loaded and the calls were seen.
 * And an input changed under its reader, once FAULT_CUT_AFTER bytes have
 * been written (with any FAULT): FAULT_CUT=FILE is truncated to
 * FAULT_CUT_TO bytes, or with FAULT_CUT_HOW=punch, has all but its first
 * FAULT_CUT_TO bytes turned into a hole (its size kept).
 * And a signal mid-run: with any FAULT, FAULT_SIGNAL=N is raised once
 * FAULT_SIGNAL_AFTER bytes have been written (as an interrupt at a
 * point the test chooses); with FAULT_SIGNAL_PARENT=1 it is sent to the
 * parent instead (prune -r's, whose workers write).
 * And a rename that fails, with or without FAULT: FAULT_RENAME=N fails
 * the Nth call of rename, renameat or renameat2 (counted from 1) with
 * FAULT_RENAME_ERRNO (EXDEV, EACCES, ENOSPC, EISDIR, EROFS or EPERM;
 * EXDEV by default) before it moves anything, as a destination on
 * another file system, a directory entry we may not replace or a full
 * directory would; with FAULT_RENAME (0: none fails) every rename is
 * logged to FAULT_LOG by the name it goes to ("renameat2 NAME -> 0", or
 * "-> fail").  FAULT_RENAME_FLAGS=einval: renameat2 with flags
 * (RENAME_EXCHANGE, RENAME_NOREPLACE) fails with EINVAL, as on a file
 * system that has neither (it is not counted then).
 * And a library that is not there: FAULT_DLOPEN=NAME makes dlopen(NAME)
 * open /nonexistent/NAME instead, so that it fails as dlopen of a library
 * that is not installed fails, with dlerror's own words.
 * Test code, not part of offload: built by the Makefile into build/test/. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum mode { NONE, COUNT, SHORT, ODD, EINTR_MODE, FULL };

static enum mode mode = NONE;
static int full_errno;
static unsigned long long after, total;
static unsigned long calls;
static int log_fd = -1;
static const char *cut_path;
static unsigned long long cut_after, cut_to;
static int cut_punch;
static int sig_num, sig_parent;
static unsigned long long sig_after;

static unsigned long rename_at, renames;
static int rename_on, rename_flags_einval;
static int rename_errno = EXDEV;

/* FAULT_RENAME_ERRNO's value. */
static int errno_named(const char *name)
{
	static const struct { const char *name; int value; } names[] = {
		{ "EXDEV", EXDEV }, { "EACCES", EACCES }, { "ENOSPC", ENOSPC },
		{ "EISDIR", EISDIR }, { "EROFS", EROFS }, { "EPERM", EPERM },
	};

	for (size_t i = 0; name && i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i].name))
			return names[i].value;
	return EXDEV;
}

__attribute__((constructor)) static void init(void)
{
	const char *m = getenv("FAULT"), *a = getenv("FAULT_AFTER"),
		   *l = getenv("FAULT_LOG"), *r = getenv("FAULT_RENAME");

	if (r) {
		rename_on = 1;
		rename_flags_einval = getenv("FAULT_RENAME_FLAGS") &&
			!strcmp(getenv("FAULT_RENAME_FLAGS"), "einval");
		rename_at = strtoul(r, NULL, 10);
		rename_errno = errno_named(getenv("FAULT_RENAME_ERRNO"));
	}
	if (l && (m || r))
		log_fd = open(l, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			      0644);
	if (!m)
		return;
	if (!strcmp(m, "count"))
		mode = COUNT;
	else if (!strcmp(m, "short"))
		mode = SHORT;
	else if (!strcmp(m, "odd"))
		mode = ODD;
	else if (!strcmp(m, "eintr"))
		mode = EINTR_MODE;
	else if (!strcmp(m, "enospc") || !strcmp(m, "efbig")) {
		mode = FULL;
		full_errno = !strcmp(m, "enospc") ? ENOSPC : EFBIG;
	}
	after = a ? strtoull(a, NULL, 10) : 0;
	if (getenv("FAULT_SIGNAL")) {
		const char *sa = getenv("FAULT_SIGNAL_AFTER");

		sig_num = atoi(getenv("FAULT_SIGNAL"));
		sig_parent = getenv("FAULT_SIGNAL_PARENT") &&
			     atoi(getenv("FAULT_SIGNAL_PARENT"));
		sig_after = sa ? strtoull(sa, NULL, 10) : 0;
	}
	if ((cut_path = getenv("FAULT_CUT"))) {
		const char *ca = getenv("FAULT_CUT_AFTER"),
			   *ct = getenv("FAULT_CUT_TO"),
			   *ch = getenv("FAULT_CUT_HOW");

		cut_after = ca ? strtoull(ca, NULL, 10) : 0;
		cut_to = ct ? strtoull(ct, NULL, 10) : 0;
		cut_punch = ch && !strcmp(ch, "punch");
	}
}

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return f;
}

/* One line to FAULT_LOG, by the system call itself (not our write). */
static void note(const char *call, size_t want, long long got)
{
	char line[96];
	int n;

	if (log_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %zu -> %lld\n", call, want, got);
	if (n > 0)
		(void)syscall(SYS_write, log_fd, line, (size_t)n);
}

/* What a call on fd asking for *len may do: 0 with *len possibly cut,
 * or -1 with errno set (the call fails before moving a byte). */
static int decide(int fd, size_t *len)
{
	if (mode == NONE || fd == 0 || fd == 2 || fd == log_fd || !*len)
		return 0;
	switch (mode) {
	case COUNT:
		return 0;
	case SHORT:
		if (*len > 1)
			*len /= 2;
		return 0;
	case ODD:
		if (*len > 2)
			*len = (*len / 3) | 1;
		return 0;
	case EINTR_MODE:
		if (calls++ % 2 == 0) {
			errno = EINTR;
			return -1;
		}
		return 0;
	case FULL:
		if (total >= after) {
			errno = full_errno;
			return -1;
		}
		if (*len > after - total)
			*len = (size_t)(after - total);
		return 0;
	case NONE:
		break;
	}
	return 0;
}

/* The input changed under its reader (FAULT_CUT), once. */
static void cut_input(void)
{
	int fd;

	if (!cut_path || total < cut_after)
		return;
	fd = open(cut_path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (cut_punch) {
			off_t end = lseek(fd, 0, SEEK_END);

			if (end > (off_t)cut_to)
				(void)!fallocate(fd, FALLOC_FL_PUNCH_HOLE |
						 FALLOC_FL_KEEP_SIZE,
						 (off_t)cut_to,
						 end - (off_t)cut_to);
		} else {
			(void)!ftruncate(fd, (off_t)cut_to);
		}
		close(fd);
	}
	cut_path = NULL;
}

static ssize_t done(const char *call, int fd, size_t want, ssize_t got)
{
	int saved = errno;

	if (mode != NONE && fd != 0 && fd != 2 && fd != log_fd) {
		if (got > 0)
			total += (unsigned long long)got;
		note(call, want, got);
		cut_input();
		if (sig_num && total >= sig_after) {
			int n = sig_num;

			sig_num = 0;
			if (sig_parent)
				kill(getppid(), n);
			else
				raise(n);
		}
	}
	errno = saved;
	return got;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*f)(int, const void *, size_t);
	size_t want = len;

	if (!f)
		f = real("write");
	if (decide(fd, &len) < 0)
		return done("write", fd, want, -1);
	return done("write", fd, want, f(fd, buf, len));
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*f)(int, const void *, size_t, off_t);
	size_t want = len;

	if (!f)
		f = real("pwrite");
	if (decide(fd, &len) < 0)
		return done("pwrite", fd, want, -1);
	return done("pwrite", fd, want, f(fd, buf, len, off));
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	static ssize_t (*f)(int, const void *, size_t, off64_t);
	size_t want = len;

	if (!f)
		f = real("pwrite64");
	if (decide(fd, &len) < 0)
		return done("pwrite64", fd, want, -1);
	return done("pwrite64", fd, want, f(fd, buf, len, off));
}

/* The vectors' first len bytes, into cut (at most 64 entries). */
static int trim(const struct iovec *iov, int n, size_t len, struct iovec *cut)
{
	int k = 0;

	for (int i = 0; i < n && i < 64 && len; i++, k++) {
		cut[k] = iov[i];
		if (cut[k].iov_len > len)
			cut[k].iov_len = len;
		len -= cut[k].iov_len;
	}
	return k;
}

static size_t iov_len(const struct iovec *iov, int n)
{
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += iov[i].iov_len;
	return len;
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	static ssize_t (*f)(int, const struct iovec *, int);
	struct iovec cut[64];
	size_t want = iov_len(iov, n), len = want;

	if (!f)
		f = real("writev");
	if (decide(fd, &len) < 0)
		return done("writev", fd, want, -1);
	if (len == want)
		return done("writev", fd, want, f(fd, iov, n));
	return done("writev", fd, want, f(fd, cut, trim(iov, n, len, cut)));
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*f)(int, const struct iovec *, int, off_t);
	struct iovec cut[64];
	size_t want = iov_len(iov, n), len = want;

	if (!f)
		f = real("pwritev");
	if (decide(fd, &len) < 0)
		return done("pwritev", fd, want, -1);
	if (len == want)
		return done("pwritev", fd, want, f(fd, iov, n, off));
	return done("pwritev", fd, want,
		    f(fd, cut, trim(iov, n, len, cut), off));
}

ssize_t copy_file_range(int in, off64_t *in_off, int out, off64_t *out_off,
			size_t len, unsigned flags)
{
	static ssize_t (*f)(int, off64_t *, int, off64_t *, size_t, unsigned);
	size_t want = len;

	if (!f)
		f = real("copy_file_range");
	if (decide(out, &len) < 0)
		return done("copy_file_range", out, want, -1);
	return done("copy_file_range", out, want,
		    f(in, in_off, out, out_off, len, flags));
}

ssize_t sendfile(int out, int in, off_t *off, size_t len)
{
	static ssize_t (*f)(int, int, off_t *, size_t);
	size_t want = len;

	if (!f)
		f = real("sendfile");
	if (decide(out, &len) < 0)
		return done("sendfile", out, want, -1);
	return done("sendfile", out, want, f(out, in, off, len));
}

ssize_t sendfile64(int out, int in, off64_t *off, size_t len)
{
	static ssize_t (*f)(int, int, off64_t *, size_t);
	size_t want = len;

	if (!f)
		f = real("sendfile64");
	if (decide(out, &len) < 0)
		return done("sendfile64", out, want, -1);
	return done("sendfile64", out, want, f(out, in, off, len));
}

/* Space taken past FAULT_AFTER bytes of file is refused on a full disk;
 * the other modes leave it alone. */
int fallocate(int fd, int how, off_t off, off_t len)
{
	static int (*f)(int, int, off_t, off_t);

	if (!f)
		f = real("fallocate");
	if (mode == FULL && fd != 0 && fd != 2 && fd != log_fd &&
	    (unsigned long long)(off + len) > after) {
		errno = full_errno;
		return -1;
	}
	return f(fd, how, off, len);
}

/* The Nth rename fails (FAULT_RENAME); each is logged by the name it
 * goes to. */
static int rename_fails(const char *call, const char *to)
{
	char line[400];
	int n, fail = rename_at && ++renames == rename_at;

	if (log_fd >= 0) {
		const char *base = strrchr(to, '/');

		n = snprintf(line, sizeof(line), "%s %.300s -> %s\n", call,
			     base ? base + 1 : to, fail ? "fail" : "0");
		if (n > 0)
			(void)syscall(SYS_write, log_fd, line, (size_t)n);
	}
	if (fail)
		errno = rename_errno;
	return fail;
}

int rename(const char *from, const char *to)
{
	static int (*f)(const char *, const char *);

	if (!f)
		f = real("rename");
	if (rename_on && rename_fails("rename", to))
		return -1;
	return f(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	static int (*f)(int, const char *, int, const char *);

	if (!f)
		f = real("renameat");
	if (rename_on && rename_fails("renameat", to))
		return -1;
	return f(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char *from, int tofd, const char *to,
	      unsigned flags)
{
	static int (*f)(int, const char *, int, const char *, unsigned);

	if (!f)
		f = real("renameat2");
	if (rename_flags_einval && flags) {
		errno = EINVAL;
		return -1;
	}
	if (rename_on && rename_fails("renameat2", to))
		return -1;
	return f(fromfd, from, tofd, to, flags);
}

void *dlopen(const char *file, int flags)
{
	void *(*f)(const char *, int) = (void *(*)(const char *, int))real("dlopen");
	const char *gone = getenv("FAULT_DLOPEN");
	char path[4096];

	if (!file || !gone || strcmp(file, gone) ||
	    snprintf(path, sizeof(path), "/nonexistent/%s", file) >= (int)sizeof(path))
		return f(file, flags);
	return f(path, flags);
}
