/* unsupported: the inputs liboffcode does not read: Debian, wheel and
 * conda packages and container images.  The tool reads each of them as
 * many files (a package's or a layer's members, streamed through scratch
 * files: ops/deb.c, wheel.c, conda.c, image.c), where an artefact of the
 * library is one file whose entries lie at offsets in it.  They are told
 * apart as the tool tells them (ls's dispatch), so that none is walked as
 * the ar archive, zip or tar it also is and listed with no code. */
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
	snprintf(buf, cap, "'%.400s': %s: liboffcode does not read packages "
		 "or container images (offload ls, extract and prune do)",
		 name, what);
}
