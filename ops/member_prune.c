/* member_prune.c: see member_prune.h. */
#include <string.h>

#include "member_prune.h"
#include "../core/io_scratch.h"
#include "../core/sha256.h"

void member_prune_done(struct member_prune *mp)
{
	if (mp->planned)
		prune_plan_free(&mp->plan);
	mp->planned = false;
	if (mp->scratch.fd >= 0)
		io_out_discard(&mp->scratch);
	memset(&mp->scratch, 0, sizeof(mp->scratch));
	mp->scratch.fd = -1;
}

int member_prune_plan(struct member_prune *mp, const struct io_in *data,
		      const struct prune_opts *po, struct err *e)
{
	member_prune_done(mp);
	if (prune_plan(data->data, data->len, po, &mp->plan, e) < 0)
		return e->code == ERR_NOTHING ? 0 : -1;
	mp->planned = true;
	return mp->plan.entries_dropped ? 1 : 0;
}

int member_prune_write(struct member_prune *mp, const struct io_in *data,
		       struct io_in *repl, struct err *e)
{
	if (io_scratch_open(&mp->scratch, e) < 0 ||
	    prune_write(data, &mp->plan, &mp->scratch, e) < 0 ||
	    io_scratch_view(&mp->scratch, repl, e) < 0)
		return -1;
	return 0;
}

int member_prune_sha256(const struct io_in *in, char *hex, struct err *e)
{
	enum { RUN = 8 << 20 };
	struct sha256 *s = sha256_new(e);

	if (!s)
		return -1;
	for (size_t off = 0; off < in->len; off += RUN) {
		size_t n = in->len - off < RUN ? in->len - off : RUN;

		sha256_update(s, in->data + off, n);
		io_in_hint(in, off, off + n, IO_IN_DONE);
	}
	sha256_hex(s, hex);
	sha256_free(s);
	return 0;
}
