/* unsupported: the inputs offcode_prune refuses (unsupported.c). */
#ifndef LIB_UNSUPPORTED_H
#define LIB_UNSUPPORTED_H

#include <stddef.h>
#include <stdint.h>

/* What the file at path is of the inputs the library does not prune (a
 * container image: an OCI layout directory, a transport spec such as
 * oci-archive:, a tar archive), or NULL; before it is opened. */
const char *unsupported_path(const char *path);
/* The same of a file's name and bytes: "a Debian package", "a wheel", "a
 * conda package", "a tar archive (a container image to offload)", or
 * NULL. */
const char *unsupported_bytes(const char *name, const uint8_t *p,
			      size_t len);
/* The reason given for refusing the input name, which is what: into buf
 * (cap bytes), NUL-ended. */
void unsupported_reason(char *buf, size_t cap, const char *name,
			const char *what);

#endif
