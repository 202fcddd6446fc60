/* llvmtool: the context of an LLVM-named applet; see llvmtool.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "applets.h"
#include "llvmtool.h"
#include "opts.h"
#include "../core/env.h"
#include "../core/io_in.h"

static struct {
	const char *argv0;	/* messages begin with it, as given */
	int color;		/* --color's value; -1: stderr is a terminal */
} tool = { NULL, -1 };

/* ---- options ---- */

/* The generic lines of the help listings, in LLVM's words, by name (the
 * flat listings' order); `since`: the first release to have the line. */
static const struct {
	const char *name, *what;
	int show;
	enum llvm_release since;
} generic_lines[] = {
	{ "h", "Alias for --help", HH | LH, LLVM_24 },
	{ "help", "Display available options (--help-hidden for more)", ALL, 0 },
	{ "help-hidden", "Display all available options", HH | LH, 0 },
	{ "help-list", "Display list of available options (--help-list-hidden for more)", H | HH | LH, 0 },
	{ "help-list-hidden", "Display list of all available options", HH | LH, 0 },
	{ "print-all-options", "Print all option values after command line parsing", HH | LH, 0 },
	{ "print-options", "Print non-default options after command line parsing", HH | LH, 0 },
	{ "version", "Display the version of this program", ALL, 0 },
};
enum { NGENERIC = sizeof(generic_lines) / sizeof(generic_lines[0]) };

void llvm_generic_options(const struct llvm_tool *t)
{
	static const struct clopt tail[LLVM_TAIL_COUNT] = {
		[LLVM_TAIL_H] = { .name = "h", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST | CLOPT_GROUPING },
		[LLVM_TAIL_COLOR] = { .name = "color", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		{ .name = "disable-symbolication", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		{ .name = "info-output-file", .type = CLOPT_STRING, .flags = CLOPT_NO_SUGGEST },
		{ .name = "rng-seed", .type = CLOPT_STRING, .flags = CLOPT_NO_SUGGEST },
		{ .name = "stats", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		{ .name = "stats-json", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		{ .name = "time-passes", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
		{ .name = "track-memory", .type = CLOPT_BOOL, .flags = CLOPT_NO_SUGGEST },
	};
	static const struct clopt generic_rows[] = {
		{ .name = "help", .type = CLOPT_ACTION },
		{ .name = "help-hidden", .type = CLOPT_ACTION },
		{ .name = "version", .type = CLOPT_ACTION },
		{ .name = "help-list", .type = CLOPT_ACTION },
		{ .name = "help-list-hidden", .type = CLOPT_ACTION },
		{ .name = "print-options", .type = CLOPT_BOOL },
		{ .name = "print-all-options", .type = CLOPT_BOOL },
	};
	size_t g = 0, own = t->n - LLVM_TAIL_COUNT;

	for (size_t i = 0; i < own; i++)
		if (!t->o[i].name && g < sizeof(generic_rows) / sizeof(*generic_rows))
			t->o[i] = generic_rows[g++];
	/* A table with another number of empty rows is a mistake in it. */
	if (g != sizeof(generic_rows) / sizeof(*generic_rows))
		abort();
	memcpy(&t->o[own], tail, sizeof(tail));
	/* LLVM 24 made -h an alias of --help, which wins "Did you mean" ties
	 * (measured: -v, -oh, -foo); before, each tool read it. */
	if (t->release >= LLVM_24)
		t->o[own + LLVM_TAIL_H] = (struct clopt){ .name = "h",
			.type = CLOPT_ACTION, .flags = CLOPT_EARLY };
}

/* Whether action is the generic option name. */
static bool is(const struct clopt *action, const char *name)
{
	return !strcmp(action->name, name);
}

/* ---- help ---- */

/* One of the tool's own option lines ("  --list   - List ...\n"), from
 * its row. */
struct help_line {
	const char *key;	/* the option's name: the listings' order */
	char *text;
};

/* The option as the listings show it: "--bundle-align=<uint>",
 * "-o <file>". */
static int option_text(const struct clopt *o, char *buf, size_t size)
{
	bool one = strlen(o->name) == 1;

	return snprintf(buf, size, "%s%s%s%s", one ? "-" : "--", o->name,
			o->value_desc ? (one ? " " : "=") : "",
			o->value_desc ? o->value_desc : "");
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct help_line *)a)->key,
		      ((const struct help_line *)b)->key);
}

static void lines_free(struct help_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

/* The lines of the rows with a desc, by name, the options in one column
 * as wide as the widest (*width); a desc's later lines under its first.
 * NULL: out of memory. */
static struct help_line *tool_lines(const struct llvm_tool *t, size_t *n,
				    int *width)
{
	struct help_line *lines = calloc(t->n + 1, sizeof(*lines));
	char opt[128];

	*n = 0;
	*width = 0;
	if (!lines)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (t->o[i].desc) {
			int w = option_text(&t->o[i], opt, sizeof(opt));

			/* a choice's line, "    =zstd -   ...", as LLVM
			 * counts it */
			for (const char *const *c = t->o[i].choices; c && *c; c++)
				if ((int)strlen(*c) + 5 > w)
					w = (int)strlen(*c) + 5;
			*width = w > *width ? w : *width;
			lines[(*n)++].key = t->o[i].name;
		}
	qsort(lines, *n, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < *n; i++) {
		const struct clopt *o = t->o;
		size_t len = 0;
		FILE *f;

		while (strcmp(o->name, lines[i].key))
			o++;
		option_text(o, opt, sizeof(opt));
		f = open_memstream(&lines[i].text, &len);
		if (!f) {
			lines_free(lines, *n);
			return NULL;
		}
		fprintf(f, "  %-*s - ", *width, opt);
		for (const char *d = o->desc; *d; d++)
			if (*d == '\n')
				fprintf(f, "\n%*s", *width + 5, "");
			else
				fputc(*d, f);
		fputc('\n', f);
		for (size_t c = 0; o->choices && o->choices[c]; c++)
			fprintf(f, "    =%-*s -   %s\n", *width - 3,
				o->choices[c], o->choice_descs[c]);
		if (fclose(f)) {
			lines_free(lines, *n);
			return NULL;
		}
	}
	return lines;
}

/* An option line's name, as LLVM sorts the flat listings. */
static int key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

static void generic_line(int width, size_t g)
{
	bool one = strlen(generic_lines[g].name) == 1;

	printf("  %s%-*s - %s\n", one ? "-" : "--", width - 2 + one,
	       generic_lines[g].name, generic_lines[g].what);
}

/* Whether listing which of tool t shows generic line g. */
static bool generic_shown(const struct llvm_tool *t, int which, size_t g)
{
	return (generic_lines[g].show & which) &&
	       t->release >= generic_lines[g].since;
}

void llvm_tool_help(const struct llvm_tool *t, const char *prog, int which)
{
	size_t i = 0, g = 0, nlines;
	int width;
	struct help_line *lines = tool_lines(t, &nlines, &width);

	if (!lines) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return;
	}
	printf(t->overview, prog);
	if (which & (L | LH)) {
		/* One list, the generic options among the tool's by name. */
		while (i < nlines || g < NGENERIC) {
			const char *k = i < nlines ? lines[i].key : NULL;
			const char *gk = g < NGENERIC ? generic_lines[g].name : NULL;

			if (k && (!gk || key_cmp(k, strlen(k), gk,
						 strlen(gk)) < 0)) {
				fputs(lines[i].text, stdout);
				i++;
			} else {
				if (generic_shown(t, which, g))
					generic_line(width, g);
				g++;
			}
		}
		lines_free(lines, nlines);
		return;
	}
	fputs("\nGeneric Options:\n\n", stdout);
	for (g = 0; g < NGENERIC; g++)
		if (generic_shown(t, which, g))
			generic_line(width, g);
	printf("\n%s options:\n\n", t->name);
	for (i = 0; i < nlines; i++)
		fputs(lines[i].text, stdout);
	lines_free(lines, nlines);
}

/* `offload --list-options`: the options the listings show (those of
 * --help-hidden), as typed. */
static void list_options(const struct llvm_tool *t)
{
	for (size_t g = 0; g < NGENERIC; g++)
		if (generic_shown(t, HH, g))
			printf("%s%s\n", strlen(generic_lines[g].name) == 1 ?
			       "-" : "--", generic_lines[g].name);
	for (size_t i = 0; i < t->n; i++)
		if (t->o[i].desc)
			printf("%s%s%s\n", strlen(t->o[i].name) == 1 ? "-" :
			       "--", t->o[i].name, t->o[i].value_desc &&
			       strlen(t->o[i].name) > 1 ? "=" : "");
}

int llvm_tool_parse(const struct llvm_tool *t, int argc, char **argv,
		    struct clopt_result *res)
{
	const struct clopt *color = &t->o[t->n - LLVM_TAIL_COUNT +
					  LLVM_TAIL_COLOR];
	const char *prog = llvm_path_filename(argv[0]);
	const struct clopt *action;

	tool.argv0 = argv[0];
	if (opts_listing()) {
		/* (res as an empty parse leaves it, for the caller's free) */
		memset(res, 0, sizeof(*res));
		list_options(t);
		return 0;
	}
	/* LLVM 24's flags take true, 1, false or 0 alone */
	for (size_t i = 0; i < t->n && t->release >= LLVM_24; i++)
		if (t->o[i].type == CLOPT_BOOL)
			t->o[i].flags |= CLOPT_STRICT_BOOL;
	if (clopt_parse(t->o, t->n, prog, argc, argv, res) < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	if (color->count)
		tool.color = color->b;
	fwrite(res->errors ? res->errors : "", 1, res->errors_len, stderr);
	action = res->action;
	if (action && is(action, "version")) {
		printf("offload %s version %s (offload %s)\n", t->name,
		       env_release_version(t->release), OFFLOAD_VERSION);
		return 0;
	}
	if (action) {
		llvm_tool_help(t, prog, is(action, "help") || is(action, "h") ? H :
			       is(action, "help-hidden") ? HH :
			       is(action, "help-list") ? L : LH);
		return 0;
	}
	return res->failed ? 1 : -1;
}

/* ---- messages ---- */

static void report(const char *prefix, const char *kind, const char *fmt,
		   va_list ap)
{
	bool color = tool.color < 0 ? isatty(2) : tool.color;
	const char *code = !strcmp(kind, "error") ? "\033[0;1;31m"
						  : "\033[0;1;35m";

	if (prefix)
		fprintf(stderr, "%s: ", prefix);
	/* The space inside the colour, as WithColor does. */
	fprintf(stderr, "%s%s: %s", color ? code : "", kind,
		color ? "\033[0m" : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* While deferring, the first failure is kept, not printed. */
static bool deferring;
static char *deferred;

void llvm_defer(bool on)
{
	deferring = on;
}

int llvm_deferred(void)
{
	if (!deferred)
		return 0;
	deferring = false;
	llvm_fail("%s", deferred);
	free(deferred);
	deferred = NULL;
	return 1;
}

void llvm_deferred_drop(void)
{
	free(deferred);
	deferred = NULL;
}

int llvm_fail(const char *fmt, ...)
{
	const char *cut = io_input_cut();
	va_list ap;

	if (deferring) {
		if (!deferred) {
			va_start(ap, fmt);
			if (vasprintf(&deferred, fmt, ap) < 0)
				deferred = strdup("out of memory");
			va_end(ap);
		}
		return 1;
	}

	/* Whatever failed, it failed on the zeros read where an input was
	 * cut short under us (core/io_in.c): that is the error. */
	if (cut) {
		io_input_cut_clear();
		return llvm_fail("'%s': file changed size while being read",
				 cut);
	}
	va_start(ap, fmt);
	report(tool.argv0, "error", fmt, ap);
	va_end(ap);
	return 1;
}

void llvm_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(tool.argv0, "warning", fmt, ap);
	va_end(ap);
}

void llvm_warn_plain(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(NULL, "warning", fmt, ap);
	va_end(ap);
}

/* LLVM prints a failed system call on a file it names as the reason
 * alone, without our context (the directory a file cannot be replaced
 * in); anything else of ours (a stream past its limit, an input cut
 * short) names the file. */
const char *llvm_why(const struct err *e, const char *path)
{
	return e->code == ERR_SYSTEM && !strcmp(e->path, path)
		       ? strerror(e->errnum) : e->msg;
}

int llvm_fail_write(const struct err *e, const char *path, bool in_place)
{
	if (e->code != ERR_SYSTEM || !err_names(e, path) || io_input_cut())
		return llvm_fail("%s", llvm_why(e, path));
	if (in_place) {
		fflush(stdout);
		fprintf(stderr, "LLVM ERROR: IO failure on output stream: %s\n",
			e->why);
		return 1;
	}
	return llvm_fail("'%s': %s", path, e->why);
}

/* ---- paths, as LLVM's sys::path sees them ---- */

const char *llvm_path_filename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

const char *llvm_path_extension(const char *path)
{
	const char *name = llvm_path_filename(path), *dot = strrchr(name, '.');

	if (!dot || !strcmp(name, ".") || !strcmp(name, ".."))
		return NULL;
	return dot + 1;
}

char *llvm_path_stem(const char *path)
{
	const char *name = llvm_path_filename(path), *dot = strrchr(name, '.');

	if (!dot || !strcmp(name, ".") || !strcmp(name, ".."))
		return strdup(name);
	return strndup(name, (size_t)(dot - name));
}

/* ---- timers ---- */

struct llvm_time {
	double user, sys, wall;
};

struct timer_rec {
	const char *name;
	struct llvm_time t;
};

static struct {
	struct llvm_time mark;
	struct timer_rec rec[64];
	size_t n;
} timers;

static void time_now(struct llvm_time *t)
{
	struct rusage ru;
	struct timespec ts;

	getrusage(RUSAGE_SELF, &ru);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t->user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	t->sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	t->wall = (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void llvm_timer_mark(void)
{
	time_now(&timers.mark);
}

void llvm_timer_add(const char *name)
{
	struct llvm_time now;

	if (timers.n == sizeof(timers.rec) / sizeof(timers.rec[0]))
		return;
	time_now(&now);
	timers.rec[timers.n].name = name;
	timers.rec[timers.n++].t = (struct llvm_time){
		now.user - timers.mark.user, now.sys - timers.mark.sys,
		now.wall - timers.mark.wall };
	timers.mark = now;
}

/* One column of TimeRecord::print. */
static void time_val(double v, double total)
{
	if (total < 1e-7)
		fputs("        -----     ", stderr);
	else
		fprintf(stderr, "  %7.4f (%5.1f%%)", v, v * 100 / total);
}

static void time_row(const struct llvm_time *t, const struct llvm_time *total)
{
	if (total->user)
		time_val(t->user, total->user);
	if (total->sys)
		time_val(t->sys, total->sys);
	if (total->user + total->sys)
		time_val(t->user + t->sys, total->user + total->sys);
	time_val(t->wall, total->wall);
	fputs("  ", stderr);
}

static int by_wall(const void *a, const void *b)
{
	const struct llvm_time *x = &((const struct timer_rec *)a)->t;
	const struct llvm_time *y = &((const struct timer_rec *)b)->t;

	return (x->wall < y->wall) - (x->wall > y->wall);
}

void llvm_timers_print(const char *group)
{
	struct llvm_time total = { 0 };
	int pad = (80 - (int)strlen(group)) / 2;

	if (!timers.n)
		return;
	/* What went to stdout (-list's IDs) comes first, as from LLVM, whose
	 * outs() is flushed before its timers print at exit. */
	fflush(stdout);
	qsort(timers.rec, timers.n, sizeof(timers.rec[0]), by_wall);
	for (size_t i = 0; i < timers.n; i++) {
		total.user += timers.rec[i].t.user;
		total.sys += timers.rec[i].t.sys;
		total.wall += timers.rec[i].t.wall;
	}
	fprintf(stderr, "===%s===\n%*s%s\n===%s===\n",
		"-------------------------------------------------------------------------",
		pad > 0 ? pad : 0, "", group,
		"-------------------------------------------------------------------------");
	fprintf(stderr, "  Total Execution Time: %5.4f seconds (%5.4f wall "
		"clock)\n\n", total.user + total.sys, total.wall);
	if (total.user)
		fputs("   ---User Time---", stderr);
	if (total.sys)
		fputs("   --System Time--", stderr);
	if (total.user + total.sys)
		fputs("   --User+System--", stderr);
	fputs("   ---Wall Time---  --- Name ---\n", stderr);
	for (size_t i = 0; i < timers.n; i++) {
		time_row(&timers.rec[i].t, &total);
		fprintf(stderr, "%s\n", timers.rec[i].name);
	}
	time_row(&total, &total);
	fputs("Total\n\n", stderr);
	timers.n = 0;
}
