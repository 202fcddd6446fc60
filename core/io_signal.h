/* io_signal: the signal handlers that remove temporaries (io_signal.c). */
#ifndef CORE_IO_SIGNAL_H
#define CORE_IO_SIGNAL_H

#include <signal.h>

/* Remove every temporary still open and die by sig: installed for every
 * signal whose default action ends the process (SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE, SIGQUIT, SIGUSR1, SIGALRM, SIGSEGV, the real-time signals...)
 * but SIGKILL, unless the signal was inherited ignored; SIGXFSZ is ignored
 * instead, so that a write past RLIMIT_FSIZE fails with EFBIG and takes
 * the normal error path.  What SIGKILL leaves is named .NAME.XXXXXX beside
 * the output NAME (see offload(1)).  SIGBUS at an address inside a mapped
 * input is not deadly: the file shrank, the read goes on over zero pages
 * and io_input_cut names the file. */
void io_install_signal_cleanup(void);
/* The same for a SIGBUS in a mapped input alone, for a library's process
 * (no temporaries removed, no other signal touched): installed once,
 * whatever the threads that ask; any other SIGBUS goes to the handler that
 * was there before, or to what its disposition says (the default: the
 * process dies of it).  0, or the errno of sigaction. */
int io_catch_sigbus(void);

/* While flag is set (a command that must undo more than the table holds
 * before it ends: prune -r's parent, its workers' temporaries), a deadly
 * signal sent to us (none of the faults: SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGTRAP, SIGSYS, SIGABRT) is noted in *flag, not acted on; the
 * caller cleans up and calls io_signal_die.  NULL: acted on again. */
void io_signal_defer(volatile sig_atomic_t *flag);
/* Remove every temporary still open and die by sig, as the handler
 * does. */
void io_signal_die(int sig);

/* Temporaries a deadly signal removes (io_signal.c); a fixed table, so
 * that a signal handler need not allocate. */
void io_pending_add(char *tmp);
void io_pending_remove(const char *tmp);
/* The same for a temporary that is the name tmp in directory dirfd,
 * which must stay open while it is pending (removed by
 * io_pending_remove). */
void io_pending_add_at(int dirfd, char *tmp);
/* The same for a directory made for them, removed (when empty) after
 * them. */
void io_pending_add_dir(char *dir);
/* The same for a directory made in dirfd: rel a path of names under it,
 * reached one name at a time, never through a link (io_at_walk). */
void io_pending_add_dir_at(int dirfd, char *rel);
void io_pending_remove_dir(const char *dir);
/* A directory a deadly signal removes with all in it (four levels at
 * most): one at a time, NULL for none; set with signals blocked. */
void io_pending_tree(char *dir);

#endif
