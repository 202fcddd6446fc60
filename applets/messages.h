/* messages: how our own applets (not the LLVM-named ones, which print what
 * LLVM prints) report a failure: one line on stderr,
 *   offload <applet>: error: [<what> ]'<file>': <why>
 * and, for a usage error, a pointer to --help and exit status 2. */
#ifndef APPLETS_MESSAGES_H
#define APPLETS_MESSAGES_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"

/* Returns 1.  what may be NULL.  Standard output is flushed first, so a
 * listing and its error come out in order.  The line is one line: file
 * as applet_escape shows it, the control bytes of the reason as \xHH. */
int applet_fail(const char *applet, const char *what, const char *file,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Report a failure e describes: "<what> '<file>': <why>" with the file
 * e names (or file when it names none; then the whole message is the
 * reason), "-" shown as standard output or input.  Returns 1. */
int applet_fail_err(const char *applet, const char *what, const char *file,
		    int for_output, const struct err *e);
/* A failure while writing out: "cannot write '<out>'" when e is about
 * out (or no file), "cannot read '<file e names>'" when an input failed
 * under the copy. */
int applet_fail_io(const char *applet, const char *out, const struct err *e);
/* s (len bytes, any bytes) as it may go to a terminal or a line-based
 * reader: control bytes as \xHH and '\' as \\, and spaces too when a
 * script splits the line at them (space).  malloc'd. */
char *applet_escape(const char *s, size_t len, bool space);
/* Returns 2. */
int applet_usage_error(const char *applet, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The usage error for an option getopt_long refused: c is what it
 * returned (':' for a missing value, with optstring starting with ':' and
 * opterr 0; '?' else).  "unknown option '-z'", "unknown option '--frob'",
 * "ambiguous option '--ke'", "option '-o' needs a value", "option
 * '--json' takes no value".  Returns 2. */
int applet_option_error(const char *applet, int c, char **argv,
			const struct option *longopts);

#endif
