/* ls_types: what the parts of the ls applet share: the command (ls.c)
 * calls its text and JSON printers (ls_text.c, ls_json.c), cuobjdump's
 * lines (ls_cuobjdump.c), kpack's (ls_kpack.c, ls_json_kpack.c) and
 * kernels (ls_kernels.c, ls_json_node.c); each declares its functions in
 * its own header.  All but cuobjdump's lines read the public library
 * alone (the walk, offcode_split, offcode_code_kernels). */
#ifndef APPLETS_LS_TYPES_H
#define APPLETS_LS_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/select.h"
#include "../include/offcode.h"

/* The entry lines of one container, already formatted (text listings):
 * each line's cells one after another, each with a NUL, and the width of
 * each column.  A listing then costs memory in proportion to what it
 * prints, not a row per entry. */
enum { LS_MAX_CELLS = 7 };
struct entry_text {
	char *buf;
	size_t len, cap, n;
	size_t w[LS_MAX_CELLS];
	int ncells, right;
	bool tails;	/* each line's cells are followed by the text under
			 * it (--kernels), printed as it is */
};

/* --kernels: the kernels of a code object (an entry's, or a file that is
 * one), read by ls_kernels.h's ls_code_kernels. */
struct code_kernels {
	offcode_kernels *list;	/* NULL when not a code object the kernel
				 * readers know, not at hand, or damaged */
	offcode_error *error;	/* why a damaged one cannot be read, or NULL */
};

/* What the parts are asked for (the options of one file's listing). */
struct rows {
	bool kernels;		/* read each entry's kernels */
	bool verify;		/* check each kpack entry's code */
	bool demangle;
	struct select *targets;	/* only of the entries these take (-t) */
	/* Entries become lines of their container's text as they come,
	 * instead of rows (the text format, without --kernels). */
	bool entries_as_text;
	const char *path;
	FILE *later;	/* failures said after the file (or NULL) */
};

#endif
