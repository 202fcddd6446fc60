/* zip_rewrite: members replaced, the rest copied (zip_rewrite.h). */
#include <stdlib.h>
#include <string.h>

#include "zip_rewrite.h"
#include "../core/io_write.h"

static const struct zip_new *replaced(const struct zip_new *repl, size_t n,
				      size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (repl[k].entry == i)
			return &repl[k];
	return NULL;
}

static int too_many_extras(const struct zip_entry *en, struct err *e)
{
	return err_code_set(e, ERR_MALFORMED, "zip member '%.*s': its extra "
			    "fields and a ZIP64 one pass 65535 bytes",
			    (int)en->name_len, en->name);
}

int zip_rewrite(const struct io_in *in, const struct zip *z,
		const struct zip_new *repl, size_t n, struct io_out *out,
		uint64_t *written, struct err *e)
{
	uint64_t *local = calloc(z->n + 1, sizeof(*local));
	uint8_t *copy = NULL;
	uint64_t at = 0, central;
	size_t len;
	int rc = -1;

	if (!local || !(copy = malloc(ZIP_HEADER_MAX > ZIP_END_MAX ?
				      ZIP_HEADER_MAX : ZIP_END_MAX))) {
		err_nomem(e);
		goto out;
	}
	for (size_t k = 0; k < z->n; k++) {
		size_t i = z->by_offset[k];
		const struct zip_entry *en = &z->entry[i];
		const struct zip_new *ch = replaced(repl, n, i);

		local[i] = at;
		if (!ch) {
			if (io_out_copy(out, in, en->local,
					en->end - en->local, e) < 0)
				goto out;
			at += en->end - en->local;
			continue;
		}
		if (!(len = zip_local_make(z, en, ch->crc, ch->csize, ch->usize,
					   copy))) {
			too_many_extras(en, e);
			goto out;
		}
		if (io_out_write(out, copy, len, e) < 0 ||
		    (ch->from ? io_out_copy(out, ch->from,
					    (uint64_t)(ch->data - ch->from->data),
					    ch->csize, e)
			      : io_out_write(out, ch->data, ch->csize, e)) < 0)
			goto out;
		at += len + ch->csize;
	}
	central = at;
	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *en = &z->entry[i];
		const struct zip_new *ch = replaced(repl, n, i);

		len = ch ? zip_central_make(z, en, ch->crc, ch->csize,
					    ch->usize, local[i], true, copy)
			 : zip_central_make(z, en, en->crc, en->csize,
					    en->usize, local[i], false, copy);
		if (!len) {
			too_many_extras(en, e);
			goto out;
		}
		if (io_out_write(out, copy, len, e) < 0)
			goto out;
		at += len;
	}
	len = zip_end_make(z, z->n, central, at - central, copy);
	if (io_out_write(out, copy, len, e) < 0)
		goto out;
	*written = at + len;
	rc = 0;
out:
	free(local);
	free(copy);
	return rc;
}
