/* image_kind: an entry's image kind, read when it is first asked for.
 * The walk at open leaves a bundle entry's code in the file unread (as
 * `offload ls` does: a page faulted in for each entry cost librocsparse's
 * 1,562 entries more than the rest of the open); ls --json's image_kind is
 * sniffed from the same first bytes here, by pread for a file (its map's
 * pages stay out of the process, and a file cut short gives no SIGBUS). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "image_kind.h"
#include "../ops/inspect.h"
#include "../ops/inspect_containers.h"
#include "../ops/inspect_ccob.h"
#include "../ops/kind_present.h"
#include "../formats/package.h"

bool image_kind_later(const struct inspect_node *n,
		      const struct inspect_target *t)
{
	/* The two kinds whose walk sniffs in-file code only when asked to
	 * (inspect_opts.image_kinds); and of those, the entries whose target
	 * shows an image kind once there is one: both name their targets by
	 * bundle ID, and one without a target ID field shows none. */
	return n->in_file && n->image_kind == PACKAGE_IMG_NONE &&
	       (n->container == FATBIN_BUNDLE ||
		n->container == FATBIN_OBJECT_BUNDLE) &&
	       t->id_has_target;
}

/* The first min(len, cap) bytes at off into buf: how many were read. */
static size_t first_bytes(const offcode_artifact *a, uint64_t off,
			  uint64_t len, uint8_t *buf, size_t cap)
{
	size_t want = len < cap ? (size_t)len : cap, got = 0;

	if (off > a->len || want > a->len - off)
		return 0;
	if (!a->is_file || a->in.fd < 0) {
		memcpy(buf, a->data + off, want);
		return want;
	}
	while (got < want) {
		ssize_t r = pread(a->in.fd, buf + got, want - got,
				  (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

const char *image_kind_read(offcode_artifact *a, offcode_entry *e)
{
	uint8_t head[INSPECT_HEAD];
	size_t n;

	/* Headers alone: no page of code read, ever (offcode.h). */
	if (!e->image_later || (a->opts.flags & OFFCODE_OPEN_HEADERS_ONLY))
		return e->image_kind;
	if (artifact_file(a))	/* as for a file that no longer has it */
		return NULL;
	n = first_bytes(a, e->offset, e->size, head, sizeof(head));
	/* The sniff looks at the first INSPECT_HEAD bytes alone, and at the
	 * size to know whether an ELF header could be there. */
	if (n == (e->size < sizeof(head) ? e->size : sizeof(head)))
		e->image_kind = kind_present_image_name(
			inspect_sniff_image(head, e->size));
	e->image_later = false;
	return e->image_kind;
}
