/* clopt: command lines parsed the way LLVM's cl library parses them, so the
 * LLVM-named applets accept and reject exactly what LLVM's tools do. */
#ifndef CORE_CLOPT_H
#define CORE_CLOPT_H

#include <stdbool.h>
#include <stddef.h>

enum clopt_type {
	CLOPT_BOOL,		/* -x, -x=true/false/1/0 */
	CLOPT_STRING,		/* -x=v or -x v; the last one wins */
	CLOPT_LIST,		/* -x=v repeated, each kept */
	CLOPT_UINT,		/* unsigned, auto radix (0x, 0b, 0o, 0) */
	CLOPT_INT,		/* signed, auto radix */
	CLOPT_ENUM,		/* one of `choices` (cl::values): its index */
	CLOPT_ACTION,		/* --help, --version: stop and report */
	CLOPT_POSITIONAL,	/* one word that is not an option, in order;
				 * a table without any takes none */
};

enum {
	CLOPT_REQUIRED = 1,	/* "must be specified at least once!" */
	CLOPT_COMMA = 2,	/* values split on ',' (lists) */
	CLOPT_NO_SUGGEST = 4,	/* accepted but never offered as "Did you mean" */
	CLOPT_GROUPING = 8,	/* one-letter option that may lead a group: -hh
				 * for flags, -ho x or -ho=x for one that takes
				 * a value (LLVM gives every one-letter option
				 * this) */
	CLOPT_EARLY = 16,	/* wins "Did you mean" ties: LLVM's option map
				 * iterates it before the rest */
	CLOPT_STRICT_BOOL = 32,	/* a flag's value is true, 1, false or 0 only
				 * ("-x=" is none of them), as from LLVM 24 */
};

struct clopt {
	const char *name;
	enum clopt_type type;
	unsigned flags;
	/* What the tool's help listings say of it (LLVM's cl::desc and
	 * cl::value_desc): an option with a desc is listed, its value named
	 * value_desc ("<string>"); one without is not.  Not read here. */
	const char *desc;
	const char *value_desc;
	/* CLOPT_ENUM: the values taken, with what the listings say of each
	 * (cl::values' names and descriptions), NULL-terminated. */
	const char *const *choices;
	const char *const *choice_descs;
	/* results */
	int count;		/* occurrences, as LLVM's getNumOccurrences */
	bool b;
	const char *s;
	unsigned long long u;
	long long i;		/* CLOPT_INT, and CLOPT_ENUM's index */
	const char **list;
	size_t nlist;
};

/* What parsing found.  `errors` holds LLVM's diagnostics, one per line,
 * ready to print; `action` is the CLOPT_ACTION option that stopped parsing
 * (NULL if none).  Expanded response-file arguments live in `args`.
 * `expand_failed`: a response file could not be read or includes itself
 * (the reason is in `errors`); as in LLVM, nothing was parsed, every option
 * keeps its default and `failed` stays false. */
struct clopt_result {
	char *errors;
	size_t errors_len;
	bool failed;
	bool expand_failed;
	struct clopt *action;
	char **args;
	size_t nargs;
};

/* Parse argv[1..argc) against opts[0..n).  opts must be in the order LLVM's
 * option map iterates them, which decides "Did you mean" ties.  prog is the
 * basename LLVM prefixes to its messages; argv[0] is used whole in "Try:".
 * Returns 0, or -1 if out of memory. */
int clopt_parse(struct clopt *opts, size_t n, const char *prog, int argc,
		char **argv, struct clopt_result *res);
void clopt_result_free(struct clopt_result *res);
/* Free what parsing allocated inside opts (list arrays). */
void clopt_free(struct clopt *opts, size_t n);

#endif
