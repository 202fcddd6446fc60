/* io_out: atomic outputs (see io_out.h): a temporary renamed over the
 * destination at commit, made in a directory descriptor (named by a path:
 * io_out_path.c); the outputs that commit together; and the output
 * directories made on the way. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
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

#include "grow.h"
#include "io_commit.h"
#include "io_at.h"
#include "io_in.h"
#include "io_out.h"
#include "io_out_path.h"
#include "io_write.h"
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
		char *destdir;	/* dest's directory under dirfd, or NULL */
		dev_t dir_dev;
		ino_t dir_ino;
	} *out;
	size_t n, cap;
	struct made {
		char *path;	/* under dirfd, or AT_FDCWD */
		int dirfd;
	} *dirs;
	size_t ndirs, capdirs;
} together;

void io_out_together(void)
{
	together.on = true;
}

/* tmp, a name in dirfd, renamed to dest in destdir under dirfd (NULL:
 * dirfd itself), reached again one name at a time and only while it is
 * still the directory of dev and ino: 0, or -1 with errno (ESTALE: it is
 * another now, or no directory). */
static int rename_under(int dirfd, const char *tmp, const char *destdir,
			dev_t dev, ino_t ino, const char *dest)
{
	struct stat st;
	int to, rc, saved;

	if (!destdir)
		return renameat(dirfd, tmp, dirfd, dest);
	to = io_at_walk(dirfd, destdir, strlen(destdir));
	if (to < 0) {
		if (errno == ENOTDIR || errno == ELOOP || errno == ENOENT)
			errno = ESTALE;
		return -1;
	}
	if (fstat(to, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
		close(to);
		errno = ESTALE;
		return -1;
	}
	rc = renameat(dirfd, tmp, to, dest);
	saved = errno;
	close(to);
	errno = saved;
	return rc;
}

/* A rename of an output made under a directory that failed: the record. */
static int rename_failed(struct err *e, const char *path, const char *destdir,
			 int errnum)
{
	if (errnum == ESTALE && destdir)
		return err_code_file(e, ERR_CHANGED, 0, path, "its directory "
				     "changed since the output was made in it: "
				     "not written");
	return err_sys(e, path, errnum);
}

int io_out_together_end(bool ok, struct err *e)
{
	struct io_commit *c = NULL;
	sigset_t all, was;
	int rc = 0;

	if (ok && together.n &&
	    !(c = calloc(together.n, sizeof(*c))))
		rc = err_nomem(e);
	/* All renamed or none: a signal waits till the last is (and then
	 * finds no temporary to remove). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	for (size_t i = 0; c && i < together.n; i++) {
		struct held *h = &together.out[i];

		c[i] = (struct io_commit){
			.dirfd = h->dirfd, .tmp = h->tmp, .dest = h->dest,
			.path = h->path, .destdir = h->destdir,
			.dir_dev = h->dir_dev, .dir_ino = h->dir_ino,
			.expect = h->expect, .dev = h->dev, .ino = h->ino,
		};
	}
	if (c && rc == 0)
		rc = io_commit_all(c, together.n, e);
	for (size_t i = 0; i < together.n; i++) {
		struct held *h = &together.out[i];

		/* (io_commit_all left none) */
		if (!c)
			unlinkat(h->dirfd, h->tmp, 0);
		io_pending_remove(h->tmp);
		free(h->tmp);
		free(h->dest);
		free(h->path);
		free(h->destdir);
	}
	/* Deepest first: each was made after its parent. */
	for (size_t i = together.ndirs; i-- > 0;) {
		struct made *d = &together.dirs[i];

		if (!ok || rc < 0)
			(void)(d->dirfd == AT_FDCWD ? rmdir(d->path)
			       : io_at_rmdir(d->dirfd, d->path));
		io_pending_remove_dir(d->path);
		free(d->path);
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	free(c);
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

	if (!grow_array((void **)&together.out, &together.cap, together.n,
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
	h->destdir = o->destdir;
	h->dir_dev = o->dir_dev;
	h->dir_ino = o->dir_ino;
	o->tmp = o->dest = o->path = o->destdir = NULL;
	o->at = false;
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
	if (io_out_path_open(o, path, false, e) == 0)
		return 0;
	io_out_discard(o);
	return -1;
}

int io_out_open_replace(struct io_out *o, const char *path, struct err *e)
{
	if (io_out_path_open(o, path, true, e) == 0)
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

/* The temporary of o in o->dirfd, for an output called name, registered
 * for the signal handler with no signal between: 0, or an errno. */
static int temp_at(struct io_out *o, const char *name)
{
	char tmp[300];
	sigset_t all, was;
	int saved = 0;

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
	return o->fd >= 0 ? 0 : saved;
}

/* No temporary could be made for path in the directory dir: never a
 * copy over the file instead, that would change its other links, and a
 * failure would leave it cut short. */
static int temp_failed(const char *dir, const char *path, int errnum,
		       struct err *e)
{
	return err_code_file(e, ERR_SYSTEM, errnum, path, "cannot create a "
			     "file in '%s': %s", dir, strerror(errnum));
}

static int out_open_at(struct io_out *o, int dirfd, const char *name,
		       const char *path, struct err *e)
{
	char dir[ERR_PATH_MAX];
	struct stat st;
	mode_t mask;
	int saved;

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
	if ((saved = temp_at(o, name)) != 0) {
		dir_part(path, dir, sizeof(dir));
		return temp_failed(dir, path, saved, e);
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

/* ---- outputs under a directory descriptor ---- */

/* The part of path (an output's, for messages) that names rel's first
 * end bytes under the directory it is in (that directory when end is 0),
 * when path ends with rel. */
static void shown_prefix(char *buf, size_t n, const char *path,
			 const char *rel, size_t end)
{
	size_t lp = strlen(path), lr = strlen(rel);

	if (lp > lr && !strcmp(path + lp - lr, rel) && path[lp - lr - 1] == '/') {
		size_t k = lp - lr + end;

		/* the directory itself: without its '/', unless it is "/" */
		snprintf(buf, n, "%.*s", (int)(end || k == 1 ? k : k - 1), path);
	} else {
		snprintf(buf, n, "%.*s", (int)end, end ? rel : ".");
	}
}

/* The directory rel[0..len) under dirfd, each name made where it is
 * missing (noted for io_out_together_end and the signal handler) and
 * opened with O_NOFOLLOW: a descriptor (O_PATH) the caller closes, or -1
 * with e filled about path (the output's). */
static int mkdirs_at(int dirfd, const char *rel, size_t len, const char *path,
		     struct err *e)
{
	size_t at = 0;
	int fd = dirfd;

	while (at < len) {
		const char *slash = memchr(rel + at, '/', len - at);
		size_t end = slash ? (size_t)(slash - rel) : len;
		char *d = strndup(rel, end), shown[ERR_PATH_MAX];
		sigset_t all, was;
		struct stat st;
		bool made;
		int sub, saved;

		if (!d || !grow_array((void **)&together.dirs,
				      &together.capdirs, together.ndirs,
				      sizeof(*together.dirs))) {
			free(d);
			if (fd != dirfd)
				close(fd);
			return err_sys(e, path, ENOMEM);
		}
		/* A name, never a way up or nowhere. */
		if (!d[at] || !strcmp(d + at, ".") || !strcmp(d + at, "..")) {
			free(d);
			if (fd != dirfd)
				close(fd);
			return err_sys(e, path, EINVAL);
		}
		/* Made and registered with no signal between: a signal
		 * removes it with the temporaries. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &was);
		made = mkdirat(fd, d + at, 0777) == 0;
		saved = errno;
		if (made && together.on)
			io_pending_add_dir_at(dirfd, d);
		pthread_sigmask(SIG_SETMASK, &was, NULL);
		sub = -1;
		if (made || saved == EEXIST) {
			sub = openat(fd, d + at, O_PATH | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			saved = errno;
		}
		/* What is there and is no directory of ours: a link is
		 * never followed. */
		if (sub < 0 && saved == ENOTDIR &&
		    fstatat(fd, d + at, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			saved = ELOOP;
		if (fd != dirfd)
			close(fd);
		if (made && together.on)
			together.dirs[together.ndirs++] =
				(struct made){ d, dirfd };
		else
			free(d);
		if (sub < 0) {
			shown_prefix(shown, sizeof(shown), path, rel, end);
			if (saved == ELOOP)
				return err_code_file(e, ERR_SYSTEM, ELOOP, path,
						     "'%s' is a symbolic link, "
						     "which is not followed",
						     shown);
			return err_sys_for(e, path, saved, "'%s'", shown);
		}
		fd = sub;
		at = end + (end < len);
	}
	return fd == dirfd ? fcntl(dirfd, F_DUPFD_CLOEXEC, 0) : fd;
}

/* o made ready for an output at rel under dirfd: its directories made
 * and looked at, nothing at its name but a regular file.  0, or -1 with
 * e filled (o to discard). */
static int under_ready(struct io_out *o, int dirfd, const char *rel,
		       const char *path, struct err *e)
{
	const char *slash = strrchr(rel, '/'), *name = slash ? slash + 1 : rel;
	struct stat st;
	int dfd, saved;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!(o->path = strdup(path)) || !(o->dest = strdup(name)) ||
	    (slash && !(o->destdir = strndup(rel, (size_t)(slash - rel)))))
		return err_sys(e, path, ENOMEM);
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return err_sys(e, path, EINVAL);
	o->dirfd = dirfd;
	o->at = true;
	if ((dfd = mkdirs_at(dirfd, rel, slash ? (size_t)(slash - rel) : 0,
			     path, e)) < 0)
		return -1;
	if (fstat(dfd, &st) < 0) {
		saved = errno;
		close(dfd);
		return err_sys(e, path, saved);
	}
	o->dir_dev = st.st_dev;
	o->dir_ino = st.st_ino;
	saved = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
	close(dfd);
	if (saved == 0 && !S_ISREG(st.st_mode))
		return not_regular(&st, path, e);
	return 0;
}

static int out_open_under(struct io_out *o, int dirfd, const char *rel,
			  const char *path, struct err *e)
{
	mode_t mask;
	int saved;

	if (under_ready(o, dirfd, rel, path, e) < 0)
		return -1;
	mask = umask(0);
	umask(mask);
	o->mode = 0666 & ~mask;
	/* The temporary in dirfd itself: reached, and removed, through it
	 * whatever is done to the directories under it meanwhile. */
	if ((saved = temp_at(o, o->dest)) != 0) {
		char dir[ERR_PATH_MAX];

		shown_prefix(dir, sizeof(dir), path, rel, 0);
		return temp_failed(dir, path, saved, e);
	}
	if (fchmod(o->fd, o->mode) < 0)
		return err_sys(e, path, errno);
	return 0;
}

int io_out_open_under(struct io_out *o, int dirfd, const char *rel,
		      const char *path, struct err *e)
{
	if (out_open_under(o, dirfd, rel, path, e) == 0)
		return 0;
	io_out_discard(o);
	return -1;
}

int io_out_move_under(struct io_out *o, const char *rel, const char *path,
		      struct err *e)
{
	struct io_out n;
	int rc = under_ready(&n, o->dirfd, rel, path, e);

	if (rc == 0) {
		free(o->path);
		free(o->dest);
		free(o->destdir);
		o->path = n.path;
		o->dest = n.dest;
		o->destdir = n.destdir;
		o->dir_dev = n.dir_dev;
		o->dir_ino = n.dir_ino;
		return 0;
	}
	free(n.path);
	free(n.dest);
	free(n.destdir);
	return -1;
}

/* A symbolic link to target as o's temporary in o->dirfd, registered as
 * temp_at registers a file: 0, or an errno. */
static int temp_link_at(struct io_out *o, const char *target)
{
	char tmp[300];
	sigset_t all, was;
	int saved = EEXIST;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	for (int tries = 0; saved == EEXIST && tries < 100; tries++) {
		temp_name(tmp, sizeof(tmp), o->dest);
		saved = symlinkat(target, o->dirfd, tmp) == 0 ? 0 : errno;
	}
	if (!saved && !(o->tmp = strdup(tmp))) {
		unlinkat(o->dirfd, tmp, 0);
		saved = ENOMEM;
	}
	if (!saved)
		io_pending_add_at(o->dirfd, o->tmp);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	return saved;
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
		sigset_t all, was;
		int rc, saved;

		/* (no signal between the rename and the temporary's going
		 * from the table) */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &was);
		rc = rename_under(o->dirfd, o->tmp, o->destdir, o->dir_dev,
				  o->dir_ino, o->dest);
		saved = errno;
		if (rc == 0)
			io_pending_remove(o->tmp);
		pthread_sigmask(SIG_SETMASK, &was, NULL);
		if (rc < 0)
			return rename_failed(e, o->path, o->destdir, saved);
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

			if (!d || !grow_array((void **)&together.dirs,
					      &together.capdirs, together.ndirs,
					      sizeof(*together.dirs))) {
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
				together.dirs[together.ndirs++] =
					(struct made){ d, AT_FDCWD };
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
	free(o->destdir);
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
		rc = io_out_path_copy_back(o, e);
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

int io_out_close_kept(struct io_out *o, char *tmp, size_t n, struct err *e)
{
	int rc = io_out_flush(o, e);

	if (rc == 0 && (!o->at || !o->tmp || strlen(o->tmp) >= n))
		rc = err_sys(e, o->path, EINVAL);
	if (rc == 0 && o->holes && ftruncate(o->fd, (off_t)o->pos) < 0)
		rc = err_sys(e, o->path, errno);
	if (rc == 0 && io_input_cut())
		rc = err_code_file(e, ERR_CHANGED, 0, io_input_cut(),
				   "file changed size while being read");
	if (rc == 0 && fchmod(o->fd, o->mode) < 0)
		rc = err_sys(e, o->path, errno);
	if (o->fd > 1 && close(o->fd) < 0 && rc == 0)
		rc = err_sys(e, o->path, errno);
	o->fd = -1;
	if (rc == 0) {
		strcpy(tmp, o->tmp);
		io_pending_remove(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	release(o, rc < 0);
	return rc;
}

void io_out_discard(struct io_out *o)
{
	if (o->fd > 1)
		close(o->fd);
	release(o, true);
}

int io_out_symlink_under(int dirfd, const char *rel, const char *target,
			 const char *path, struct err *e)
{
	struct io_out o;
	int rc = -1, saved;

	if (under_ready(&o, dirfd, rel, path, e) < 0)
		goto out;
	if ((saved = temp_link_at(&o, target)) != 0) {
		char dir[ERR_PATH_MAX];

		shown_prefix(dir, sizeof(dir), path, rel, 0);
		temp_failed(dir, path, saved, e);
		goto out;
	}
	if (together.on) {
		if (hold(&o) < 0)
			err_sys(e, path, ENOMEM);
		else
			rc = 0;
	} else if ((rc = commit_at(&o, e)) == 0) {
		release(&o, false);
	}
out:
	io_out_discard(&o);
	return rc;
}
