/* ls_types: what the parts of the ls applet share: the command (ls.c)
 * calls its text and JSON printers (ls_text.c, ls_json.c), cuobjdump's
 * lines (ls_cuobjdump.c), kernels (ls_kernels.c) and rows (ls_rows.c);
 * each declares its functions in its own header.  The text listing reads
 * the public walk (ls_text.h's items); a row, of the internal walk's
 * nodes, is what --json, kpack's lines and cuobjdump's still read. */
#ifndef APPLETS_LS_TYPES_H
#define APPLETS_LS_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/err.h"
#include "../core/select.h"
#include "../ops/inspect.h"
#include "../ops/kind.h"
#include "../formats/kernels.h"

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

/* A node as the walk reported it, with its strings copied. */
struct row {
	struct entry_text *text;	/* a container's entries, or NULL */
	struct inspect_node n;
	char *strings;
	char *why;		/* n.decode_err's message, or NULL */
	/* What the kind keeps of an entry beyond the walk (kind.h's
	 * details: an NVIDIA entry's identifier and ptxas options, which
	 * n.nv's offsets point to in the fatbin, gone after the walk), in
	 * strings, NUL-terminated; s NULL: none.  For --json. */
	struct kind_text detail[KIND_DETAILS];
	/* --kernels, entries only: what their code holds (NULL when not a
	 * code object the kernel readers know, or not at hand), or why it
	 * could not be read. */
	struct kernel_list *kernels;
	char *kernels_why;
	enum err_code kernels_code;	/* what kind of damage (see kernels_why) */
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
