/* uri: code object URIs as ROCm's loader and its roc-obj tools write and
 * read them: file://PATH#offset=N&size=N, PATH percent-encoded. */
#ifndef CORE_URI_H
#define CORE_URI_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

/* "file://" + path percent-encoded (every byte but letters, digits, '-',
 * '.', '_', '~' and '/') + "#offset=N&size=N", N in decimal.  malloc'd,
 * NULL when out of memory. */
char *uri_file(const char *path, uint64_t offset, uint64_t size);

/* A file URI taken apart, as roc-obj-extract reads one: the scheme in any
 * case, the path up to the first '#' or '?' percent-decoded, then
 * "offset=N" and "size=N" joined by '&', each N decimal, 0x hex or 0 octal
 * (either may be missing: offset 0, size to the end of the file). */
struct uri {
	char *path;		/* malloc'd */
	uint64_t offset, size;
	bool has_size;
};

bool uri_is_uri(const char *s);		/* has a scheme ("name://") */
/* -1 with e saying what is wrong: another scheme (memory:// included),
 * or (ERR_MALFORMED) no path, a bad escape, an unknown attribute, a
 * number that is not one. */
int uri_parse(const char *s, struct uri *u, struct err *e);
void uri_free(struct uri *u);

#endif
