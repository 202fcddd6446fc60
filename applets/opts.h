/* opts: our own applets' options, one table each (git's parse-options,
 * toybox's option strings).  A row per option drives the parsing, the
 * option lines of --help and the list `offload --list-options APPLET`
 * prints, which the man page check (test/mancheck.sh) and the completions'
 * test read: an option cannot be parsed without being in all of them.
 * -h/--help and -V/--version are every table's last rows, added here.
 * Parsing is getopt_long's (clusters, --long=value, abbreviations, "--",
 * operands anywhere) and a refused option is reported as
 * applet_option_error says. */
#ifndef APPLETS_OPTS_H
#define APPLETS_OPTS_H

#include <stdbool.h>
#include <stddef.h>

enum opt_arg {
	OPT_NO_VALUE,
	OPT_VALUE,		/* --name=V, --name V, -xV, -x V */
	OPT_OPTIONAL_VALUE,	/* --name or --name=V only */
};

/* What the option does to the applet's options (a struct; `at` is the
 * offset of a member of it). */
enum opt_does {
	OPTS_TRUE,	/* the bool at `at` becomes true */
	OPTS_INT,	/* the int (or enum) at `at` becomes `number` */
	OPTS_STRING,	/* the const char * at `at` becomes the value */
	OPTS_CHOICE,	/* the int (or enum) at `at` becomes the number of
			 * the choice the value names; another value is
			 * the usage error `refused` (a format of the
			 * value) */
	OPTS_SELECT,	/* the value's patterns join the struct select at
			 * `at` (applet_select_option: its usage errors) */
	OPTS_CALL,	/* call(options, value): 0, or the exit status of the
			 * usage error it reported */
	OPTS_IGNORED,	/* accepted, no effect */
};

struct opt_choice {
	const char *name;
	int number;
};

struct opt {
	const char *name;	/* the long name, without "--" */
	char letter;		/* the short one, or 0 */
	enum opt_arg arg;
	const char *value;	/* the value's name in --help: "PATTERN" */
	const char *help;	/* its lines in --help, '\n' between them */
	enum opt_does does;
	size_t at;
	int number;
	const struct opt_choice *choices;	/* ended by a NULL name */
	const char *refused;
	int (*call)(void *options, const char *value);
};

struct opts {
	const char *applet;	/* in messages: "ls", "kpack split" */
	const char *usage;	/* --help's lines before the options */
	const char *tail;	/* and after them, or NULL */
	int column;		/* where the options' help lines start */
	const struct opt *v;
	size_t n;
	/* The usage error when no operand follows ("no input file"), or
	 * NULL when none may. */
	const char *no_operand;
	/* Where the options hold the struct ccob_limits that
	 * OFFLOAD_CCOB_MAX_SIZE and OFFLOAD_CCOB_MAX_RATIO set, before the
	 * options may (ccob_env), as every applet that reads CCOBs has it. */
	bool ccob_env;
	size_t ccob_at;
	/* ccob_at is a struct offcode_open_options (a client of
	 * liboffcode), not a struct ccob_limits. */
	bool ccob_offcode;
};

/* The rows, as a table writes them: letter (or 0), long name, the value's
 * name, the help lines, and where it goes (offsetof the applet's options
 * struct member) or what it calls. */
#define OPT_FLAG(l, n, h, a) \
	{ .name = n, .letter = l, .help = h, .does = OPTS_TRUE, .at = a }
#define OPT_SET_INT(l, n, h, a, num) \
	{ .name = n, .letter = l, .help = h, .does = OPTS_INT, .at = a, \
	  .number = num }
#define OPT_STRING(l, n, v, h, a) \
	{ .name = n, .letter = l, .arg = OPT_VALUE, .value = v, .help = h, \
	  .does = OPTS_STRING, .at = a }
#define OPT_SELECT(l, n, v, h, a) \
	{ .name = n, .letter = l, .arg = OPT_VALUE, .value = v, .help = h, \
	  .does = OPTS_SELECT, .at = a }
#define OPT_CHOICE(l, n, v, h, a, ch, ref) \
	{ .name = n, .letter = l, .arg = OPT_VALUE, .value = v, .help = h, \
	  .does = OPTS_CHOICE, .at = a, .choices = ch, .refused = ref }
#define OPT_CALLBACK(l, n, ar, v, h, fn) \
	{ .name = n, .letter = l, .arg = ar, .value = v, .help = h, \
	  .does = OPTS_CALL, .call = fn }
#define OPT_IGNORED(l, n, h) \
	{ .name = n, .letter = l, .help = h, .does = OPTS_IGNORED }

#define OPTS_ROWS(rows) .v = (rows), .n = sizeof(rows) / sizeof((rows)[0])

/* Parse argv against t into options (the environment t names first).
 * -1: go on, the operands are argv[*first..argc).  Else the exit status: 0
 * after --help, --version or the listing; a usage error's 2 (said); what
 * a call returned. */
int opts_parse(const struct opts *t, void *options, int argc, char **argv,
	       int *first);
/* --help's text, to standard output. */
void opts_help(const struct opts *t);

/* From now on opts_parse (and llvm_tool_parse) only lists the options,
 * one a line, "-x" and "--name" ("--name=" where a value must follow),
 * and returns 0: `offload --list-options APPLET`. */
void opts_list_only(void);
bool opts_listing(void);

#endif
