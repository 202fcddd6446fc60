/* unsupported: the inputs offcode_prune does not write: Debian, wheel and
 * conda packages and container images (the library reads them,
 * members.c; `offload prune` writes them: applets/prune_package.c,
 * prune_image.c).  They are told apart as the tool tells them, so that
 * none is pruned as the ar archive, zip or tar it also is. */
#include <stdio.h>
#include <string.h>

#include "unsupported.h"
#include "../ops/conda.h"
#include "../ops/deb.h"
#include "../ops/image.h"
#include "../ops/wheel.h"
#include "../formats/tar.h"

const char *unsupported_path(const char *path)
{
	return image_is(path) ? "a container image" : NULL;
}

/* A ustar archive: what the tool reads as an image archive
 * (ops/image_archive.c). */
static bool tar_probe(const uint8_t *p, size_t len)
{
	struct tar_header h;
	struct err e;

	return len >= TAR_BLOCK && !memcmp(p + 257, "ustar", 5) &&
	       tar_header_parse(p, &h, &e) == 0;
}

const char *unsupported_bytes(const char *name, const uint8_t *p,
			      size_t len)
{
	if (deb_probe(p, len))
		return "a Debian package";
	if (wheel_probe(name, p, len))
		return "a wheel";
	if (conda_probe(name, p, len))
		return "a conda package";
	if (tar_probe(p, len))
		return "a tar archive (a container image to offload)";
	return NULL;
}

void unsupported_reason(char *buf, size_t cap, const char *name,
			const char *what)
{
	snprintf(buf, cap, "'%.400s': %s: liboffcode does not prune packages "
		 "or container images (offload prune does)",
		 name, what);
}
