/* llvmtool: what the LLVM-named applets (bundler, packager) share with
 * LLVM's tools: the four --help listings of LLVM's cl library and the
 * error and warning lines of its WithColor. */
#ifndef APPLETS_LLVMTOOL_H
#define APPLETS_LLVMTOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* In which listings a help line appears: --help, --help-hidden,
 * --help-list, --help-list-hidden. */
enum { H = 1, HH = 2, L = 4, LH = 8, ALL = H | HH | L | LH };

struct help_line {
	const char *text;
	int generic;	/* under "Generic Options:" */
	int show;	/* H, HH, L, LH */
};

/* The option lines of one listing, after the overview the caller printed:
 * flat for L and LH, else generic options first, then the tool's under
 * "<tool> options:". */
void llvm_print_help(const struct help_line *lines, size_t n, int which,
		     const char *tool);
/* "<prefix>: " (without a prefix, nothing), then "<kind>: " in kind's
 * colour when color is set (the space inside the colour, as WithColor
 * does), then the message and a newline.  kind: "error" or "warning". */
void llvm_report(const char *prefix, const char *kind, bool color,
		 const char *fmt, va_list ap);

#endif
