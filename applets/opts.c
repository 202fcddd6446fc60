/* opts: our own applets' option tables; see opts.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applets.h"
#include "messages.h"
#include "opts.h"
#include "selection.h"
#include "../core/env.h"
#include "../formats/ccob.h"
#include "../include/offcode.h"

static bool listing;

void opts_list_only(void)
{
	listing = true;
}

bool opts_listing(void)
{
	return listing;
}

/* Every table ends with these. */
static const struct opt common[] = {
	OPT_IGNORED('h', "help", "print this help"),
	OPT_IGNORED('V', "version", "print the version"),
};
enum { HELP, VERSION, NCOMMON };

/* Row i of t, the common ones after its own. */
static const struct opt *row(const struct opts *t, size_t i)
{
	return i < t->n ? &t->v[i] : &common[i - t->n];
}

/* What getopt_long returns for row i: its letter, or a code past them. */
static int code(const struct opts *t, size_t i)
{
	return row(t, i)->letter ? row(t, i)->letter : 256 + (int)i;
}

static void print_row(const struct opts *t, const struct opt *o)
{
	const char *h = o->help;
	int len;

	len = printf("  %c%c%s--%s%s%s%s", o->letter ? '-' : ' ',
		     o->letter ? o->letter : ' ', o->letter ? ", " : "  ",
		     o->name, o->arg == OPT_OPTIONAL_VALUE ? "[=" :
		     o->arg == OPT_VALUE ? "=" : "",
		     o->arg == OPT_NO_VALUE ? "" : o->value,
		     o->arg == OPT_OPTIONAL_VALUE ? "]" : "");
	/* At least two spaces before the help, else it starts below. */
	if (len > t->column - 2)
		printf("\n%*s", t->column, "");
	else
		printf("%*s", t->column - len, "");
	for (;;) {
		size_t n = strcspn(h, "\n");

		printf("%.*s\n", (int)n, h);
		if (!h[n])
			break;
		h += n + 1;
		printf("%*s", t->column, "");
	}
}

void opts_help(const struct opts *t)
{
	fputs(t->usage, stdout);
	for (size_t i = 0; i < t->n + NCOMMON; i++)
		print_row(t, row(t, i));
	if (t->tail)
		fputs(t->tail, stdout);
}

static void list(const struct opts *t)
{
	for (size_t i = 0; i < t->n + NCOMMON; i++) {
		const struct opt *o = row(t, i);

		if (o->letter)
			printf("-%c\n", o->letter);
		printf("--%s%s\n", o->name, o->arg == OPT_VALUE ? "=" : "");
	}
}

/* Row o's effect on options. */
static int apply(const struct opt *o, void *options, const char *value,
		 const char *applet)
{
	char *at = (char *)options + o->at;
	char option[64];

	switch (o->does) {
	case OPTS_TRUE:
		*(bool *)at = true;
		return 0;
	case OPTS_INT:
		*(int *)at = o->number;
		return 0;
	case OPTS_STRING:
		*(const char **)at = value;
		return 0;
	case OPTS_CHOICE:
		for (const struct opt_choice *c = o->choices; c->name; c++)
			if (!strcmp(value, c->name)) {
				*(int *)at = c->number;
				return 0;
			}
		return applet_usage_error(applet, o->refused, value);
	case OPTS_SELECT:
		snprintf(option, sizeof(option), "--%s", o->name);
		return applet_select_option(applet, option,
					    (struct select *)at, value);
	case OPTS_CALL:
		return o->call(options, value);
	case OPTS_IGNORED:
		return 0;
	}
	return 0;
}

int opts_parse(const struct opts *t, void *options, int argc, char **argv,
	       int *first)
{
	size_t n = t->n + NCOMMON;
	struct option *longopts = calloc(n + 1, sizeof(*longopts));
	char *letters = malloc(2 * n + 2), *l = letters;
	int c, rc = -1;

	if (listing) {
		list(t);
		rc = 0;
		goto out;
	}
	if (t->ccob_env) {
		struct ccob_limits *lim = (void *)((char *)options + t->ccob_at);
		struct offcode_open_options *oo = (void *)lim;
		uint64_t *size = t->ccob_offcode ? &oo->ccob_max_size
						 : &lim->max_size;
		uint64_t *ratio = t->ccob_offcode ? &oo->ccob_max_ratio
						  : &lim->max_ratio;
		struct err e;

		if (env_positive_u64("OFFLOAD_CCOB_MAX_SIZE", size, &e) < 0 ||
		    env_positive_u64("OFFLOAD_CCOB_MAX_RATIO", ratio, &e) < 0) {
			rc = applet_usage_error(t->applet, "%s", e.msg);
			goto out;
		}
	}
	if (!longopts || !letters) {
		rc = applet_fail(t->applet, NULL, "", "out of memory");
		goto out;
	}
	/* ':' first: a missing value is told from an unknown option. */
	*l++ = ':';
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = row(t, i);

		longopts[i] = (struct option){
			o->name, o->arg == OPT_VALUE ? required_argument :
			o->arg == OPT_OPTIONAL_VALUE ? optional_argument :
			no_argument, NULL, code(t, i) };
		if (o->letter) {
			*l++ = o->letter;
			if (o->arg == OPT_VALUE)
				*l++ = ':';
		}
	}
	*l = 0;
	opterr = 0;
	optind = 1;
	while (rc < 0 && (c = getopt_long(argc, argv, letters, longopts,
					  NULL)) != -1) {
		size_t i = 0;

		while (i < n && code(t, i) != c)
			i++;
		if (i == n) {
			rc = applet_option_error(t->applet, c, argv, longopts);
		} else if (i == t->n + HELP) {
			opts_help(t);
			rc = 0;
		} else if (i == t->n + VERSION) {
			printf("offload %.*s %s\n",
			       (int)strcspn(t->applet, " "), t->applet,
			       OFFLOAD_VERSION);
			rc = 0;
		} else {
			rc = apply(row(t, i), options, optarg, t->applet);
			if (!rc)
				rc = -1;
		}
	}
	*first = optind;
	if (rc < 0 && t->no_operand && optind == argc)
		rc = applet_usage_error(t->applet, "%s", t->no_operand);
out:
	free(longopts);
	free(letters);
	return rc;
}
