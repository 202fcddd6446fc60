/* bundle: what the binary, text and object layouts share; reading any of
 * them is bundle_reader.c. */
#include <stdlib.h>
#include <string.h>

#include "bundle.h"

void bundle_close(struct bundle_reader *r)
{
	strmap_free(&r->entries);
	free(r->off);
	free(r->size);
	free(r->ids);
	free(r->id_len);
	memset(r, 0, sizeof(*r));
}

void bundle_plan_free(struct bundle_plan *plan)
{
	free(plan->piece);
	free(plan->storage);
	memset(plan, 0, sizeof(*plan));
}
