/* llvmtool: the one context of an LLVM-named applet (bundler, packager):
 * what LLVM's tools share through its cl and support libraries.  Its name
 * and colour for the error and warning lines WithColor prints, the
 * options every LLVM tool has and its four --help listings, and paths as
 * sys::path sees them.  One such applet runs in a process: llvm_tool_parse
 * starts the context that llvm_fail and llvm_warn use. */
#ifndef APPLETS_LLVMTOOL_H
#define APPLETS_LLVMTOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/clopt.h"
#include "../core/env.h"
#include "../core/err.h"

/* The help listings: --help, --help-hidden, --help-list,
 * --help-list-hidden. */
enum { H = 1, HH = 2, L = 4, LH = 8, ALL = H | HH | L | LH };

/* A tool's option table is in the order of LLVM's option map, which breaks
 * ties between equally close "Did you mean" suggestions.  The options every
 * LLVM tool has are rows the tool leaves empty (no name), which the map
 * iterates in the order of generic_rows in llvmtool.c (help, help-hidden,
 * version, ...; as measured for both tools), and the last LLVM_TAIL_COUNT
 * rows: in this order -h and libLLVM's own options, accepted and ignored
 * but for --color, never suggested (LLVM accepts thousands more: its pass
 * options). */
enum { LLVM_TAIL_H, LLVM_TAIL_COLOR, LLVM_TAIL_COUNT = 9 };

struct llvm_tool {
	const char *name;	/* "clang-offload-bundler": --version, help */
	const char *overview;	/* printf format; %s: the program's name */
	struct clopt *o;	/* the tool's options, those with a desc in
				 * every listing */
	size_t n;
	enum llvm_release release;	/* the release followed: --version */
};

/* Fill the generic rows of t->o: its empty rows and its tail. */
void llvm_generic_options(const struct llvm_tool *t);
/* Parse argv into t->o as LLVM's cl does, print its diagnostics and start
 * the context (argv[0], --color).  Then --help and --version are done
 * here: 0.  A command line that failed: 1.  Else -1: the tool goes on
 * (with -h, an LLVM_TAIL_H it handles itself, in its place). */
int llvm_tool_parse(const struct llvm_tool *t, int argc, char **argv,
		    struct clopt_result *res);
/* The listing which (H, HH, L or LH) for program prog. */
void llvm_tool_help(const struct llvm_tool *t, const char *prog, int which);

/* "<argv0>: error: ..." as LLVM's WithColor prints it (in the terminal's
 * colour, unless --color says otherwise); returns 1.  Whatever failed,
 * an input cut short under us (core/io_in.c) is named instead. */
int llvm_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A failure e while writing the output at path, written in place
 * (standard output, a device) or not: in place, LLVM's raw_fd_ostream's
 * words, "LLVM ERROR: IO failure on output stream: <why>"; to a file
 * (where LLVM's mapped output buffer dies of SIGBUS), the path and why.
 * Any other failure as llvm_fail(llvm_why(e, path)).  Returns 1. */
int llvm_fail_write(const struct err *e, const char *path, bool in_place);
/* While on, the first failure is kept instead of printed (the bundler
 * judges what comes out of a CCOB being decompressed only once the whole
 * CCOB proved good, as LLVM decompresses first).  llvm_deferred prints it
 * and returns 1, or returns 0. */
void llvm_defer(bool on);
int llvm_deferred(void);
void llvm_deferred_drop(void);
/* LLVM's timers (Timer, TimerGroup), as its tools print them at exit:
 * llvm_timer_mark starts the clocks (user, system, wall), llvm_timer_add
 * records the time since the mark under a name; llvm_timers_print prints
 * the group's table to stderr, longest wall time first, when anything was
 * recorded, and forgets the records. */
void llvm_timer_mark(void);
void llvm_timer_add(const char *name);
void llvm_timers_print(const char *group);

/* "<argv0>: warning: ...". */
void llvm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "warning: ...", as LLVM's libraries warn, without a program name. */
void llvm_warn_plain(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* e's message without the "'<path>': " io puts in front when a system
 * call on path failed, nor the context err_sys_for adds: LLVM names no
 * file (nor directory) when an image or an output cannot be opened.  Our
 * own reasons keep the name. */
const char *llvm_why(const struct err *e, const char *path);

/* LLVM's sys::path: the file name; its extension without the dot (NULL
 * when none); the name without its extension (malloc'd). */
const char *llvm_path_filename(const char *path);
const char *llvm_path_extension(const char *path);
char *llvm_path_stem(const char *path);

#endif
