/* io_out: atomic outputs (see io_out.h): a temporary beside the destination,
 * renamed over it at commit, or a staged copy written back; and the
 * output directories made on the way. */
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
#include <time.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_at.h"
#include "io_in.h"
#include "io_out.h"
#include "io_write.h"
#include "io_scratch.h"
#include "io_signal.h"

/* The outputs that commit together (io_out_together): their temporaries
 * and destinations, and the directories io_mkdirs made meanwhile. */
static struct together {
	bool on;
	struct held {
		char *tmp, *dest, *path;
		int dirfd;	/* tmp and dest are names in it, or AT_FDCWD */
		bool expect;
		dev_t dev;
		ino_t ino;
	} *out;
	size_t n, cap;
	char **dirs;
	size_t ndirs, capdirs;
} together;

static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *nv;

	if (n < *cap)
		return true;
	if (!(nv = realloc(*v, ncap * size)))
		return false;
	*v = nv;
	*cap = ncap;
	return true;
}

void io_out_together(void)
{
	together.on = true;
}

int io_out_together_end(bool ok, struct err *e)
{
	int rc = 0;

	for (size_t i = 0; i < together.n; i++) {
		struct held *h = &together.out[i];

		if (ok && rc == 0 && (h->expect ?
				      io_at_replace(h->dirfd, h->tmp, h->dest,
						    h->dev, h->ino) :
				      renameat(h->dirfd, h->tmp, h->dirfd,
					       h->dest)) < 0)
			rc = err_sys(e, h->path, errno);
		else if (!ok || rc < 0)
			unlinkat(h->dirfd, h->tmp, 0);
		io_pending_remove(h->tmp);
		free(h->tmp);
		free(h->dest);
		free(h->path);
	}
	/* Deepest first: each was made after its parent. */
	for (size_t i = together.ndirs; i-- > 0;) {
		if (!ok || rc < 0)
			rmdir(together.dirs[i]);
		io_pending_remove_dir(together.dirs[i]);
		free(together.dirs[i]);
	}
	free(together.out);
	free(together.dirs);
	memset(&together, 0, sizeof(together));
	return rc;
}

/* Hold o's temporary for io_out_together_end: 0, or -1 (out of memory,
 * o untouched). */
static int hold(struct io_out *o)
{
	struct held *h;

	if (!grow((void **)&together.out, &together.cap, together.n,
		  sizeof(*together.out)))
		return -1;
	h = &together.out[together.n++];
	h->tmp = o->tmp;
	h->dest = o->dest;
	h->path = o->path;
	h->dirfd = o->at ? o->dirfd : AT_FDCWD;
	h->expect = o->expect;
	h->dev = o->exp_dev;
	h->ino = o->exp_ino;
	o->tmp = o->dest = o->path = NULL;
	o->at = false;
	return 0;
}

/* Where the rename must land: through a symlink to its target, as an
 * in-place write would; a dangling one's target is made, as a shell's
 * redirection makes it.  The links are followed one by one (a relative
 * one from its own directory) up to the name that is no link, the
 * directories on the way left to the kernel: no name is cut short at
 * PATH_MAX, a name too long fails when used.  A loop, or a link that
 * does not read, is the link itself; NULL (errno set) when a name on
 * the way cannot be looked at. */
static char *resolve_dest(const char *path)
{
	char *at = strdup(path);
	struct stat st;

	for (int hops = 0; at && hops < 40; hops++) {
		char link[PATH_MAX], *next, *slash;
		ssize_t n;

		if (lstat(at, &st) < 0) {
			int saved = errno;

			if (saved == ENOENT)
				return at;	/* nothing there: the file to make */
			free(at);
			errno = saved;
			return NULL;
		}
		if (!S_ISLNK(st.st_mode))
			return at;
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
	if (!at)
		return NULL;
	free(at);
	return strdup(path);
}

/* No temporary beside an existing file we may write: stage it in a
 * scratch file instead (see struct io_out, io_types.h).  0, or -1 with errno unchanged. */
static int stage_for_copy_back(struct io_out *o)
{
	int saved = errno, fd = open(o->dest, O_WRONLY | O_CLOEXEC);
	const char *dir;

	if (fd < 0) {
		errno = saved;
		return -1;
	}
	close(fd);
	if ((o->fd = io_scratch_fd(&dir)) < 0) {
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

/* An existing file that is only replaced, and no file can be made beside
 * it to replace it: the directory named, the file left as it is. */
static int refuse_in_place(struct io_out *o, int errnum, struct err *e)
{
	char *copy = strdup(o->dest);

	if (!copy)
		return err_sys(e, o->path, ENOMEM);
	err_sys_for(e, o->path, errnum, "cannot create a file in '%s'",
		    dirname(copy));
	free(copy);
	return -1;
}

/* Written in place: where the bytes start, for the pieces' boundaries
 * (stdout may be a file opened for appending; a pipe has no position). */
static int out_in_place(struct io_out *o)
{
	off_t at = lseek(o->fd, 0, SEEK_CUR);

	o->pos = at > 0 ? (uint64_t)at : 0;
	return 0;
}

/* What is at an output's name in a directory, not a regular file, is
 * not replaced: why. */
static int not_regular(const struct stat *st, const char *path, struct err *e)
{
	if (S_ISDIR(st->st_mode))
		return err_sys(e, path, EISDIR);
	return err_file(e, path, S_ISLNK(st->st_mode) ?
			"is a symbolic link, which is not followed" :
			"is not a regular file");
}

/* replace: an existing regular file is only ever replaced by the rename,
 * never staged for copy_back (see io_out_open_replace). */
static int out_open_how(struct io_out *o, const char *path, bool in_dir,
			bool replace, struct err *e)
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
	/* Else a temporary "./..XXXXXX" would be made, and only its rename
	 * fail. */
	if (!*path)
		return err_sys(e, path, ENOENT);
	if (in_dir && lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return not_regular(&st, path, e);
	o->dest = in_dir ? strdup(path) : resolve_dest(path);
	if (!o->dest)
		return err_sys(e, path, errno);
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
		io_pending_add(o->tmp);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (o->fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		if (exists && (saved == EACCES || saved == EPERM) && replace)
			return refuse_in_place(o, saved, e);
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

static int out_open(struct io_out *o, const char *path, bool in_dir,
		    struct err *e)
{
	return out_open_how(o, path, in_dir, false, e);
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

int io_out_open_replace(struct io_out *o, const char *path, struct err *e)
{
	if (out_open_how(o, path, false, true, e) == 0)
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

/* The directory part of path, for a message ("." when none). */
static void dir_part(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, n, ".");
	else
		snprintf(buf, n, "%.*s", slash == path ? 1 : (int)(slash - path),
			 path);
}

/* ".name.XXXXXX", as mkostemp names the temporaries beside a path (see
 * offload(1) FILES): six letters and digits, random. */
static void temp_name(char *buf, size_t n, const char *name)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned long mix;
	unsigned char r[6];
	char x[7];
	struct timespec ts;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		unsigned long v;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = __atomic_add_fetch(&mix, 0x9e3779b97f4a7c15ul,
				       __ATOMIC_RELAXED) ^
		    (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 20);
		for (size_t i = 0; i < sizeof(r); i++, v >>= 8)
			r[i] = (unsigned char)v;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		x[i] = set[r[i] % (sizeof(set) - 1)];
	x[6] = 0;
	snprintf(buf, n, ".%.200s.%s", name, x);
}

static int out_open_at(struct io_out *o, int dirfd, const char *name,
		       const char *path, struct err *e)
{
	char tmp[300], dir[ERR_PATH_MAX];
	struct stat st;
	sigset_t all, was;
	mode_t mask;
	int saved = 0;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!(o->path = strdup(path)) || !(o->dest = strdup(name)))
		return err_sys(e, path, ENOMEM);
	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return err_sys(e, path, EINVAL);
	o->dirfd = dirfd;
	o->at = true;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISREG(st.st_mode))
		return not_regular(&st, path, e);
	mask = umask(0);
	umask(mask);
	o->mode = 0666 & ~mask;
	/* No signal between the file's creation and its registration: one
	 * there would leave it behind. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	for (int tries = 0; o->fd < 0 && tries < 100; tries++) {
		temp_name(tmp, sizeof(tmp), name);
		o->fd = openat(o->dirfd, tmp, O_RDWR | O_CREAT | O_EXCL |
			       O_NOFOLLOW | O_CLOEXEC, 0600);
		saved = errno;
		if (o->fd < 0 && saved != EEXIST)
			break;
	}
	if (o->fd >= 0 && !(o->tmp = strdup(tmp))) {
		unlinkat(o->dirfd, tmp, 0);
		close(o->fd);
		o->fd = -1;
		saved = ENOMEM;
	}
	if (o->fd >= 0)
		io_pending_add_at(o->dirfd, o->tmp);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (o->fd < 0) {
		/* Never a copy over the file instead: that would change its
		 * other links, and a failure would leave it cut short. */
		dir_part(path, dir, sizeof(dir));
		return err_code_file(e, ERR_SYSTEM, saved, path, "cannot create "
				     "a file in '%s': %s", dir, strerror(saved));
	}
	if (fchmod(o->fd, o->mode) < 0)
		return err_sys(e, path, errno);
	return 0;
}

int io_out_open_at(struct io_out *o, int dirfd, const char *name,
		   const char *path, struct err *e)
{
	if (out_open_at(o, dirfd, name, path, e) == 0)
		return 0;
	io_out_discard(o);
	return -1;
}

void io_out_expect(struct io_out *o, dev_t dev, ino_t ino)
{
	o->expect = true;
	o->exp_dev = dev;
	o->exp_ino = ino;
}

/* The rename of an output made in a directory descriptor. */
static int commit_at(struct io_out *o, struct err *e)
{
	if (!o->expect) {
		if (renameat(o->dirfd, o->tmp, o->dirfd, o->dest) < 0)
			return err_sys(e, o->path, errno);
		return 0;
	}
	if (io_at_replace(o->dirfd, o->tmp, o->dest, o->exp_dev,
			  o->exp_ino) == 0)
		return 0;
	if (errno == ESTALE)
		return err_code_file(e, ERR_CHANGED, 0, o->path, "changed "
				     "since it was read: not replaced");
	return err_sys(e, o->path, errno);
}

int io_mkdirs(const char *path, struct err *e)
{
	char *p;
	struct stat st;
	int rc = 0;
	bool made;

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
		if (together.on) {
			/* Made and registered with no signal between: a
			 * signal removes it with the temporaries. */
			char *d = strdup(p);
			sigset_t all, was;
			int saved;

			if (!d || !grow((void **)&together.dirs,
					&together.capdirs, together.ndirs,
					sizeof(char *))) {
				free(d);
				rc = err_sys(e, p, ENOMEM);
				break;
			}
			sigfillset(&all);
			pthread_sigmask(SIG_BLOCK, &all, &was);
			made = mkdir(p, 0777) == 0;
			saved = errno;
			if (made)
				io_pending_add_dir(d);
			pthread_sigmask(SIG_SETMASK, &was, NULL);
			errno = saved;
			if (made)
				together.dirs[together.ndirs++] = d;
			else
				free(d);
		} else {
			made = mkdir(p, 0777) == 0;
		}
		if (!made && errno != EEXIST)
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

/* Forget an output whose descriptor is closed; drop its temporary too. */
static void release(struct io_out *o, bool remove_tmp)
{
	if (o->map)
		munmap(o->map, o->map_len);
	if (o->tmp && remove_tmp)
		unlinkat(o->at ? o->dirfd : AT_FDCWD, o->tmp, 0);
	if (o->tmp)
		io_pending_remove(o->tmp);
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
	rc = io_out_flush(o, e);
	/* A hole at the end is a length still to give the file. */
	if (rc == 0 && o->holes && ftruncate(o->fd, (off_t)o->pos) < 0)
		rc = err_sys(e, o->path, errno);
	/* Made from zero pages where an input was cut short. */
	if (rc == 0 && io_input_cut())
		rc = err_file(e, io_input_cut(),
			      "file changed size while being read");
	/* A write by who may not keep set-ID bits (no CAP_FSETID) cleared
	 * them (the kernel's file_remove_privs): the mode once more, after
	 * the last write (and after any fchown, which clears them too). */
	if (rc == 0 && o->tmp && fchmod(o->fd, o->mode) < 0)
		rc = err_sys(e, o->path, errno);
	if (rc == 0 && o->copy_back)
		rc = copy_back(o, e);
	if (o->fd > 1 && close(o->fd) < 0 && rc == 0)
		rc = err_sys(e, o->path, errno);
	o->fd = -1;
	if (rc == 0 && o->tmp && together.on && hold(o) < 0)
		rc = err_sys(e, o->path, ENOMEM);
	if (rc == 0 && o->tmp && !o->at && rename(o->tmp, o->dest) < 0)
		rc = err_sys(e, o->path, errno);
	if (rc == 0 && o->tmp && o->at)
		rc = commit_at(o, e);
	release(o, rc < 0);
	return rc;
}

void io_out_discard(struct io_out *o)
{
	if (o->fd > 1)
		close(o->fd);
	release(o, true);
}

