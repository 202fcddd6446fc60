/* image_archive: an archive's files indexed (image_archive.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_archive.h"
#include "../formats/tar.h"

enum { ARCHIVE_MEMBERS_MAX = 1 << 20 };

bool image_archive_is(const char *path)
{
	uint8_t b[TAR_BLOCK];
	struct tar_header h;
	struct err e;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool is;

	if (fd < 0)
		return false;
	is = read(fd, b, sizeof(b)) == (ssize_t)sizeof(b) &&
	     !memcmp(b + 257, "ustar", 5) && tar_header_parse(b, &h, &e) == 0;
	close(fd);
	return is;
}

static int add(struct image_member **m, size_t *n, const char *name,
	       size_t name_len, uint64_t off, uint64_t size, struct err *e)
{
	struct image_member *nm;

	while (name_len >= 2 && name[0] == '.' && name[1] == '/') {
		name += 2;
		name_len -= 2;
	}
	if (*n >= ARCHIVE_MEMBERS_MAX)
		return err_bad(e, "more than %d files in the archive",
			       ARCHIVE_MEMBERS_MAX);
	if (!(nm = realloc(*m, (*n + 1) * sizeof(**m))))
		return err_nomem(e);
	*m = nm;
	nm[*n].offset = off;
	nm[*n].size = size;
	if (!(nm[*n].name = strndup(name, name_len)))
		return err_nomem(e);
	++*n;
	return 0;
}

int image_archive_index(const uint8_t *buf, size_t len,
			struct image_member **members, size_t *n,
			struct err *e)
{
	struct tar_pax over = { 0 };
	const char *longname = NULL;
	size_t longname_len = 0, off = 0;

	*members = NULL;
	*n = 0;
	while (off <= len && len - off >= TAR_BLOCK) {
		struct tar_header h;
		const uint8_t *data = buf + off + TAR_BLOCK;
		uint64_t size;

		if (tar_block_zero(buf + off))
			return 0;
		if (tar_header_parse(buf + off, &h, e) < 0)
			goto bad;
		size = h.size;
		if (h.kind != TAR_PAX && over.has_size)
			size = over.size;
		if (size > len - off - TAR_BLOCK) {
			err_cut(e, "a tar member's data end past the archive");
			goto bad;
		}
		switch (h.kind) {
		case TAR_PAX:
			if (tar_pax_parse(data, (size_t)size, &over, e) < 0)
				goto bad;
			break;
		case TAR_GNU_LONGNAME:
			longname = (const char *)data;
			longname_len = strnlen(longname, (size_t)size);
			break;
		case TAR_FILE:
			if (add(members, n, over.path ? over.path :
				longname ? longname : h.name,
				over.path ? over.path_len :
				longname ? longname_len : strlen(h.name),
				off + TAR_BLOCK, size, e) < 0)
				goto bad;
			/* fall through */
		case TAR_HARDLINK:
		case TAR_SYMLINK:
		case TAR_DEVICE:
		case TAR_DIRECTORY:
		case TAR_FIFO:
		case TAR_OTHER:
			memset(&over, 0, sizeof(over));
			longname = NULL;
			break;
		case TAR_PAX_GLOBAL:	/* nothing an image's files need */
		case TAR_GNU_LONGLINK:
			break;
		}
		off += TAR_BLOCK + (size_t)tar_padded(size);
	}
	if (off == len)
		return 0;
	err_cut(e, "tar archive ends inside a header");
bad:
	err_at(e, off);
	image_archive_free(*members, *n);
	*members = NULL;
	*n = 0;
	return -1;
}

void image_archive_free(struct image_member *members, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(members[i].name);
	free(members);
}
