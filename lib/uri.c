/* uri: code object URIs, file://PATH#offset=N&size=N, taken apart
 * (include/offcode.h, "files written"): core/uri.c's parser, its record
 * made public. */
#include <stdlib.h>

#include "error.h"
#include "../core/uri.h"

bool offcode_uri_is(const char *s)
{
	return s && uri_is_uri(s);
}

int offcode_uri_parse(const char *s, struct offcode_uri *u,
		      offcode_error **err)
{
	struct uri parsed;
	struct err e;
	offcode_error *r;

	if (err)
		*err = NULL;
	if (!s || !u || u->size < sizeof(*u)) {
		r = error_new(OFFCODE_INVALID, "no URI, or no place for it, or "
			      "its size too small");
		goto fail;
	}
	u->path = NULL;
	if (uri_parse(s, &parsed, &e) < 0) {
		r = error_from(&e, NULL);
		goto fail;
	}
	u->path = parsed.path;
	u->offset = parsed.offset;
	u->length = parsed.size;
	u->has_length = parsed.has_size;
	return OFFCODE_OK;
fail:
	return error_give(r, err);
}

void offcode_uri_free(struct offcode_uri *u)
{
	if (!u)
		return;
	free(u->path);
	u->path = NULL;
}
