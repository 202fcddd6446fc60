/* llvmtool: LLVM's help listings and WithColor lines; see llvmtool.h. */
#include <stdio.h>
#include <string.h>

#include "llvmtool.h"

void llvm_print_help(const struct help_line *lines, size_t n, int which,
		     const char *tool)
{
	if (which & (L | LH)) {
		for (size_t i = 0; i < n; i++)
			if (lines[i].show & which)
				fputs(lines[i].text, stdout);
		return;
	}
	fputs("\nGeneric Options:\n\n", stdout);
	for (size_t i = 0; i < n; i++)
		if (lines[i].generic && (lines[i].show & which))
			fputs(lines[i].text, stdout);
	printf("\n%s options:\n\n", tool);
	for (size_t i = 0; i < n; i++)
		if (!lines[i].generic && (lines[i].show & which))
			fputs(lines[i].text, stdout);
}

void llvm_report(const char *prefix, const char *kind, bool color,
		 const char *fmt, va_list ap)
{
	const char *code = !strcmp(kind, "error") ? "\033[0;1;31m"
						  : "\033[0;1;35m";

	if (prefix)
		fprintf(stderr, "%s: ", prefix);
	fprintf(stderr, "%s%s: %s", color ? code : "", kind,
		color ? "\033[0m" : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}
