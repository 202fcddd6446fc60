/* json_edit: a JSON text with some string values replaced, and the
 * "size" of each descriptor (an object whose "digest" is one of them)
 * set anew, every other byte kept: an image's index, manifests and
 * config edited so that what did not change compares equal.  The text
 * must be valid JSON (read by a real parser first); what this scanner
 * cannot follow is refused, never guessed. */
#ifndef FORMATS_JSON_EDIT_H
#define FORMATS_JSON_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

struct json_edit {
	const char *from, *to;	/* string values, without quotes */
	bool has_size;		/* the descriptor's "size" becomes size */
	uint64_t size;
	/* The descriptor's "mediaType" becomes this, unless NULL. */
	const char *media_type;
	/* Counted up by json_edit (the caller zeroes it): the values from
	 * replaced (none when it is written with escapes, say). */
	size_t hits;
};

/* text[0..len) edited: *out (malloc'd, NUL-ended) and *out_len; *hits
 * the values replaced.  -1 with e filled. */
int json_edit(const char *text, size_t len, struct json_edit *ed,
	      size_t n, char **out, size_t *out_len, size_t *hits,
	      struct err *e);

#endif
