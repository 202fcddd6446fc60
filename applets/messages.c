/* messages: our own applets' error lines; see messages.h. */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "../core/io_in.h"

int applet_fail(const char *applet, const char *what, const char *file,
		const char *fmt, ...)
{
	const char *cut = io_input_cut();
	char *shown, *why;
	va_list ap;

	/* Whatever failed, it failed on the zeros read where an input was
	 * cut short under us (core/io_in.c): that is the error. */
	if (cut) {
		io_input_cut_clear();
		return applet_fail(applet, "cannot read", cut,
				   "file changed size while being read");
	}
	fflush(stdout);
	/* One line, whatever the names hold (a tree walked may hold a name
	 * with a newline or an escape sequence): the file as ls shows it,
	 * the control bytes of the reason as \xHH. */
	shown = file ? applet_escape(file, strlen(file), false) : NULL;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	fprintf(stderr, "offload %s: error: %s%s'%s': ", applet,
		what ? what : "", what ? " " : "", shown ? shown : file);
	for (const char *c = why ? why : "out of memory"; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			fprintf(stderr, "\\x%02x", (unsigned char)*c);
		else
			fputc(*c, stderr);
	fputc('\n', stderr);
	free(shown);
	free(why);
	return 1;
}

int applet_fail_err(const char *applet, const char *what, const char *file,
		    int for_output, const struct err *e)
{
	const char *shown = e->path[0] ? e->path : file;

	return applet_fail(applet, what, err_display_path(shown, for_output),
			   "%s", e->path[0] ? e->why : e->msg);
}

int applet_fail_io(const char *applet, const char *out, const struct err *e)
{
	bool about_out = !e->path[0] || err_names(e, out);

	return applet_fail_err(applet, about_out ? "cannot write" : "cannot read",
			       out, about_out, e);
}

char *applet_escape(const char *s, size_t len, bool space)
{
	char *out = malloc(4 * len + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || c == '\\' || (space && c == ' '))
			o += sprintf(o, c == '\\' ? "\\\\" : "\\x%02x", c);
		else
			*o++ = (char)c;
	}
	*o = 0;
	return out;
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

/* The long options name starts (up to its '=') or, where exact, is. */
static const struct option *long_match(const struct option *longopts,
				       const char *name, size_t len,
				       int *count)
{
	const struct option *found = NULL;

	*count = 0;
	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len) {
			*count = 1;
			return o;
		}
		found = o;
		++*count;
	}
	return found;
}

int applet_option_error(const char *applet, int c, char **argv,
			const struct option *longopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	size_t len = strcspn(arg, "=");
	const struct option *o = NULL;
	int count = 0;

	/* A long option is argv[optind - 1]; a short one may be inside a
	 * cluster getopt has not left yet: it is optopt, and a long option
	 * before it is no match for optopt. */
	if (!strncmp(arg, "--", 2) && len > 2)
		o = long_match(longopts, arg + 2, len - 2, &count);
	if (c == ':' && !strncmp(arg, "--", 2))
		return applet_usage_error(applet, "option '%.*s' needs a value",
					  (int)len, arg);
	if (c == ':')
		return applet_usage_error(applet, "option '-%c' needs a value",
					  optopt);
	if (optopt == 0 && count > 1)
		return applet_usage_error(applet, "ambiguous option '%.*s'",
					  (int)len, arg);
	if (optopt == 0)
		return applet_usage_error(applet, "unknown option '%.*s'",
					  (int)len, arg);
	if (o && count == 1 && o->val == optopt && arg[len] == '=')
		return applet_usage_error(applet, "option '--%s' takes no "
					  "value", o->name);
	return applet_usage_error(applet, "unknown option '-%c'", optopt);
}
