/* err: the error record that core/ and formats/ fill and applets print. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

static void render(struct err *e)
{
	if (e->path[0])
		snprintf(e->msg, sizeof(e->msg), "'%s': %s", e->path, e->why);
	else
		snprintf(e->msg, sizeof(e->msg), "%s", e->why);
}

static void set_path(struct err *e, const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (n < sizeof(e->path)) {
		memcpy(e->path, path ? path : "", n + 1);
		return;
	}
	/* Keep the head, which says where, and mark the cut. */
	memcpy(e->path, path, sizeof(e->path) - 4);
	memcpy(e->path + sizeof(e->path) - 4, "...", 4);
}

static int fill(struct err *e, enum err_code code, int errnum,
		const char *path, const char *fmt, va_list ap)
{
	if (!e)
		return -1;
	/* fmt's arguments may point into e itself (a caller prefixing what
	 * an inner call said): format first, into a buffer of our own. */
	char why[ERR_WHY_MAX];

	vsnprintf(why, sizeof(why), fmt, ap);
	e->code = code;
	e->errnum = errnum;
	e->llvm_words = false;
	e->at = false;
	e->offset = 0;
	e->nchain = 0;
	e->cause_path[0] = 0;
	set_path(e, path);
	memcpy(e->why, why, sizeof(why));
	render(e);
	return -1;
}

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, ERR_OTHER, 0, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int err_code_set(struct err *e, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, code, 0, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int err_bad(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, ERR_MALFORMED, 0, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int err_cut(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, ERR_TRUNCATED, 0, NULL, fmt, ap);
	va_end(ap);
	return -1;
}


int err_llvm(struct err *e, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, code, 0, NULL, fmt, ap);
	va_end(ap);
	if (e)
		e->llvm_words = true;
	return -1;
}

int err_sys(struct err *e, const char *path, int errnum)
{
	return err_code_file(e, errnum == ENOMEM ? ERR_NOMEM : ERR_SYSTEM,
			 errnum, path, "%s", strerror(errnum));
}

int err_sys_for(struct err *e, const char *path, int errnum,
		const char *fmt, ...)
{
	char ctx[ERR_WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	return err_code_file(e, errnum == ENOMEM ? ERR_NOMEM : ERR_SYSTEM, errnum,
			 path, "%s: %s", ctx, strerror(errnum));
}

int err_file(struct err *e, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, ERR_OTHER, 0, path, fmt, ap);
	va_end(ap);
	return -1;
}

int err_code_file(struct err *e, enum err_code code, int errnum,
		  const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(e, code, errnum, path, fmt, ap);
	va_end(ap);
	return -1;
}

bool err_names(const struct err *e, const char *path)
{
	size_t n = strlen(e->path);

	if (!strcmp(e->path, path))
		return true;
	/* set_path's cut: the head, then "...", filling the record. */
	return n == sizeof(e->path) - 1 && !strcmp(e->path + n - 3, "...") &&
	       !strncmp(e->path, path, n - 3);
}

/* s after the at bytes of why, cut as snprintf cuts (NUL-terminated). */
static void append(char *why, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (n > ERR_WHY_MAX - 1 - *at)
		n = ERR_WHY_MAX - 1 - *at;
	memcpy(why + *at, s, n);
	*at += n;
	why[*at] = 0;
}

int err_nomem(struct err *e)
{
	return err_code_set(e, ERR_NOMEM, "out of memory");
}

int err_wrap(struct err *e, enum err_code code, const char *fmt, ...)
{
	struct err_link in;
	char ctx[ERR_WHY_MAX];
	unsigned n;
	bool added;
	va_list ap;

	if (!e)
		return -1;
	in = (struct err_link){ e->code, e->errnum, e->offset, e->at, 0 };
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	/* The innermost path stays; a wrapped record names none itself. */
	if (!e->cause_path[0] && e->path[0])
		memcpy(e->cause_path, e->path, sizeof(e->path));
	n = e->nchain;
	added = n < ERR_CHAIN_MAX;
	if (added)
		e->chain[n++] = in;
	/* ctx and e->msg are both at most what why holds, and msg is
	 * rendered from why: format the line before touching e. */
	{
		char why[ERR_WHY_MAX];
		size_t at = 0;

		append(why, &at, ctx);
		append(why, &at, ": ");
		/* The links' texts move along by what goes before them (a
		 * wrapped record's msg is its why: it names no path). */
		for (unsigned i = 0; i < n; i++) {
			size_t moved = e->chain[i].text_at + at;

			if (added && i + 1 == n)
				moved = at;
			e->chain[i].text_at = (uint16_t)(moved < ERR_WHY_MAX - 1
				? moved : ERR_WHY_MAX - 1);
		}
		append(why, &at, e->msg);
		memcpy(e->why, why, sizeof(why));
		for (unsigned i = 0; i < n; i++)
			if (e->chain[i].text_at > strlen(e->why))
				e->chain[i].text_at = (uint16_t)strlen(e->why);
	}
	e->code = code;
	e->errnum = 0;
	e->llvm_words = false;
	e->at = false;
	e->offset = 0;
	e->nchain = n;
	e->path[0] = 0;
	render(e);
	return -1;
}

const char *err_code_name(enum err_code code)
{
	switch (code) {
	case ERR_OTHER:
		return "other";
	case ERR_SYSTEM:
		return "system";
	case ERR_TRUNCATED:
		return "truncated";
	case ERR_MALFORMED:
		return "malformed";
	case ERR_DECOMPRESS:
		return "decompress";
	case ERR_NOMEM:
		return "out-of-memory";
	case ERR_NOTHING:
		return "nothing";
	case ERR_FATAL:
		return "fatal";
	case ERR_CHANGED:
		return "changed";
	}
	return "other";
}

int err_at(struct err *e, uint64_t offset)
{
	if (e) {
		e->offset = offset;
		e->at = true;
	}
	return -1;
}

struct err_link err_cause(const struct err *e)
{
	if (e->nchain)
		return e->chain[0];
	return (struct err_link){ e->code, e->errnum, e->offset, e->at, 0 };
}

const char *err_display_path(const char *path, int for_output)
{
	if (path && !strcmp(path, "-"))
		return for_output ? "standard output" : "standard input";
	return path;
}
