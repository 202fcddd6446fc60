/* io_signal: the signal handlers that remove the temporaries of outputs
 * still open before the signal ends us (see io_install_signal_cleanup). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io_at.h"
#include "io_in.h"
#include "io_signal.h"

static size_t page_size = 4096;

/* Temporaries that a signal must remove: tables of a fixed size, linked,
 * one more allocated when all are full (a command whose outputs commit
 * together holds them all), never freed: the signal handler walks them
 * without allocating or locking.  Signals are blocked around an add
 * (io_out.c), so a table is linked in whole.  Where to look first is
 * kept (the first slot that may be free, the slot after the last one
 * emptied), so that adding and removing tens of thousands, in the order
 * outputs come and commit, takes no longer than a few. */
enum { PENDING_BLOCK = 256 };
struct pending_block {
	char *volatile tmp[PENDING_BLOCK];
	/* The directory tmp is a name in (AT_FDCWD: a path): unlinkat is
	 * safe in a signal handler, and never follows a path that may lead
	 * elsewhere now. */
	int volatile dirfd[PENDING_BLOCK];
	struct pending_block *volatile next;
	size_t base;		/* the blocks before it, times PENDING_BLOCK */
};
static struct pending {
	struct pending_block head;
	struct pending_block *free_b, *last_b;
	int free_i, last_i;
} pending, pending_dirs;

static void block_add(struct pending *t, int dirfd, char *tmp)
{
	struct pending_block *b = t->free_b ? t->free_b : &t->head;
	int i = t->free_b ? t->free_i : 0;

	for (;; i = 0) {
		for (; i < PENDING_BLOCK; i++)
			if (!b->tmp[i]) {
				b->dirfd[i] = dirfd;
				b->tmp[i] = tmp;
				t->free_b = b;
				t->free_i = i + 1;
				return;
			}
		if (!b->next) {
			struct pending_block *n = calloc(1, sizeof(*n));

			if (!n)
				return;	/* SIGKILL's case: it stays */
			n->base = b->base + PENDING_BLOCK;
			b->next = n;
		}
		b = b->next;
	}
}

/* The slot of tmp, looked for from the one after the last emptied to the
 * end, then from the start: emptied, 0; -1 when not there. */
static int take(struct pending *t, struct pending_block *from, int at,
		const char *tmp)
{
	for (struct pending_block *b = from; b; b = b->next, at = 0)
		for (int i = at; i < PENDING_BLOCK; i++) {
			if (b->tmp[i] != tmp)
				continue;
			b->tmp[i] = NULL;
			t->last_b = b;
			t->last_i = i + 1;
			/* Before the first that may be free: it is now. */
			if (!t->free_b ||
			    b->base + (size_t)i < t->free_b->base +
			    (size_t)t->free_i) {
				t->free_b = b;
				t->free_i = i;
			}
			return 0;
		}
	return -1;
}

static void block_remove(struct pending *t, const char *tmp)
{
	if (t->last_b && take(t, t->last_b, t->last_i, tmp) == 0)
		return;
	take(t, &t->head, 0, tmp);
}

void io_pending_add(char *tmp)
{
	block_add(&pending, AT_FDCWD, tmp);
}

void io_pending_add_at(int dirfd, char *tmp)
{
	block_add(&pending, dirfd, tmp);
}

void io_pending_remove(const char *tmp)
{
	block_remove(&pending, tmp);
}

void io_pending_add_dir(char *dir)
{
	block_add(&pending_dirs, AT_FDCWD, dir);
}

void io_pending_add_dir_at(int dirfd, char *rel)
{
	block_add(&pending_dirs, dirfd, rel);
}

void io_pending_remove_dir(const char *dir)
{
	block_remove(&pending_dirs, dir);
}

/* rmdir of each directory still pending, till a pass removes none: one
 * is empty once those made in it are gone, whatever their order. */
static void remove_dirs(void)
{
	bool again = true;

	while (again) {
		again = false;
		for (struct pending_block *b = &pending_dirs.head; b;
		     b = b->next)
			for (int i = PENDING_BLOCK; i-- > 0;)
				if (b->tmp[i] && (b->dirfd[i] == AT_FDCWD ?
						  rmdir(b->tmp[i]) :
						  io_at_rmdir(b->dirfd[i],
							      b->tmp[i])) == 0) {
					b->tmp[i] = NULL;
					again = true;
				}
	}
}

/* A directory staged whole (an image layout) and renamed at the end:
 * what is in it is removed too, by getdents64 and unlinkat alone (no
 * allocation in a signal handler), a few levels deep. */
static char *volatile pending_tree;

void io_pending_tree(char *dir)
{
	pending_tree = dir;
}

/* name in dirfd removed, a directory with what is in it (depth levels
 * of them): 0, or -1 when something stays. */
static int remove_tree_at(int dirfd, const char *name, int depth)
{
	char buf[2048];		/* this level's entries (a few at a time) */
	bool removed = true;
	int fd;

	if (unlinkat(dirfd, name, 0) == 0)
		return 0;
	if (depth == 0 || (fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY |
					O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	/* Read again from the start while a pass removes something. */
	while (removed) {
		long n;

		removed = false;
		lseek(fd, 0, SEEK_SET);
		n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
			    remove_tree_at(fd, d->d_name, depth - 1) == 0)
				removed = true;
		}
	}
	close(fd);
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

static volatile sig_atomic_t *volatile deferred;

void io_signal_defer(volatile sig_atomic_t *flag)
{
	deferred = flag;
}

static bool a_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS ||
	       sig == SIGABRT;
}

static void cleanup_and_die(int sig);

void io_signal_die(int sig)
{
	sigset_t one;

	deferred = NULL;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	cleanup_and_die(sig);
}

static void on_signal(int sig)
{
	volatile sig_atomic_t *flag = deferred;

	if (flag && !a_fault(sig)) {
		if (!*flag)
			*flag = sig;
		return;
	}
	cleanup_and_die(sig);
}

static void cleanup_and_die(int sig)
{
	for (struct pending_block *b = &pending.head; b; b = b->next)
		for (int i = 0; i < PENDING_BLOCK; i++)
			if (b->tmp[i])
				unlinkat(b->dirfd[i], b->tmp[i], 0);
	remove_dirs();
	if (pending_tree)
		remove_tree_at(AT_FDCWD, pending_tree, 4);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The page size, for io_in_fault: read once, before a handler that
 * needs it is installed (sysconf is no call for a signal handler). */
static void know_page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	if (page > 0)
		page_size = (size_t)page;
}

/* Whether the SIGBUS of si was a read of a mapped input past its file's
 * end, now gone on over zero pages (io_in_fault): the one test of both
 * handlers, the tool's and the library's. */
static bool sigbus_was_a_cut(const siginfo_t *si)
{
	return io_in_fault(si->si_addr, page_size);
}

/* The tool's: any other SIGBUS is deadly. */
static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (sigbus_was_a_cut(si))
		return;
	cleanup_and_die(sig);
}

/* 0, or -1 with errno set (sigaction's). */
static int set_sigbus(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	/* (on the alternate stack where the process has one, as Python's
	 * faulthandler does) */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL);
}

/* The library's (io_catch_sigbus): any other SIGBUS goes to the handler
 * that was there before, or does what its disposition says. */
static struct sigaction sigbus_before;

static void on_sigbus_chained(int sig, siginfo_t *si, void *ctx)
{
	const struct sigaction *b = &sigbus_before;

	if (sigbus_was_a_cut(si))
		return;
	if (b->sa_flags & SA_SIGINFO) {
		b->sa_sigaction(sig, si, ctx);
		return;
	}
	if (b->sa_handler == SIG_IGN && si->si_code <= 0)
		return;		/* sent (kill), and ignored */
	if (b->sa_handler != SIG_DFL && b->sa_handler != SIG_IGN) {
		b->sa_handler(sig);
		return;
	}
	/* The default (a fault cannot be ignored: the kernel kills for it
	 * too): it is the disposition again, and the signal, blocked while
	 * this runs, is taken when this returns (a fault's own instruction
	 * would fault again). */
	signal(sig, SIG_DFL);
	raise(sig);
}

static pthread_once_t sigbus_once = PTHREAD_ONCE_INIT;
static int sigbus_errno;

static void catch_sigbus_once(void)
{
	know_page_size();
	if (sigaction(SIGBUS, NULL, &sigbus_before) < 0 ||
	    set_sigbus(on_sigbus_chained) < 0)
		sigbus_errno = errno;
}

int io_catch_sigbus(void)
{
	pthread_once(&sigbus_once, catch_sigbus_once);
	return sigbus_errno;
}

/* Every signal whose default action ends the process (POSIX's "T" and
 * "A" signals, and Linux's own), but SIGKILL and SIGXFSZ. */
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
	sa.sa_handler = on_signal;
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

	struct sigaction old;

	know_page_size();
	io_input_cut_track();
	for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
		catch_signal(deadly[i]);
	if (sigaction(SIGBUS, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		set_sigbus(on_sigbus);
#if defined(SIGRTMIN) && defined(SIGRTMAX)
	/* Real-time signals end the process too (glibc keeps the first few
	 * for itself; SIGRTMIN is the first left to us). */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		catch_signal(sig);
#endif
}

