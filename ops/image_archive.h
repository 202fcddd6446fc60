/* image_archive: the files of a tar archive that holds an image (an OCI
 * archive, a docker save archive), found in its mapped bytes. */
#ifndef OPS_IMAGE_ARCHIVE_H
#define OPS_IMAGE_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

struct image_member {
	char *name;		/* without a leading "./" */
	uint64_t offset, size;	/* of its data in the archive */
};

/* Whether the file at path is a tar archive whose first member headers
 * read well (the probe of a plain path). */
bool image_archive_is(const char *path);
/* The regular files of the archive buf[0..len): 0, or -1 with e filled
 * (a header that is not tar, data past the end). */
int image_archive_index(const uint8_t *buf, size_t len,
			struct image_member **members, size_t *n,
			struct err *e);
void image_archive_free(struct image_member *members, size_t n);

#endif
