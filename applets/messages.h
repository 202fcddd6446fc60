/* messages: how our own applets (not the LLVM-named ones, which print what
 * LLVM prints) report a failure: one line on stderr,
 *   offload <applet>: error: [<what> ]'<file>': <why>
 * and, for a usage error, a pointer to --help and exit status 2. */
#ifndef APPLETS_MESSAGES_H
#define APPLETS_MESSAGES_H

/* Returns 1.  what may be NULL.  Standard output is flushed first, so a
 * listing and its error come out in order. */
int applet_fail(const char *applet, const char *what, const char *file,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Returns 2. */
int applet_usage_error(const char *applet, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
