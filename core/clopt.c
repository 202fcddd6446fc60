/* clopt: command lines parsed the way LLVM's cl library parses them. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clopt.h"

/* ---- diagnostics buffer ---- */

static void say(struct clopt_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct clopt_result *res, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *grown;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	grown = realloc(res->errors, res->errors_len + (size_t)n + 1);
	if (!grown)
		return;
	res->errors = grown;
	va_start(ap, fmt);
	vsnprintf(res->errors + res->errors_len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	res->errors_len += (size_t)n;
	res->failed = true;
}

/* LLVM names an option "-x" when its name is one character, else "--name". */
static const char *dashes(size_t len)
{
	return len == 1 ? "-" : "--";
}

static void opt_error(struct clopt_result *res, const char *prog,
		      const struct clopt *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void opt_error(struct clopt_result *res, const char *prog,
		      const struct clopt *o, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say(res, "%s: for the %s%s option: %s\n", prog,
	    dashes(strlen(o->name)), o->name, msg);
}

/* ---- response files (@file), GNU tokenisation ---- */

static int push_arg(struct clopt_result *res, size_t *cap, char *s)
{
	if (!s)
		return -1;
	if (res->nargs == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		char **grown = realloc(res->args, ncap * sizeof(*grown));

		if (!grown) {
			free(s);
			return -1;
		}
		res->args = grown;
		*cap = ncap;
	}
	res->args[res->nargs++] = s;
	return 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Split a response file the way GNU tools (and LLVM's TokenizeGNUCommandLine)
 * do: blanks separate, quotes group, a backslash takes the next character. */
static int tokenize(const char *src, size_t len, struct clopt_result *res,
		    size_t *cap)
{
	char *tok = malloc(len + 1);
	size_t n = 0;
	bool have = false;

	if (!tok)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = src[i];

		if (is_space(c)) {
			if (have && push_arg(res, cap, strndup(tok, n)) < 0)
				goto fail;
			n = 0;
			have = false;
		} else if (c == '\\') {
			if (i + 1 < len)
				tok[n++] = src[++i];
			have = true;
		} else if (c == '\'' || c == '"') {
			for (i++; i < len && src[i] != c; i++) {
				if (src[i] == '\\' && i + 1 < len)
					i++;
				tok[n++] = src[i];
			}
			have = true;
		} else {
			tok[n++] = c;
			have = true;
		}
	}
	if (have && push_arg(res, cap, strndup(tok, n)) < 0)
		goto fail;
	free(tok);
	return 0;
fail:
	free(tok);
	return -1;
}

/* A response file that is not a regular file (a pipe, /dev/stdin, a
 * device) is read to its end, up to this many bytes. */
enum { RSP_STREAM_MAX = 64 << 20 };

/* The whole of a file, or NULL with errno set. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf = NULL, *grown;
	size_t cap, n = 0;
	int saved;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) < 0)
		goto out;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto out;
	}
	cap = S_ISREG(st.st_mode) ? (size_t)st.st_size : 4096;
	if (!(buf = malloc(cap + 1)))
		goto out;
	for (;;) {
		n += fread(buf + n, 1, cap - n, f);
		if (ferror(f))
			goto fail;
		if (S_ISREG(st.st_mode) || n < cap)
			break;
		if (cap >= RSP_STREAM_MAX) {
			errno = EFBIG;
			goto fail;
		}
		if (!(grown = realloc(buf, cap * 2 + 1)))
			goto fail;
		buf = grown;
		cap *= 2;
	}
	*len = n;
	goto out;
fail:
	free(buf);
	buf = NULL;
out:
	saved = errno;
	fclose(f);
	errno = saved;
	return buf;
}

/* The directory a relative @file is found in: $PWD when it is absolute and
 * names the directory we are in (so a path through a symbolic link reads
 * as the user typed it, as LLVM's current_path does), else getcwd(). */
static char *current_dir(void)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (pwd && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return strdup(pwd);
	return getcwd(NULL, 0);
}

/* A response file whose words are being read: which file it is, the name
 * it was reached by, and the index in args where its words end. */
struct frame {
	dev_t dev;
	ino_t ino;
	char *name;
	size_t end;
};

/* Replace args[at] by the n words of sub (taken over). */
static int splice(struct clopt_result *res, size_t *cap, size_t at,
		  struct clopt_result *sub)
{
	size_t need = res->nargs - 1 + sub->nargs;

	if (need > *cap) {
		size_t ncap = *cap * 2 > need ? *cap * 2 : need;
		char **grown = realloc(res->args, ncap * sizeof(*grown));

		if (!grown)
			return -1;
		res->args = grown;
		*cap = ncap;
	}
	free(res->args[at]);
	memmove(res->args + at + sub->nargs, res->args + at + 1,
		(res->nargs - at - 1) * sizeof(*res->args));
	if (sub->nargs)
		memcpy(res->args + at, sub->args, sub->nargs * sizeof(*sub->args));
	res->nargs = need;
	free(sub->args);
	sub->args = NULL;
	sub->nargs = 0;
	return 0;
}

/* The file "@arg" names, made absolute against the working directory
 * (*cwd, found once) as LLVM does; NULL when out of memory. */
static char *response_path(const char *arg, char **cwd)
{
	size_t dirlen;
	char *name;

	if (arg[1] == '/')
		return strdup(arg + 1);
	if (!*cwd && !(*cwd = current_dir()))
		*cwd = strdup("");
	if (!*cwd)
		return NULL;
	dirlen = strlen(*cwd);
	name = malloc(dirlen + strlen(arg) + 1);
	if (name) {
		bool slash = !arg[1] || !dirlen || (*cwd)[dirlen - 1] == '/';

		sprintf(name, "%s%s%s", *cwd, slash ? "" : "/", arg + 1);
	}
	return name;
}

/* Expand @file arguments in res->args in place, as LLVM's cl library does:
 * a relative name is taken from the current directory (nested ones too)
 * and made absolute; a file that does not exist stays a literal argument;
 * any other failure to read it, and a file met again while its own words
 * are being read, stop the expansion with LLVM's message in res->errors.
 * There is no depth limit; a cycle is found by file identity (device and
 * inode, so a link to a file is that file).  Returns 0, 1 after such a
 * failure, or -1 when out of memory. */
static int expand(struct clopt_result *res, size_t *cap)
{
	struct frame *stack = NULL;
	size_t depth = 0, room = 0;
	char *cwd = NULL;
	int rc = -1;

	for (size_t i = 0; i < res->nargs;) {
		const char *arg = res->args[i];
		struct clopt_result sub = { 0 };
		size_t subcap = 0, len = 0, words;
		char *name, *text;
		struct stat st;
		size_t k;

		while (depth && stack[depth - 1].end == i)
			free(stack[--depth].name);
		if (arg[0] != '@') {
			i++;
			continue;
		}
		if (!(name = response_path(arg, &cwd)))
			goto out;
		if (stat(name, &st) < 0) {
			if (errno == ENOENT) {
				free(name);
				i++;
				continue;
			}
			say(res, "cannot not open file '%s': %s\n", name,
			    strerror(errno));
			free(name);
			rc = 1;
			goto out;
		}
		for (k = 0; k < depth; k++)
			if (stack[k].dev == st.st_dev && stack[k].ino == st.st_ino)
				break;
		if (k < depth) {
			say(res, "recursive expansion of: '%s'\n",
			    stack[k].name);
			free(name);
			rc = 1;
			goto out;
		}
		text = slurp(name, &len);
		if (!text) {
			if (errno == ENOMEM) {
				free(name);
				goto out;
			}
			say(res, "cannot not open file '%s': %s\n", name,
			    strerror(errno));
			free(name);
			rc = 1;
			goto out;
		}
		if (depth == room) {
			size_t nroom = room ? room * 2 : 8;
			struct frame *grown = realloc(stack,
						      nroom * sizeof(*grown));

			if (!grown) {
				free(text);
				free(name);
				goto out;
			}
			stack = grown;
			room = nroom;
		}
		if (tokenize(text, len, &sub, &subcap) < 0) {
			free(text);
			free(name);
			for (k = 0; k < sub.nargs; k++)
				free(sub.args[k]);
			free(sub.args);
			goto out;
		}
		free(text);
		words = sub.nargs;
		if (splice(res, cap, i, &sub) < 0) {
			free(name);
			for (k = 0; k < sub.nargs; k++)
				free(sub.args[k]);
			free(sub.args);
			goto out;
		}
		/* Every file being read holds args[i], which its words
		 * replaced; this file's words are read next. */
		for (k = 0; k < depth; k++)
			stack[k].end = stack[k].end - 1 + words;
		stack[depth++] = (struct frame){ st.st_dev, st.st_ino, name,
						 i + words };
	}
	rc = 0;
out:
	while (depth)
		free(stack[--depth].name);
	free(stack);
	free(cwd);
	return rc;
}

/* ---- values ---- */

static int digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* StringRef::getAsInteger(0, ...): radix from the prefix, every character a
 * digit, no sign, no blanks, no overflow. */
static bool parse_unsigned(const char *s, unsigned long long *out)
{
	unsigned radix = 10;
	unsigned long long v = 0;

	if ((s[0] == '0') && (s[1] == 'x' || s[1] == 'X'))
		radix = 16, s += 2;
	else if ((s[0] == '0') && (s[1] == 'b' || s[1] == 'B'))
		radix = 2, s += 2;
	else if (s[0] == '0' && s[1] == 'o')
		radix = 8, s += 2;
	else if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		radix = 8, s += 1;
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d = (unsigned)digit(*s);

		if (d >= radix || v > (ULLONG_MAX - d) / radix)
			return false;
		v = v * radix + d;
	}
	*out = v;
	return true;
}

static bool parse_signed(const char *s, long long *out)
{
	unsigned long long u;

	if (s[0] == '-') {
		if (!parse_unsigned(s + 1, &u) || u > (unsigned long long)LLONG_MAX + 1)
			return false;
		*out = (long long)(0 - u);
		return true;
	}
	if (!parse_unsigned(s, &u) || u > LLONG_MAX)
		return false;
	*out = (long long)u;
	return true;
}

static int add_value(struct clopt *o, const char *prog, const char *v,
		     struct clopt_result *res)
{
	o->count++;
	switch (o->type) {
	case CLOPT_BOOL: {
		bool lax = !(o->flags & CLOPT_STRICT_BOOL);

		if (!strcmp(v, "true") || !strcmp(v, "1") || (lax && (!*v ||
		    !strcmp(v, "TRUE") || !strcmp(v, "True"))))
			o->b = true;
		else if (!strcmp(v, "false") || !strcmp(v, "0") || (lax &&
			 (!strcmp(v, "FALSE") || !strcmp(v, "False"))))
			o->b = false;
		else
			opt_error(res, prog, o, "'%s' is invalid value for "
				  "boolean argument! Try 0 or 1", v);
		break;
	}
	case CLOPT_STRING:
	case CLOPT_POSITIONAL:
		o->s = v;
		break;
	case CLOPT_LIST: {
		const char **grown = realloc(o->list,
					     (o->nlist + 1) * sizeof(*grown));

		if (!grown)
			return -1;
		o->list = grown;
		o->list[o->nlist++] = v;
		break;
	}
	case CLOPT_UINT: {
		unsigned long long u;

		if (!parse_unsigned(v, &u) || u > UINT_MAX)
			opt_error(res, prog, o, "'%s' value invalid for uint "
				  "argument!", v);
		else
			o->u = u;
		break;
	}
	case CLOPT_INT: {
		long long i;

		if (!parse_signed(v, &i) || i < INT_MIN || i > INT_MAX)
			opt_error(res, prog, o, "'%s' value invalid for "
				  "integer argument!", v);
		else
			o->i = i;
		break;
	}
	case CLOPT_ENUM: {
		long long k = 0;

		while (o->choices[k] && strcmp(o->choices[k], v))
			k++;
		if (o->choices[k])
			o->i = k;
		else
			opt_error(res, prog, o, "Cannot find option named "
				  "'%s'!", v);
		break;
	}
	case CLOPT_ACTION:
		break;
	}
	return 0;
}

/* ---- "Did you mean" ---- */

static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t row[256], *r = row;
	size_t best;

	if (nb + 1 > sizeof(row) / sizeof(row[0])) {
		r = malloc((nb + 1) * sizeof(*r));
		if (!r)
			return SIZE_MAX;
	}
	for (size_t j = 0; j <= nb; j++)
		r[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t prev = r[0];

		r[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t old = r[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t del = r[j] + 1, ins = r[j - 1] + 1;

			r[j] = sub < del ? sub : del;
			if (ins < r[j])
				r[j] = ins;
			prev = old;
		}
	}
	best = r[nb];
	if (r != row)
		free(r);
	return best;
}

/* The first option, in map order, at the least edit distance; an option that
 * takes a value is compared without the "=value" part, which is kept. */
static void suggest(struct clopt *opts, size_t n, const char *arg,
		    char *out, size_t cap)
{
	const char *eq = strchr(arg, '=');
	size_t lhs = eq ? (size_t)(eq - arg) : strlen(arg);
	size_t best = SIZE_MAX;
	const struct clopt *pick = NULL;

	out[0] = 0;
	if (!*arg)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct clopt *o = &opts[i];
		bool takes_value = o->type != CLOPT_ACTION;
		size_t flag_len = takes_value ? lhs : strlen(arg);
		size_t d;

		if ((o->flags & CLOPT_NO_SUGGEST) || o->type == CLOPT_POSITIONAL)
			continue;
		d = edit_distance(o->name, strlen(o->name), arg, flag_len);
		if (!pick || d < best || (d == best &&
		    (o->flags & CLOPT_EARLY) && !(pick->flags & CLOPT_EARLY))) {
			pick = o;
			best = d;
		}
	}
	if (!pick)
		return;
	if (eq && pick->type != CLOPT_ACTION)
		snprintf(out, cap, "%s=%s", pick->name, eq + 1);
	else
		snprintf(out, cap, "%s", pick->name);
}

/* ---- the parse ---- */

static struct clopt *lookup(struct clopt *opts, size_t n, const char *name,
			    size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (opts[i].type != CLOPT_POSITIONAL &&
		    strlen(opts[i].name) == len &&
		    !memcmp(opts[i].name, name, len))
			return &opts[i];
	return NULL;
}

static struct clopt *group_leader(struct clopt *opts, size_t n, const char *s)
{
	struct clopt *g = *s ? lookup(opts, n, s, 1) : NULL;

	return g && (g->flags & CLOPT_GROUPING) ? g : NULL;
}

/* An unknown word that starts with one-letter grouping options is those
 * options and a rest, as LLVM reads it: "-hhx" sets -h twice and leaves
 * "x"; "-ho x" and "-ho=x" set -h and give -o the value x; "-ofile" is an
 * error, since an option that takes a value may only end a group.  Returns
 * the option that ends the group (its value in *value, NULL to take the
 * next word), or NULL with *name set to what LLVM then suggests for (it
 * still reports the whole word). */
static struct clopt *take_group(struct clopt *opts, size_t n, const char *prog,
				const char **name, const char **value,
				struct clopt_result *res)
{
	const char *s = *name;
	struct clopt *g = group_leader(opts, n, s);

	while (g) {
		const char *rest = s + 1;

		if (!*rest || *rest == '=') {
			*value = *rest ? rest + 1 : NULL;
			return g;
		}
		if (g->type != CLOPT_BOOL) {
			opt_error(res, prog, g, "may not occur within a group!");
			*name = g->name;
			return NULL;
		}
		add_value(g, prog, "", res);
		s = rest;
		g = group_leader(opts, n, s);
		if (!g)
			*name = s;
	}
	return NULL;
}

/* A word that is no option: the next positional option takes it; LLVM
 * counts the ones left over in *extra. */
static int positional(struct clopt *opts, size_t n, const char *prog,
		      const char *arg, struct clopt_result *res, size_t *extra)
{
	struct clopt *o;

	for (o = opts; o < opts + n; o++)
		if (o->type == CLOPT_POSITIONAL && !o->count)
			break;
	if (o == opts + n) {
		(*extra)++;
		return 0;
	}
	return add_value(o, prog, arg, res);
}

/* An option's value, or with CLOPT_COMMA each piece of it.  The pieces
 * point into args[]: they are cut in place. */
static int add_values(struct clopt *o, const char *prog, const char *value,
		      struct clopt_result *res)
{
	const char *comma;

	while ((o->flags & CLOPT_COMMA) &&
	       (comma = strchr(value, ',')) != NULL) {
		*(char *)comma = 0;
		if (add_value(o, prog, value, res) < 0)
			return -1;
		value = comma + 1;
	}
	return add_value(o, prog, value, res);
}

/* The option "-name", "--name" or "-name=value" names (its value in
 * *value), or a group of one-letter ones; NULL, with the closest name
 * in near (or "") to suggest, when none. */
static struct clopt *named(struct clopt *opts, size_t n, const char *prog,
			   const char *arg, const char **value, char *near,
			   size_t near_size, struct clopt_result *res)
{
	const char *name = arg + 1 + (arg[1] == '-');
	const char *eq = strchr(name, '=');
	struct clopt *o = lookup(opts, n, name,
				 eq ? (size_t)(eq - name) : strlen(name));

	if (o && eq)
		*value = eq + 1;
	if (!o && strlen(name) > 1)
		o = take_group(opts, n, prog, &name, value, res);
	if (!o)
		suggest(opts, n, name, near, near_size);
	return o;
}

int clopt_parse(struct clopt *opts, size_t n, const char *prog, int argc,
		char **argv, struct clopt_result *res)
{
	size_t cap = 0, npositional = 0, extra = 0;
	bool dashdash = false;
	char **args;
	size_t nargs;

	memset(res, 0, sizeof(*res));
	for (int i = 1; i < argc; i++)
		if (push_arg(res, &cap, strdup(argv[i])) < 0)
			return -1;
	switch (expand(res, &cap)) {
	case 0:
		break;
	case 1:
		/* LLVM reports it and parses nothing: the tool goes on
		 * with every option at its default. */
		res->failed = false;
		res->expand_failed = true;
		return 0;
	default:
		return -1;
	}
	args = res->args;
	nargs = res->nargs;
	for (size_t i = 0; i < n; i++)
		npositional += opts[i].type == CLOPT_POSITIONAL;

	for (size_t i = 0; i < nargs; i++) {
		const char *arg = args[i], *value = NULL;
		struct clopt *o = NULL;
		char near[1024] = "";

		if (arg[0] != '-' || !arg[1] || dashdash) {
			/* A positional argument; LLVM calls every one
			 * unknown in a tool that takes none. */
			if (npositional) {
				if (positional(opts, n, prog, arg, res,
					       &extra) < 0)
					return -1;
				continue;
			}
		} else if (!strcmp(arg, "--")) {
			dashdash = true;
			continue;
		} else {
			o = named(opts, n, prog, arg, &value, near,
				  sizeof(near), res);
		}
		if (!o) {
			say(res, "%s: Unknown command line argument '%s'.  "
			    "Try: '%s --help'\n", prog, arg, argv[0]);
			if (near[0])
				say(res, "%s: Did you mean '%s%s'?\n", prog,
				    dashes(strlen(near)), near);
			continue;
		}

		switch (o->type) {
		case CLOPT_ACTION:
			if (value) {
				opt_error(res, prog, o, "does not allow a "
					  "value! '%s' specified.", value);
				continue;
			}
			res->action = o;
			return 0;
		case CLOPT_BOOL:
			if (add_value(o, prog, value ? value : "true", res) < 0)
				return -1;
			continue;
		default:
			break;
		}
		if (!value) {
			if (i + 1 >= nargs) {
				opt_error(res, prog, o, "requires a value!");
				continue;
			}
			value = args[++i];
		}
		if (add_values(o, prog, value, res) < 0)
			return -1;
	}

	if (extra)
		say(res, "%s: Too many positional arguments specified!\n"
		    "Can specify at most %zu positional arguments: See: %s "
		    "--help\n", prog, npositional, argv[0]);
	for (size_t i = 0; i < n; i++)
		if ((opts[i].flags & CLOPT_REQUIRED) && !opts[i].count)
			opt_error(res, prog, &opts[i],
				  "must be specified at least once!");
	return 0;
}

void clopt_result_free(struct clopt_result *res)
{
	for (size_t i = 0; i < res->nargs; i++)
		free(res->args[i]);
	free(res->args);
	free(res->errors);
	memset(res, 0, sizeof(*res));
}

void clopt_free(struct clopt *opts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(opts[i].list);
		opts[i].list = NULL;
		opts[i].nlist = 0;
	}
}
