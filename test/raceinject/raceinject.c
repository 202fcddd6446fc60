/* raceinject: an LD_PRELOAD library for test/races.test that races a
 * command out of the tree it works on, as another user writing in that
 * tree could: at the Nth call of open, openat, rename, renameat,
 * renameat2, link, linkat, unlink, unlinkat, mkdir, mkdirat, symlink or
 * symlinkat (and their glibc variants) on a path under RACE_TREE, counted over the process and the processes
 * it forks, the file or directory that call is about (the destination of
 * a rename, the source of a link), or with RACE_PARENT=1 its directory,
 * is moved aside into RACE_ASIDE and something else put in its place,
 * just before the call goes on (with RACE_PARENT=2 the tree itself may
 * be that directory: a command's output directory, opened before).  By
 * environment:
 *   RACE_TREE=DIR     the tree (absolute, no symbolic link in it); DIR
 *                     itself is swapped only with RACE_PARENT=2
 *   RACE_AT=N         the call that swaps (from 1)
 *   RACE_SWAP=KIND    what is put there:
 *     out     a symbolic link to RACE_OUT_FILE (in the place of a file)
 *             or RACE_OUT_DIR (of a directory), outside the tree
 *     in      the same to RACE_IN_FILE or RACE_IN_DIR, inside it
 *     fifo    a FIFO
 *     bigger  a new file: the old one's bytes and 4096 bytes 'x' more
 *     smaller a new file: the first half of the old one's bytes (an
 *             empty file in the place of a directory)
 *     signal  nothing swapped: signal RACE_SIGNAL raised (an interrupt
 *             at that call)
 *   RACE_ASIDE=DIR    where the old one goes (on the tree's file system),
 *                     as DIR/N
 *   RACE_LOG=FILE     one line when call N comes: "N CALL PATH KIND" (KIND
 *                     "nothing" when nothing was there to swap), the
 *                     suite's proof that it came
 *   RACE_ONLY=TEXT    only the calls whose path holds TEXT are counted
 *   RACE_PLANT=1      where nothing is yet (the directory a mkdir or
 *                     mkdirat is about), it is put there all the same,
 *                     as another who may write in that directory could
 *                     make the name first (out and in: a link to the
 *                     directory)
 * Each call is made by the system call itself after the swap, and the
 * swap's own calls are not counted.
 * Test code, not part of offload: built by the Makefile into build/test/. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *tree, *aside, *kind, *log_path, *only;
static bool plant;
static const char *out_file, *out_dir, *in_file, *in_dir;
static size_t tree_len;
static unsigned long at;
static int parent;
/* Shared with the processes forked (prune -r's workers). */
static unsigned long *count;
static int *fired;

__attribute__((constructor)) static void init(void)
{
	const char *n = getenv("RACE_AT");

	tree = getenv("RACE_TREE");
	kind = getenv("RACE_SWAP");
	aside = getenv("RACE_ASIDE");
	if (!tree || !kind || !aside || !n)
		return;
	tree_len = strlen(tree);
	at = strtoul(n, NULL, 10);
	parent = getenv("RACE_PARENT") ? atoi(getenv("RACE_PARENT")) : 0;
	log_path = getenv("RACE_LOG");
	only = getenv("RACE_ONLY");
	plant = getenv("RACE_PLANT") && atoi(getenv("RACE_PLANT"));
	out_file = getenv("RACE_OUT_FILE");
	out_dir = getenv("RACE_OUT_DIR");
	in_file = getenv("RACE_IN_FILE");
	in_dir = getenv("RACE_IN_DIR");
	count = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (count == MAP_FAILED) {
		count = NULL;
		return;
	}
	fired = (int *)(count + 1);
}

/* path (relative to dirfd) made whole in buf: 0, or -1 when it cannot. */
static int whole(int dirfd, const char *path, char *buf, size_t n)
{
	char base[PATH_MAX];
	ssize_t len;

	if (path[0] == '/') {
		snprintf(buf, n, "%s", path);
		return 0;
	}
	if (dirfd == AT_FDCWD) {
		if (!getcwd(base, sizeof(base)))
			return -1;
	} else {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
		len = readlink(proc, base, sizeof(base) - 1);
		if (len <= 0)
			return -1;
		base[len] = 0;
	}
	snprintf(buf, n, "%s/%s", base, path);
	return 0;
}

/* buf (absolute) without "//", "/." or "/x/.." (lexically: the tree's
 * directories are what the command walks down and up, no link among
 * them till one is swapped), nor a trailing "/". */
static void tidy(char *buf)
{
	char *r = buf, *w = buf;

	while (*r) {
		size_t n;

		if (*r == '/') {
			r++;
			continue;
		}
		n = strcspn(r, "/");
		if (n == 1 && r[0] == '.') {
			r += n;
			continue;
		}
		if (n == 2 && r[0] == '.' && r[1] == '.') {
			while (w > buf && *--w != '/')
				;
			r += n;
			continue;
		}
		*w++ = '/';
		memmove(w, r, n);
		w += n;
		r += n;
	}
	if (w == buf)
		*w++ = '/';
	*w = 0;
}

static void copy(const char *from, const char *to, long long keep,
		 size_t more)
{
	int in = (int)syscall(SYS_openat, AT_FDCWD, from, O_RDONLY | O_CLOEXEC);
	int out = (int)syscall(SYS_openat, AT_FDCWD, to,
			       O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	char buf[65536];
	ssize_t got;
	long long done = 0;

	while (in >= 0 && out >= 0 && (keep < 0 || done < keep) &&
	       (got = read(in, buf, keep < 0 || keep - done > (long long)sizeof(buf)
			   ? sizeof(buf) : (size_t)(keep - done))) > 0) {
		if (write(out, buf, (size_t)got) != got)
			break;
		done += got;
	}
	memset(buf, 'x', sizeof(buf));
	while (out >= 0 && more) {
		size_t n = more < sizeof(buf) ? more : sizeof(buf);

		if (write(out, buf, n) != (ssize_t)n)
			break;
		more -= n;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

/* The swap of what is at p (the calls we intercept made by the system
 * calls themselves): false when nothing is there. */
static bool swap(const char *p, bool make)
{
	char moved[PATH_MAX];
	struct stat st;
	bool dir;

	snprintf(moved, sizeof(moved), "%s/%lu", aside, at);
	if (lstat(p, &st) < 0) {
		/* Nothing there: planted (as a directory's), or nothing. */
		if (!make || !plant)
			return false;
		dir = true;
		snprintf(moved, sizeof(moved), "/dev/null");
	} else {
		dir = S_ISDIR(st.st_mode);
		if (syscall(SYS_renameat2, AT_FDCWD, p, AT_FDCWD, moved, 0) < 0)
			return false;
	}
	if (!strcmp(kind, "out") || !strcmp(kind, "in")) {
		const char *to = !strcmp(kind, "out") ? (dir ? out_dir : out_file)
						      : (dir ? in_dir : in_file);

		if (to && syscall(SYS_symlinkat, to, AT_FDCWD, p) < 0)
			return false;
	} else if (!strcmp(kind, "fifo")) {
		mkfifo(p, 0644);
	} else if (!strcmp(kind, "bigger") && !dir) {
		copy(moved, p, -1, 4096);
	} else if (!strcmp(kind, "smaller") && !dir) {
		copy(moved, p, (long long)st.st_size / 2, 0);
	} else {
		copy("/dev/null", p, 0, !strcmp(kind, "bigger") ? 4096 : 0);
	}
	return true;
}

static void note(const char *call, const char *p, const char *what)
{
	char line[PATH_MAX + 128];
	int n = snprintf(line, sizeof(line), "%lu %s %s %s\n", at, call, p,
			 what);
	int fd;

	if (!log_path || n <= 0)
		return;
	fd = (int)syscall(SYS_openat, AT_FDCWD, log_path,
			  O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, line, (size_t)n);
		close(fd);
	}
}

/* A call about path in dirfd: counted if under the tree, and the Nth
 * swaps. */
static void seen_make(const char *call, int dirfd, const char *path,
		      bool make)
{
	char buf[PATH_MAX + 2];
	int saved = errno;

	if (!count || !path || whole(dirfd, path, buf, sizeof(buf)) < 0)
		goto out;
	tidy(buf);
	if (strncmp(buf, tree, tree_len) || buf[tree_len] != '/' ||
	    (only && !strstr(buf, only)))
		goto out;
	if (__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST) != at ||
	    __atomic_exchange_n(fired, 1, __ATOMIC_SEQ_CST))
		goto out;
	if (!strcmp(kind, "signal")) {
		note(call, buf, kind);
		raise(getenv("RACE_SIGNAL") ? atoi(getenv("RACE_SIGNAL")) : 15);
		goto out;
	}
	if (parent) {
		char *slash = strrchr(buf, '/');

		*slash = 0;
		/* The tree itself: only with RACE_PARENT=2. */
		if (strlen(buf) < tree_len || (parent < 2 &&
					       strlen(buf) == tree_len)) {
			note(call, buf, "nothing");
			goto out;
		}
	}
	note(call, buf, swap(buf, make && !parent) ? kind : "nothing");
out:
	errno = saved;
}

static void seen(const char *call, int dirfd, const char *path)
{
	seen_make(call, dirfd, path, false);
}

static mode_t mode_of(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? (mode_t)va_arg(ap, int) : 0;
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	seen("openat", dirfd, path);
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	seen("open", AT_FDCWD, path);
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
	__attribute__((alias("open")));
int openat64(int dirfd, const char *path, int flags, ...)
	__attribute__((alias("openat")));

/* What _FORTIFY_SOURCE builds call. */
int __open_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);

int __open_2(const char *path, int flags)
{
	seen("open", AT_FDCWD, path);
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0);
}

int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

int __openat_2(int dirfd, const char *path, int flags)
{
	seen("openat", dirfd, path);
	return (int)syscall(SYS_openat, dirfd, path, flags, 0);
}

int __openat64_2(int dirfd, const char *path, int flags)
	__attribute__((alias("__openat_2")));

int renameat2(int olddirfd, const char *old, int newdirfd, const char *new,
	      unsigned flags)
{
	seen("renameat2", newdirfd, new);
	return (int)syscall(SYS_renameat2, olddirfd, old, newdirfd, new, flags);
}

int renameat(int olddirfd, const char *old, int newdirfd, const char *new)
{
	seen("renameat", newdirfd, new);
	return (int)syscall(SYS_renameat2, olddirfd, old, newdirfd, new, 0);
}

int rename(const char *old, const char *new)
{
	seen("rename", AT_FDCWD, new);
	return (int)syscall(SYS_renameat2, AT_FDCWD, old, AT_FDCWD, new, 0);
}

int linkat(int olddirfd, const char *old, int newdirfd, const char *new,
	   int flags)
{
	seen("linkat", olddirfd, old);
	return (int)syscall(SYS_linkat, olddirfd, old, newdirfd, new, flags);
}

int link(const char *old, const char *new)
{
	seen("link", AT_FDCWD, old);
	return (int)syscall(SYS_linkat, AT_FDCWD, old, AT_FDCWD, new, 0);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	seen("unlinkat", dirfd, path);
	return (int)syscall(SYS_unlinkat, dirfd, path, flags);
}

int unlink(const char *path)
{
	seen("unlink", AT_FDCWD, path);
	return (int)syscall(SYS_unlinkat, AT_FDCWD, path, 0);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	seen_make("mkdirat", dirfd, path, true);
	return (int)syscall(SYS_mkdirat, dirfd, path, mode);
}

int mkdir(const char *path, mode_t mode)
{
	seen_make("mkdir", AT_FDCWD, path, true);
	return (int)syscall(SYS_mkdirat, AT_FDCWD, path, mode);
}

int symlinkat(const char *target, int dirfd, const char *path)
{
	seen("symlinkat", dirfd, path);
	return (int)syscall(SYS_symlinkat, target, dirfd, path);
}

int symlink(const char *target, const char *path)
{
	seen("symlink", AT_FDCWD, path);
	return (int)syscall(SYS_symlinkat, target, AT_FDCWD, path);
}
