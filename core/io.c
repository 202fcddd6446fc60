/* io: whole-file inputs (mapped, not copied) and atomic outputs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "io.h"

uint64_t io_stream_max(struct err *e)
{
	uint64_t max = IO_STREAM_MAX_DEFAULT;

	if (env_positive_u64("OFFLOAD_STREAM_MAX", &max, e) < 0)
		return 0;
	return max;
}

/* Read fd to its end, or to max bytes.  fail_past: what to do when more
 * bytes follow max: fail, or stop there (a caller that needs no more). */
static int read_all(int fd, struct io_in *in, const char *path, uint64_t max,
		    bool fail_past, struct err *e)
{
	size_t cap = 0, len = 0;
	uint8_t *buf = NULL;

	if (max > SIZE_MAX - 1)
		max = SIZE_MAX - 1;
	for (;;) {
		ssize_t n;
		size_t want;

		if (len == cap) {
			/* One byte past max tells whether more follow. */
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nbuf;

			if (cap > SIZE_MAX / 2 || ncap > max + 1)
				ncap = (size_t)max + 1;
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				free(buf);
				return err_sys(e, path, ENOMEM);
			}
			buf = nbuf;
			cap = ncap;
		}
		want = cap - len;
		if (!fail_past && want > max - len)
			want = (size_t)(max - len);
		if (!want)
			break;
		n = read(fd, buf + len, want);
		if (n < 0) {
			int saved = errno;

			if (saved == EINTR)
				continue;
			free(buf);
			return err_sys(e, path, saved);
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			free(buf);
			err_file(e, path, "not a regular file, and longer than "
				 "%llu bytes (the limit OFFLOAD_STREAM_MAX "
				 "sets)", (unsigned long long)max);
			return -1;
		}
	}
	in->heap = buf;
	in->data = buf;
	in->len = len;
	return 0;
}

/* Inputs mapped now.  A file that shrinks after it was mapped faults
 * (SIGBUS) where a read reaches past its new end; the handler looks the
 * address up here, puts zero pages over the rest of that map so the read
 * goes on, and notes the file (io_input_cut).  From then on nothing is
 * committed and the first failure reported is that input's.  A fixed table
 * that the handler scans without allocating or locking. */
enum { MAX_MAPS = 256 };
static struct mapped {
	uintptr_t volatile start, len;
	const char *volatile path;
} maps[MAX_MAPS];
static const char *volatile input_cut;
static size_t page_size = 4096;

static void map_add(const struct io_in *in)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (!maps[i].start) {
			maps[i].len = in->len;
			maps[i].path = in->path;
			maps[i].start = (uintptr_t)in->map;
			return;
		}
}

static void map_remove(const void *map)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (maps[i].start == (uintptr_t)map)
			maps[i].start = 0;
}

/* The registered map that holds [p, p+n), or -1. */
static int map_of(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;

	for (int i = 0; i < MAX_MAPS; i++) {
		uintptr_t start = maps[i].start;

		if (start && a - start < maps[i].len &&
		    n <= maps[i].len - (a - start))
			return i;
	}
	return -1;
}

const char *io_input_cut(void)
{
	return input_cut;
}

void io_input_cut_clear(void)
{
	input_cut = NULL;
}

static int in_open(struct io_in *in, const char *path, uint64_t want,
		   struct err *e)
{
	uint64_t max = io_stream_max(e);
	bool fail_past = true;
	struct stat st;
	int fd;

	if (!max)
		return -1;
	if (want && want <= max) {
		max = want;
		fail_past = false;
	}

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = path;
	if (!strcmp(path, "-"))
		return read_all(0, in, path, max, fail_past, e);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, path, errno);
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		int saved = S_ISDIR(st.st_mode) ? EISDIR : errno;

		close(fd);
		return err_sys(e, path, saved);
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ,
				 MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			in->map = map;
			in->data = map;
			in->len = (size_t)st.st_size;
			in->fd = fd;
			map_add(in);
			return 0;
		}
	}
	if (read_all(fd, in, path, max, fail_past, e) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int io_in_open(struct io_in *in, const char *path, struct err *e)
{
	return in_open(in, path, 0, e);
}

int io_in_open_part(struct io_in *in, const char *path, uint64_t want,
		    struct err *e)
{
	return in_open(in, path, want, e);
}

uint64_t io_in_next_data(const struct io_in *in, uint64_t off)
{
	off_t d;

	if (!in->map || in->fd < 0 || off >= in->len || off > INT64_MAX)
		return off;
	d = lseek(in->fd, (off_t)off, SEEK_DATA);
	if (d < 0)
		return errno == ENXIO ? in->len : off;
	return (uint64_t)d < in->len ? (uint64_t)d : in->len;
}

void io_in_close(struct io_in *in)
{
	if (in->map) {
		map_remove(in->map);
		munmap(in->map, in->len);
	}
	free(in->heap);
	if (in->fd >= 0)
		close(in->fd);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}

/* Temporaries that a signal must remove.  A fixed table: a command opens a
 * handful of outputs, and a signal handler may not allocate. */
enum { MAX_PENDING = 256 };
static char *volatile pending[MAX_PENDING];

static void pending_add(char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = tmp;
			return;
		}
}

static void pending_remove(const char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i] == tmp)
			pending[i] = NULL;
}

static void cleanup_and_die(int sig)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Every signal whose default action ends the process (POSIX's "T" and
 * "A" signals, and Linux's own), but SIGKILL and SIGXFSZ. */
/* A read of a mapped input past the end of the file it has become: zero
 * pages from the faulting page to the end of the map (mmap is a plain
 * system call, safe here in practice though POSIX does not list it), the
 * file noted, and the read goes on.  Any other SIGBUS is deadly. */
static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	int i = map_of(si->si_addr, 1);

	(void)ctx;
	if (i >= 0) {
		uintptr_t start = maps[i].start, page = a & ~(page_size - 1);
		uintptr_t end = (start + maps[i].len + page_size - 1) &
				~(page_size - 1);

		if (mmap((void *)page, end - page, PROT_READ,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) !=
		    MAP_FAILED) {
			if (!input_cut)
				input_cut = maps[i].path;
			return;
		}
	}
	cleanup_and_die(sig);
}

static const int deadly[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGFPE,
	SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU,
	SIGVTALRM, SIGPROF, SIGSYS,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
#ifdef SIGIO
	SIGIO,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGEMT
	SIGEMT,
#endif
#ifdef SIGLOST
	SIGLOST,
#endif
};

static void catch_signal(int sig)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cleanup_and_die;
	sigemptyset(&sa.sa_mask);
	/* Keep an inherited "ignore" (nohup, a shell's background job). */
	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	sigaction(sig, &sa, NULL);
}

void io_install_signal_cleanup(void)
{
	/* Past `ulimit -f`, SIGXFSZ would kill us with the temporary left
	 * behind; ignored, the write fails with EFBIG and is reported (and
	 * one sent by kill does nothing). */
	signal(SIGXFSZ, SIG_IGN);

	struct sigaction sa, old;
	long page = sysconf(_SC_PAGESIZE);

	if (page > 0)
		page_size = (size_t)page;
	for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
		catch_signal(deadly[i]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGBUS, &sa, NULL);
#if defined(SIGRTMIN) && defined(SIGRTMAX)
	/* Real-time signals end the process too (glibc keeps the first few
	 * for itself; SIGRTMIN is the first left to us). */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		catch_signal(sig);
#endif
}

/* A dangling symlink's last target: the links followed one by one (a
 * relative one from its own directory), up to the name nothing is at. */
static char *dangling_target(const char *path)
{
	char *at = strdup(path);
	struct stat st;

	for (int hops = 0; at && hops < 40; hops++) {
		char link[PATH_MAX], *next, *slash;
		ssize_t n;

		if (lstat(at, &st) < 0)
			return at;	/* nothing there: the file to make */
		if (!S_ISLNK(st.st_mode))
			break;
		n = readlink(at, link, sizeof(link) - 1);
		if (n <= 0)
			break;
		link[n] = 0;
		slash = strrchr(at, '/');
		if (link[0] == '/' || !slash)
			next = strdup(link);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - at), at,
				  link) < 0)
			next = NULL;
		free(at);
		at = next;
	}
	free(at);
	return strdup(path);	/* a loop, or no target: the link itself */
}

/* Where the rename must land: through a symlink to its target, as an
 * in-place write would; a dangling one's target is made, as a shell's
 * redirection makes it. */
static char *resolve_dest(const char *path)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (real)
			return real;
		if (errno == ENOENT)
			return dangling_target(path);
	}
	return strdup(path);
}

/* An unlinked file in $TMPDIR (or /tmp): O_TMPFILE, or a named file
 * removed at once where the file system cannot make one. */
static int scratch_fd(const char **where)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	*where = dir;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		char *name = malloc(strlen(dir) + 32);

		if (name) {
			sigset_t all, was;

			/* Unlinked before any signal can end us. */
			sigfillset(&all);
			pthread_sigmask(SIG_BLOCK, &all, &was);
			sprintf(name, "%s/offload-scratch.XXXXXX", dir);
			fd = mkostemp(name, O_CLOEXEC);
			if (fd >= 0)
				unlink(name);
			pthread_sigmask(SIG_SETMASK, &was, NULL);
			free(name);
		}
	}
	return fd;
}

/* No temporary beside an existing file we may write: stage it in a
 * scratch file instead (see io.h).  0, or -1 with errno unchanged. */
static int stage_for_copy_back(struct io_out *o)
{
	int saved = errno, fd = open(o->dest, O_WRONLY | O_CLOEXEC);
	const char *dir;

	if (fd < 0) {
		errno = saved;
		return -1;
	}
	close(fd);
	if ((o->fd = scratch_fd(&dir)) < 0) {
		errno = saved;
		return -1;
	}
	o->copy_back = true;
	return 0;
}

/* The staged bytes over the file, in the kernel where it can. */
static int copy_back(struct io_out *o, struct err *e)
{
	int to = open(o->dest, O_WRONLY | O_TRUNC | O_CLOEXEC);
	uint64_t done = 0;
	off_t from = 0;
	int rc = 0;

	if (to < 0)
		return err_sys(e, o->path, errno);
	while (rc == 0 && done < o->pos) {
		size_t want = o->pos - done > (1u << 30) ? (1u << 30)
							  : (size_t)(o->pos - done);
		ssize_t n = copy_file_range(o->fd, &from, to, NULL, want, 0);

		if (n < 0 && (errno == EXDEV || errno == ENOSYS ||
			      errno == EINVAL || errno == EOPNOTSUPP)) {
			uint8_t buf[65536];
			ssize_t r = pread(o->fd, buf, sizeof(buf), from);

			n = r <= 0 ? -1 : write(to, buf, (size_t)r);
			if (r == 0)
				errno = EIO;
			if (n > 0)
				from += n;
		}
		if (n <= 0)
			rc = err_sys(e, o->path, n < 0 ? errno : EIO);
		else
			done += (uint64_t)n;
	}
	if (close(to) < 0 && rc == 0)
		rc = err_sys(e, o->path, errno);
	return rc;
}

/* Written in place: where the bytes start, for the pieces' boundaries
 * (stdout may be a file opened for appending; a pipe has no position). */
static int out_in_place(struct io_out *o)
{
	off_t at = lseek(o->fd, 0, SEEK_CUR);

	o->pos = at > 0 ? (uint64_t)at : 0;
	return 0;
}

static int out_open(struct io_out *o, const char *path, bool in_dir,
		    struct err *e)
{
	struct stat st;
	char *dir_copy = NULL;
	sigset_t all, was;
	mode_t mask;
	int exists, saved;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = strdup(path);
	if (!o->path)
		return err_sys(e, path, ENOMEM);
	if (!strcmp(path, "-")) {
		o->fd = 1;
		return out_in_place(o);
	}
	if (in_dir && lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return err_sys(e, path, EISDIR);
		return err_file(e, path, S_ISLNK(st.st_mode) ?
				"is a symbolic link, which is not followed" :
				"is not a regular file");
	}
	o->dest = in_dir ? strdup(path) : resolve_dest(path);
	if (!o->dest)
		return err_sys(e, path, ENOMEM);
	exists = !in_dir && stat(o->dest, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return err_sys(e, path, EISDIR);
	if (exists && !S_ISREG(st.st_mode)) {
		o->fd = open(o->dest, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (o->fd < 0)
			return err_sys(e, path, errno);
		return out_in_place(o);
	}
	mask = umask(0);
	umask(mask);
	o->mode = exists ? (st.st_mode & 07777) : (0666 & ~mask);

	dir_copy = strdup(o->dest);
	o->tmp = dir_copy ? malloc(strlen(o->dest) + 32) : NULL;
	if (!o->tmp) {
		free(dir_copy);
		return err_sys(e, path, ENOMEM);
	}
	{
		char *base_copy = strdup(o->dest);
		const char *dir = dirname(dir_copy);
		const char *base = base_copy ? basename(base_copy) : "out";

		snprintf(o->tmp, strlen(o->dest) + 32, "%s/.%.*s.XXXXXX", dir,
			 200, base);
		free(base_copy);
	}
	free(dir_copy);
	/* No signal between the file's creation and its registration: one
	 * there would leave it behind. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	saved = errno;
	if (o->fd >= 0)
		pending_add(o->tmp);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (o->fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		if (exists && (saved == EACCES || saved == EPERM) &&
		    stage_for_copy_back(o) == 0)
			return 0;
		return err_sys(e, path, saved);
	}
	if (fchmod(o->fd, o->mode) < 0) {
		saved = errno;
		io_out_discard(o);
		return err_sys(e, path, saved);
	}
	return 0;
}

void io_out_mode_from(struct io_out *o, const struct io_in *in)
{
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	if (!o->tmp || (in->fd >= 0 ? fstat(in->fd, &st)
			: !in->path || !strcmp(in->path, "-") ? -1
			: stat(in->path, &st)) < 0 || !S_ISREG(st.st_mode))
		return;
	o->mode = st.st_mode & 07777 & ~mask & ~(mode_t)06000;
	if (geteuid() == 0 && fchown(o->fd, st.st_uid, st.st_gid) < 0)
		return;
	(void)fchmod(o->fd, o->mode);
}

void io_out_keep_mode(struct io_out *o, const struct io_in *in)
{
	struct stat st;

	if (!o->tmp || in->fd < 0 || fstat(in->fd, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return;
	o->mode = st.st_mode & 07777;
	/* The owner first: chown clears the set-ID bits fchmod then puts
	 * back.  Who may not give the file away keeps it as theirs. */
	(void)fchown(o->fd, st.st_uid, st.st_gid);
	(void)fchmod(o->fd, o->mode);
}

/* A failed open holds nothing: the caller need not discard it. */
int io_out_open(struct io_out *o, const char *path, struct err *e)
{
	if (out_open(o, path, false, e) == 0)
		return 0;
	io_out_discard(o);
	return -1;
}

int io_out_open_in_dir(struct io_out *o, const char *path, struct err *e)
{
	if (out_open(o, path, true, e) == 0)
		return 0;
	io_out_discard(o);
	return -1;
}

int io_mkdirs(const char *path, struct err *e)
{
	char *p;
	struct stat st;
	int rc = 0;

	if (!*path)
		return err_sys(e, path, ENOENT);
	if (!(p = strdup(path)))
		return err_sys(e, path, ENOMEM);
	/* Each parent, then path itself; one that exists is passed over. */
	for (char *s = p + 1; rc == 0; s++) {
		char c = *s;

		if (c && c != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			rc = err_sys(e, p, errno);
		*s = c;
		if (!c)
			break;
	}
	if (rc == 0 && stat(path, &st) < 0)
		rc = err_sys(e, path, errno);
	else if (rc == 0 && !S_ISDIR(st.st_mode))
		rc = err_sys(e, path, ENOTDIR);
	free(p);
	return rc;
}

/* How the page cache is filled decides how fast: it gives a write large
 * folios only at offsets aligned to their size, and this kernel (Linux
 * 6.18 on ext4, in a VM; measured) is slow with both the smallest and the
 * largest.  1 GB copied in the kernel to 4 KiB past a multiple of 64 KiB
 * takes 1.4x as long as to a multiple, and 500 MB written by one write()
 * 7x as long as in pieces of 64-128 KiB.  So: copies run between CHUNK
 * boundaries, a file we own stages what falls short of the next boundary
 * (a header, a padding, a copy's head and tail) until it is reached, and
 * no write() is larger than WRITE_MAX.  stdout and devices get no stage:
 * their bytes go out at once. */
#define CHUNK (64u * 1024)
#define WRITE_MAX (128u * 1024)

static bool staged(const struct io_out *o)
{
	return o->tmp || o->scratch || o->copy_back;
}

/* From the end of what is written and staged to the next boundary. */
static size_t to_boundary(const struct io_out *o)
{
	return CHUNK - (size_t)((o->pos + o->staged) % CHUNK);
}

static int write_all(struct io_out *o, const void *buf, size_t len,
		     struct err *e)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0) {
			int i;

			if (errno == EINTR)
				continue;
			/* The kernel met the end of a mapped input that
			 * shrank: the input's fault, not the output's. */
			if (errno == EFAULT && (i = map_of(p, len)) >= 0) {
				input_cut = maps[i].path;
				return err_file(e, maps[i].path,
						"file changed size while being "
						"read");
			}
			return err_sys(e, o->path, errno);
		}
		p += n;
		len -= (size_t)n;
		o->pos += (uint64_t)n;
	}
	return 0;
}

static int flush(struct io_out *o, struct err *e)
{
	size_t n = o->staged;

	o->staged = 0;
	return n ? write_all(o, o->stage, n, e) : 0;
}

/* Page-aligned: pread from a page-aligned input offset into a buffer 16
 * bytes past a page boundary (where malloc puts it) ran at half speed. */
static int stage_alloc(struct io_out *o, struct err *e)
{
	if (!o->stage && !(o->stage = aligned_alloc(4096, CHUNK)))
		return err_set(e, "out of memory");
	return 0;
}

int io_out_write(struct io_out *o, const void *buf, size_t len, struct err *e)
{
	const uint8_t *p = buf;

	while (len) {
		size_t room = to_boundary(o), n;

		if (o->staged || (len < room && staged(o))) {
			n = len < room ? len : room;
			if (stage_alloc(o, e) < 0)
				return -1;
			memcpy(o->stage + o->staged, p, n);
			o->staged += n;
			if (n == room && flush(o, e) < 0)
				return -1;
		} else {
			n = len < WRITE_MAX ? len : WRITE_MAX;
			if (write_all(o, p, n, e) < 0)
				return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int io_out_zeros(struct io_out *o, uint64_t n, struct err *e)
{
	static const uint8_t zeros[4096];

	while (n) {
		size_t chunk = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

		if (io_out_write(o, zeros, chunk, e) < 0)
			return -1;
		n -= chunk;
	}
	return 0;
}

int io_out_hole(struct io_out *o, uint64_t n, struct err *e)
{
	if (!o->tmp)
		return io_out_zeros(o, n, e);
	if (!n)
		return 0;
	if (flush(o, e) < 0)
		return -1;
	if (n > (uint64_t)INT64_MAX - o->pos ||
	    lseek(o->fd, (off_t)(o->pos + n), SEEK_SET) < 0)
		return err_sys(e, o->path, n > (uint64_t)INT64_MAX - o->pos
				? EFBIG : errno);
	o->pos += n;
	o->holes = true;
	return 0;
}

static int changed_size(const struct io_in *in, struct err *e)
{
	return err_file(e, in->path ? in->path : "input",
			"file changed size while being read");
}

/* Read n bytes of in at *off into the stage, n no more than to the next
 * boundary; a stage that reaches it goes out. */
static int stage_from(struct io_out *o, const struct io_in *in, uint64_t *off,
		      size_t n, struct err *e)
{
	if (stage_alloc(o, e) < 0)
		return -1;
	while (n) {
		ssize_t got = pread(in->fd, o->stage + o->staged, n,
				    (off_t)*off);

		if (got < 0 && errno == EINTR)
			continue;
		/* The end of the input before the end of its map: it shrank
		 * since it was opened. */
		if (got == 0)
			return changed_size(in, e);
		if (got < 0)
			return err_sys(e, in->path ? in->path : "input",
				       errno);
		o->staged += (size_t)got;
		*off += (uint64_t)got;
		n -= (size_t)got;
	}
	return to_boundary(o) == CHUNK ? flush(o, e) : 0;
}

static bool input_shrank(const struct io_in *in, uint64_t end)
{
	struct stat st;

	return fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < end;
}

/* copy_file_range of len bytes from in at *off to the output's position;
 * returns what is left when the kernel stopped short (0: all copied). */
static int64_t kernel_copy(struct io_out *o, const struct io_in *in,
			   uint64_t *off, uint64_t len, struct err *e)
{
	loff_t from = (loff_t)*off;

	while (len) {
		size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
		ssize_t n = copy_file_range(in->fd, &from, o->fd, NULL, chunk,
					    0);

		if (n == 0 && input_shrank(in, (uint64_t)from + len))
			return changed_size(in, e);
		if (n <= 0)
			break;
		len -= (uint64_t)n;
		o->pos += (uint64_t)n;
	}
	*off = (uint64_t)from;
	return (int64_t)len;
}

int io_out_copy(struct io_out *o, const struct io_in *in, uint64_t off,
		uint64_t len, struct err *e)
{
	/* A file we own: the bytes up to the next boundary join the stage,
	 * then whole pieces go by copy_file_range, which keeps them out of
	 * our address space, and the tail is staged.  The kernel copies whole
	 * pages of the input in 64 KiB runs, so its writes stay on the
	 * boundaries only when the input offset is a multiple of the page
	 * size there; otherwise pread into the stage, which is faster. */
	if (in->fd >= 0 && staged(o)) {
		size_t head = to_boundary(o) % CHUNK;
		uint64_t body;

		if (head > len)
			head = (size_t)len;
		if (stage_from(o, in, &off, head, e) < 0)
			return -1;
		len -= head;
		body = len - len % CHUNK;
		if (body && off % 4096 == 0 && !o->staged) {
			int64_t left = kernel_copy(o, in, &off, body, e);

			if (left < 0)
				return -1;
			len -= body - (uint64_t)left;
		}
		while (len) {
			size_t n = len < CHUNK ? (size_t)len : CHUNK;

			if (stage_from(o, in, &off, n, e) < 0)
				return -1;
			len -= n;
		}
		return 0;
	}
	/* Any other output (stdout, a pipe, a device): sendfile, which keeps
	 * them out of our address space too. */
	if (in->fd >= 0) {
		off_t from = (off_t)off;

		while (len) {
			size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
			ssize_t n = sendfile(o->fd, in->fd, &from, chunk);

			if (n <= 0)
				break;
			len -= (uint64_t)n;
			o->pos += (uint64_t)n;
		}
		off = (uint64_t)from;
		if (!len)
			return 0;
	}
	return io_out_write(o, in->data + off, (size_t)len, e);
}

int io_out_pwrite(struct io_out *o, const void *buf, size_t len, uint64_t off,
		  struct err *e)
{
	const uint8_t *p = buf;

	if (flush(o, e) < 0)
		return -1;
	while (len) {
		ssize_t n = pwrite(o->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_sys(e, o->path, errno);
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

bool io_out_seekable(const struct io_out *o)
{
	return o->tmp != NULL || o->scratch || o->copy_back;
}

int io_scratch_open(struct io_out *o, struct err *e)
{
	const char *dir;

	memset(o, 0, sizeof(*o));
	o->path = strdup("temporary file");
	if (!o->path)
		return err_set(e, "out of memory");
	o->scratch = true;
	o->fd = scratch_fd(&dir);
	if (o->fd < 0)
		return err_set(e, "temporary file in '%s': %s", dir,
			       strerror(errno));
	return 0;
}

int io_out_flush(struct io_out *o, struct err *e)
{
	return flush(o, e);
}

/* Map the scratch file's first size bytes (all of it, or what it is to
 * hold) for view. */
static int scratch_view(struct io_out *o, uint64_t size, struct io_in *view,
			struct err *e)
{
	if (size) {
		o->map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, o->fd,
			      0);
		if (o->map == MAP_FAILED) {
			o->map = NULL;
			return err_set(e, "temporary file: %s", strerror(errno));
		}
		o->map_len = (size_t)size;
	}
	view->data = o->map;
	view->len = (size_t)size;
	return 0;
}

int io_scratch_reserve(struct io_out *o, uint64_t size, struct io_in *view,
		       struct err *e)
{
	memset(view, 0, sizeof(*view));
	view->fd = -1;
	if (size > SIZE_MAX || ftruncate(o->fd, (off_t)size) < 0)
		return err_set(e, "temporary file: %s",
			       strerror(size > SIZE_MAX ? EFBIG : errno));
	return scratch_view(o, size, view, e);
}

int io_scratch_map(struct io_out *o, struct io_in *view, struct err *e)
{
	struct stat st;

	memset(view, 0, sizeof(*view));
	view->fd = -1;
	if (flush(o, e) < 0)
		return -1;
	if (fstat(o->fd, &st) < 0)
		return err_set(e, "temporary file: %s", strerror(errno));
	return scratch_view(o, (uint64_t)st.st_size, view, e);
}

/* Forget an output whose descriptor is closed; drop its temporary too. */
static void release(struct io_out *o, bool remove_tmp)
{
	if (o->map)
		munmap(o->map, o->map_len);
	if (o->tmp && remove_tmp)
		unlink(o->tmp);
	if (o->tmp)
		pending_remove(o->tmp);
	free(o->tmp);
	free(o->dest);
	free(o->path);
	free(o->stage);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

int io_out_commit(struct io_out *o, struct err *e)
{
	int rc;

	if (!o->path)
		return 0;
	rc = flush(o, e);
	/* A hole at the end is a length still to give the file. */
	if (rc == 0 && o->holes && ftruncate(o->fd, (off_t)o->pos) < 0)
		rc = err_sys(e, o->path, errno);
	/* Made from zero pages where an input was cut short. */
	if (rc == 0 && input_cut)
		rc = err_file(e, input_cut, "file changed size while being read");
	if (rc == 0 && o->copy_back)
		rc = copy_back(o, e);
	if (o->fd > 1 && close(o->fd) < 0 && rc == 0)
		rc = err_sys(e, o->path, errno);
	o->fd = -1;
	if (rc == 0 && o->tmp && rename(o->tmp, o->dest) < 0)
		rc = err_sys(e, o->path, errno);
	release(o, rc < 0);
	return rc;
}

void io_out_discard(struct io_out *o)
{
	if (o->fd > 1)
		close(o->fd);
	release(o, true);
}

void io_in_hint(const struct io_in *in, uint64_t off, uint64_t end,
		enum io_in_use use)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t from, to;
	uint8_t *base = in->map;

	if (!in->map || page <= 0)
		return;
	if (end > in->len)
		end = in->len;
	if (off >= end)
		return;
	if (use == IO_IN_DONE) {
		/* Only the pages wholly inside: those the range starts and
		 * ends in may be a neighbour's (a read-only private map loses
		 * nothing either way; this saves faulting them back). */
		from = (off + (uint64_t)page - 1) / (uint64_t)page *
		       (uint64_t)page;
		to = end / (uint64_t)page * (uint64_t)page;
		if (from < to)
			madvise(base + from, (size_t)(to - from),
				MADV_DONTNEED);
		return;
	}
	/* Advice: every page the range touches (madvise rounds the length
	 * up). */
	from = off / (uint64_t)page * (uint64_t)page;
	to = end;
	if (use == IO_IN_SPARSE) {
		madvise(base + from, (size_t)(to - from), MADV_RANDOM);
		return;
	}
	madvise(base + from, (size_t)(to - from), MADV_SEQUENTIAL);
	madvise(base + from, (size_t)(to - from), MADV_WILLNEED);
}
