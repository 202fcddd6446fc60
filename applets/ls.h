/* ls: what the parts of the ls applet share: the command (ls.c), its
 * text and JSON printers (ls_text.c, ls_json.c), kernels (ls_kernels.c)
 * and cuobjdump's lines (ls_cuobjdump.c). */
#ifndef APPLETS_LS_H
#define APPLETS_LS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/select.h"
#include "../ops/inspect.h"
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
	/* NVIDIA entries: the identifier and ptxas options (in strings;
	 * NULL when the header has none), as n.nv's offsets point to them
	 * in the fatbin, which is gone after the walk. */
	const char *nv_ident, *nv_options;
	/* --kernels, entries only: what their code holds (NULL when not a
	 * code object the kernel readers know, or not at hand), or why it
	 * could not be read. */
	struct kernel_list *kernels;
	char *kernels_why;
};

struct rows {
	struct row *v;
	size_t n, cap;
	bool kernels;		/* read each entry's kernels */
	bool demangle;
	struct select *targets;	/* only of the entries these take (-t) */
	/* Entries become lines of their container's text as they come,
	 * instead of rows (the text format, without --kernels). */
	bool entries_as_text;
	const char *path;
	FILE *later;	/* failures said after the file (or NULL) */
};

/* ls_kernels.c: whether -t takes an entry; read the kernels of an
 * entry's code, or of a whole file that is itself a code object, into r
 * (nothing when it is none; r->kernels_why when damaged): -1 only when out
 * of memory; print r's kernels in text, indented. */
bool ls_wanted(const struct rows *rs, const struct inspect_node *n);
void ls_drop_unselected(struct rows *rs);
int ls_entry_kernels(struct row *r, const struct inspect_node *n);
int ls_file_kernels(struct row *r, const uint8_t *data, size_t len);
void ls_print_kernels(FILE *out, const struct rows *rs, const struct row *r,
		      int indent);
/* What a file that is itself a code object is, after its file type:
 * ": a code object for gfx90a:xnack+ (code object v5)", "... for sm_80
 * (cubin)", ": PTX 8.7 for sm_90"; one that cannot be read says why. */
void ls_describe_code(const struct row *r);
/* A kernel's name as ls prints it: demangled unless --no-demangle
 * (malloc'd; NULL when out of memory). */
char *ls_kernel_name(const struct rows *rs, const char *name);

/* ls_cuobjdump.c: print the lines cuobjdump -lelf -lptx prints for the
 * file buf (rs: its path and -t): 0, or 1 when it holds no NVIDIA device
 * code (cuobjdump fails then), -1 with e filled when the walk fails. */
int ls_cuobjdump(const struct rows *rs, const uint8_t *buf, size_t len,
		 const struct inspect_opts *walk, struct err *e);
/* ls_rows.c: whether row i has anything under it (rows, or entries kept
 * as text); whether it is shown (archive members without device code are
 * left out). */
bool ls_has_children(const struct rows *rs, size_t i);
bool ls_shown(const struct rows *rs, size_t i);
/* ls_text.c: format the entry n into the text of the container last
 * kept in rs (see struct entry_text): -1 only when out of memory; one
 * file's tree as text. */
int ls_entry_as_text(struct rows *rs, const struct inspect_node *n);
void ls_text(const struct rows *rs, const char *path);
/* ls_rows.c: fill r with the node n, its strings copied (-1: out of
 * memory); free what r holds.  Why r's kernels cannot be read, as ls
 * says it after "cannot read kernels in 'FILE': " (malloc'd). */
int ls_row_fill(struct row *r, const struct inspect_node *n);
void ls_row_free(struct row *r);
char *ls_kernels_unread(const struct row *r);

/* ls_json.c: one file's tree as a JSON object (see man/offload-ls.1),
 * printed as the walk goes: ls_json_visit is the walk's visitor, and
 * memory is the nodes open above the one printed, whatever the number of
 * entries.  A node is held only until something under it is printed. */
struct ls_json_level {
	struct row r;
	bool shown;		/* its opening and fields are printed */
	bool first;		/* no key printed in it yet */
	bool any;		/* something printed in the array open */
	int array;		/* the array open (see arrays_of), -1: none */
	/* Containers: entries listed; NVIDIA entries that do not decode
	 * (--verify): how many, the first and why, their indexes. */
	size_t listed, bad;
	unsigned first_bad;
	char *first_why;
	char bad_list[64];
};
struct ls_json {
	const struct rows *rs;	/* options: kernels, demangle, -t */
	const char *path;
	const uint8_t *data;	/* the file */
	size_t len;
	bool comma;		/* a file was printed before: a comma first */
	bool printed;		/* this one is printed */
	bool walked, oom;
	FILE *errs;		/* failures, said once the file is printed */
	int rc;
	struct ls_json_level *lv;	/* by depth */
	size_t n, cap;
};
int ls_json_visit(void *ctx, const struct inspect_node *n);
/* Close what is open (walked: the walk ended well); 0, 1 when something
 * failed (in js->errs), -1 when out of memory. */
int ls_json_end(struct ls_json *js, bool walked);
/* A directory's object (format "directory", not searched). */
void ls_json_directory(const char *path);

#endif
