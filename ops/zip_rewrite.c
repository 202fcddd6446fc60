/* zip_rewrite: members replaced, the rest copied (zip_rewrite.h). */
#include <stdlib.h>
#include <string.h>

#include "zip_rewrite.h"
#include "../core/io_out.h"
#include "../core/io_write.h"

static const struct zip_new *replaced(const struct zip_new *repl, size_t n,
				      size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (repl[k].entry == i)
			return &repl[k];
	return NULL;
}

int zip_rewrite(const struct io_in *in, const struct zip *z,
		const struct zip_new *repl, size_t n, const char *path,
		uint64_t *written, struct err *e)
{
	struct io_out out = { .fd = -1 };
	uint32_t *local = calloc(z->n + 1, sizeof(*local));
	uint8_t *copy = NULL;
	uint64_t at = 0, central;
	int rc = -1;

	if (!local || !(copy = malloc(ZIP_CENTRAL_LEN + 3 * 0xffff))) {
		err_nomem(e);
		goto out;
	}
	if (io_out_open(&out, path, e) < 0)
		goto out;
	io_out_mode_from(&out, in);
	for (size_t k = 0; k < z->n; k++) {
		size_t i = z->by_offset[k];
		const struct zip_entry *en = &z->entry[i];
		const struct zip_new *ch = replaced(repl, n, i);
		size_t head = (size_t)(en->data - en->local);

		if (at > UINT32_MAX) {
			err_code_set(e, ERR_MALFORMED, "the archive would need "
				     "ZIP64");
			goto out;
		}
		local[i] = (uint32_t)at;
		if (!ch) {
			if (io_out_copy(&out, in, en->local,
					en->end - en->local, e) < 0)
				goto out;
			at += en->end - en->local;
			continue;
		}
		memcpy(copy, in->data + en->local, head);
		zip_local_set(copy, ch->crc, ch->csize, ch->usize);
		if (io_out_write(&out, copy, head, e) < 0 ||
		    (ch->from ? io_out_copy(&out, ch->from,
					    (uint64_t)(ch->data - ch->from->data),
					    ch->csize, e)
			      : io_out_write(&out, ch->data, ch->csize, e)) < 0)
			goto out;
		at += head + ch->csize;
	}
	central = at;
	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *en = &z->entry[i];
		const struct zip_new *ch = replaced(repl, n, i);

		memcpy(copy, in->data + en->central, en->central_len);
		if (ch)
			zip_central_set(copy, ch->crc, ch->csize, ch->usize);
		zip_central_set_local(copy, local[i]);
		if (io_out_write(&out, copy, en->central_len, e) < 0)
			goto out;
		at += en->central_len;
	}
	if (at > UINT32_MAX) {
		err_code_set(e, ERR_MALFORMED, "the archive would need ZIP64");
		goto out;
	}
	memcpy(copy, in->data + z->eocd, in->len - z->eocd);
	zip_eocd_set(copy, (uint32_t)central, (uint32_t)(at - central));
	if (io_out_write(&out, copy, in->len - z->eocd, e) < 0)
		goto out;
	*written = at + (in->len - z->eocd);
	rc = io_out_commit(&out, e);
out:
	if (rc < 0 && out.fd >= 0)
		io_out_discard(&out);
	free(local);
	free(copy);
	return rc;
}
