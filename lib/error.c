/* error: liboffcode's error records and their accessors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

struct offcode_error {
	enum offcode_code code;
	int errnum;
	bool at;
	uint64_t offset;
	char *path, *reason, *message;
	offcode_error *cause;
	bool shared;		/* the out-of-memory record: never freed */
};

/* Read-only after being made: shared by every thread, so not mutable
 * state. */
static offcode_error nomem = {
	.code = OFFCODE_NOMEM, .path = (char *)"",
	.reason = (char *)"out of memory", .message = (char *)"out of memory",
	.shared = true,
};

offcode_error *error_nomem(void)
{
	return &nomem;
}

enum offcode_code error_code_of(enum err_code code)
{
	switch (code) {
	case ERR_OTHER:
		return OFFCODE_OTHER;
	case ERR_SYSTEM:
		return OFFCODE_SYSTEM;
	case ERR_TRUNCATED:
		return OFFCODE_TRUNCATED;
	case ERR_MALFORMED:
		return OFFCODE_MALFORMED;
	case ERR_DECOMPRESS:
		return OFFCODE_DECOMPRESS;
	case ERR_NOMEM:
		return OFFCODE_NOMEM;
	case ERR_NOTHING:
		return OFFCODE_NOTHING;
	case ERR_FATAL:
		return OFFCODE_FATAL;
	case ERR_CHANGED:
		return OFFCODE_CHANGED;
	}
	return OFFCODE_OTHER;
}

void offcode_error_free(offcode_error *err)
{
	while (err && !err->shared) {
		offcode_error *cause = err->cause;

		free(err->path);
		free(err->reason);
		free(err->message);
		free(err);
		err = cause;
	}
}

/* A record of these texts (copied), or NULL. */
static offcode_error *record(enum offcode_code code, int errnum, bool at,
			     uint64_t offset, const char *path,
			     const char *reason)
{
	offcode_error *r = calloc(1, sizeof(*r));
	size_t len;

	if (!r)
		return NULL;
	*r = (offcode_error){ .code = code, .errnum = errnum, .at = at,
			      .offset = at ? offset : 0 };
	r->path = strdup(path);
	r->reason = strdup(reason);
	len = strlen(path) + strlen(reason) + 5;
	if ((r->message = malloc(len))) {
		if (*path)
			snprintf(r->message, len, "'%s': %s", path, reason);
		else
			snprintf(r->message, len, "%s", reason);
	}
	if (!r->path || !r->reason || !r->message) {
		offcode_error_free(r);
		return NULL;
	}
	return r;
}

offcode_error *error_new(enum offcode_code code, const char *reason)
{
	return record(code, 0, false, 0, "", reason);
}

offcode_error *error_from(const struct err *e, const char *path)
{
	offcode_error *outer, *last;
	const char *p = e->path[0] || !path ? e->path : path;

	if (!(outer = record(error_code_of(e->code), e->errnum, e->at,
			     e->offset, p, e->why)))
		return NULL;
	/* The links, outermost first; each one's text is the end of the
	 * outer why from where err_wrap put it. */
	last = outer;
	for (unsigned i = e->nchain; i-- > 0;) {
		const struct err_link *l = &e->chain[i];
		const char *text = e->why + l->text_at;
		const char *lpath = i == 0 ? e->cause_path : "";
		size_t plen = strlen(lpath);
		offcode_error *r;

		/* The innermost one's message names its file: its reason is
		 * what follows. */
		if (plen && text[0] == '\'' && !strncmp(text + 1, lpath, plen) &&
		    !strncmp(text + 1 + plen, "': ", 3))
			text += plen + 4;
		if (!(r = record(error_code_of(l->code), l->errnum, l->at,
				 l->offset, lpath, text))) {
			offcode_error_free(outer);
			return NULL;
		}
		last->cause = r;
		last = r;
	}
	return outer;
}

enum offcode_code offcode_error_code(const offcode_error *err)
{
	return err ? err->code : OFFCODE_INVALID;
}

int offcode_error_errno(const offcode_error *err)
{
	return err ? err->errnum : 0;
}

const char *offcode_error_reason(const offcode_error *err)
{
	return err ? err->reason : "";
}

const char *offcode_error_path(const offcode_error *err)
{
	return err ? err->path : "";
}

const char *offcode_error_message(const offcode_error *err)
{
	return err ? err->message : "";
}

bool offcode_error_offset(const offcode_error *err, uint64_t *offset)
{
	if (!err || !err->at)
		return false;
	if (offset)
		*offset = err->offset;
	return true;
}

const offcode_error *offcode_error_cause(const offcode_error *err)
{
	return err ? err->cause : NULL;
}

const char *offcode_code_name(enum offcode_code code)
{
	switch (code) {
	case OFFCODE_OK:
		return "ok";
	case OFFCODE_OTHER:
		return err_code_name(ERR_OTHER);
	case OFFCODE_SYSTEM:
		return err_code_name(ERR_SYSTEM);
	case OFFCODE_TRUNCATED:
		return err_code_name(ERR_TRUNCATED);
	case OFFCODE_MALFORMED:
		return err_code_name(ERR_MALFORMED);
	case OFFCODE_DECOMPRESS:
		return err_code_name(ERR_DECOMPRESS);
	case OFFCODE_NOMEM:
		return err_code_name(ERR_NOMEM);
	case OFFCODE_NOTHING:
		return err_code_name(ERR_NOTHING);
	case OFFCODE_FATAL:
		return err_code_name(ERR_FATAL);
	case OFFCODE_CHANGED:
		return err_code_name(ERR_CHANGED);
	case OFFCODE_INVALID:
		return "invalid";
	case OFFCODE_RANGE:
		return "range";
	case OFFCODE_UNSUPPORTED:
		return "unsupported";
	case OFFCODE_BAD_HASH:
		return "bad-hash";
	}
	return NULL;
}

int error_give(offcode_error *r, offcode_error **err)
{
	int code;

	if (!r)
		r = error_nomem();
	code = r ? offcode_error_code(r) : OFFCODE_NOMEM;
	if (err)
		*err = r;
	else
		offcode_error_free(r);
	return code;
}
