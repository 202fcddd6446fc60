/* err: the error record that core/ and formats/ fill and applets print. */
#ifndef CORE_ERR_H
#define CORE_ERR_H

#include <stdbool.h>
#include <stdint.h>

/* What kind of failure, for callers that act on it (never by matching
 * text).  Failures no caller tells apart are ERR_OTHER. */
enum err_code {
	ERR_OTHER = 0,
	ERR_SYSTEM,	/* a system call failed on path: errnum says why */
	ERR_TRUNCATED,	/* the data ends before what it declares */
	ERR_MALFORMED,	/* the data is not of the format it claims */
	ERR_DECOMPRESS,	/* a codec refused the data */
	ERR_NOMEM,
	ERR_NOTHING,	/* nothing of what was asked for is there (a file
			 * with no offload code, a kernel list without its
			 * note) */
	ERR_FATAL,	/* LLVM's own tool stops here ("LLVM ERROR: <why>") */
	ERR_CHANGED,	/* a file or directory is not the one read or walked
			 * before (replaced, by a symbolic link too, since) */
};

/* Libraries never print or exit; they fill this and return -1, and the
 * applet decides how to show it (libelf's elf_errno/elf_errmsg pair).
 *   path   the file concerned, "" when none; cut with "..." past its room
 *   why    the reason alone, never cut short by a long path
 *   msg    the line LLVM-style tools print: "'<path>': <why>", or <why>
 * The sizes make msg hold any path and why whole. */
enum { ERR_PATH_MAX = 4096, ERR_WHY_MAX = 1024, ERR_CHAIN_MAX = 8 };

/* A record another one wraps (err_wrap): what it was, bar its text, which
 * the outer one's why carries. */
struct err_link {
	enum err_code code;
	int errnum;
	uint64_t offset;	/* where in its data, when at */
	bool at;
	/* Where its own message begins in the outer record's why (which
	 * holds it after the context the wraps added): a library caller
	 * walks the chain's texts without parsing them.  At the end of why
	 * when the wraps' context pushed it out. */
	uint16_t text_at;
};

struct err {
	enum err_code code;
	int errnum;		/* errno of the failed call, else 0 */
	/* why is in LLVM's words, which LLVM's tools print as they are
	 * (without naming the file). */
	bool llvm_words;
	uint64_t offset;	/* where in the data it failed, when at */
	bool at;
	/* The records this one wraps, innermost first (the innermost
	 * ERR_CHAIN_MAX), and the path the innermost one that named a file
	 * named ("" when none did). */
	unsigned nchain;
	struct err_link chain[ERR_CHAIN_MAX];
	char cause_path[ERR_PATH_MAX];
	char path[ERR_PATH_MAX];
	char why[ERR_WHY_MAX];
	char msg[ERR_PATH_MAX + ERR_WHY_MAX + 8];
};

/* Fill e (if not NULL) with a printf-style reason and no path; always
 * returns -1 so a failure path reads "return err_set(e, ...)". */
int err_set(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same with a code. */
int err_code_set(struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with ERR_MALFORMED (bad: a value or a structure the format
 * does not allow) and ERR_TRUNCATED (cut: the data ends before what it
 * declares), as short as err_set so that a site changes one word. */
int err_bad(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int err_cut(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A reason in LLVM's own words (see llvm_words). */
int err_llvm(struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A system call on path failed with errnum (strerror is the reason). */
int err_sys(struct err *e, const char *path, int errnum);
/* The same where the call was made for path on something else, which the
 * context fmt says: why reads "<fmt...>: <strerror>" (a file that cannot
 * be replaced because its directory cannot be written). */
int err_sys_for(struct err *e, const char *path, int errnum,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A reason that concerns path. */
int err_file(struct err *e, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with a code, and the errno that says why when there is one
 * (0 else). */
int err_code_file(struct err *e, enum err_code code, int errnum,
		  const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Whether e is about path: its path is path, or path cut short (one
 * longer than the record holds). */
bool err_names(const struct err *e, const char *path);
/* Out of memory: ERR_NOMEM, "out of memory". */
int err_nomem(struct err *e);
/* Add context to the record e holds: it becomes the innermost link of a
 * new record of code `code` whose why is "<fmt...>: <its msg>" (so the
 * line printed reads as before), its code, errno, offset and path kept
 * in the chain. */
int err_wrap(struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The code's name where a program reads it (ls --json): "other",
 * "system", "truncated", "malformed", "decompress", "out-of-memory",
 * "nothing", "fatal", "changed". */
const char *err_code_name(enum err_code code);
/* Note where in the data e's failure is; returns -1. */
int err_at(struct err *e, uint64_t offset);
/* The innermost record e wraps, or e's own fields when it wraps none. */
struct err_link err_cause(const struct err *e);
/* The name applets print for path: "standard output"/"standard input"
 * for "-" as given by what, else path. */
const char *err_display_path(const char *path, int for_output);

#endif
