/* layer_bytes: a package's or an image's files handed over as bytes
 * (include/offcode.h, "files written"): members.c's layer walk, its
 * files not opened, for a caller that walks them itself (extract). */
#include "members.h"

int offcode_layer_walk_bytes(offcode_artifact *a, size_t i,
			     offcode_member_bytes_fn fn, void *ctx)
{
	return members_layer_walk(a, i, 0, NULL, fn, ctx, NULL);
}
