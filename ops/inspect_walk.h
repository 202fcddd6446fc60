/* inspect_walk: the state of one walk (see inspect.h), which inspect.c
 * hands its parts: inspect_containers.c, inspect_nv.c and inspect_kpack.c
 * (each declares its functions in its own header), through the rows of
 * kinds.c. */
#ifndef OPS_INSPECT_WALK_H
#define OPS_INSPECT_WALK_H

#include "inspect_node.h"

struct walk {
	const struct inspect_opts *o;
	inspect_visit_fn visit;
	void *ctx;
	struct err *e;
	unsigned containers;	/* numbered so far in this file */
	int stop;		/* what the visitor returned, when not 0 */
	struct nv_ahead *nv;	/* NVIDIA entries decoded ahead (inspect_nv.c) */
};

#endif
