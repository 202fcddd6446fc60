/* messages: our own applets' error lines; see messages.h. */
#include <stdarg.h>
#include <stdio.h>

#include "messages.h"

int applet_fail(const char *applet, const char *what, const char *file,
		const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "offload %s: error: %s%s'%s': ", applet,
		what ? what : "", what ? " " : "", file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int applet_usage_error(const char *applet, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "offload %s: error: ", applet);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'offload %s --help'.\n", applet);
	return 2;
}
