/* member_prune.c: see member_prune.h. */
#include <string.h>

#include "member_prune.h"
#include "../core/io_scratch.h"

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
