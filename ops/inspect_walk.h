/* inspect_walk: the state of one walk (see inspect.h), which inspect.c
 * hands its parts: inspect_hosts.c through the rows of hosts.c, and
 * inspect_containers.c, inspect_nv.c and inspect_kpack.c through the rows
 * of kinds.c (each declares its functions in its own header). */
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
	/* Walk an input found inside another (an archive's member) as the
	 * file is walked: inspect.c's, through the table of host formats
	 * (hosts.h), which the formats' walks do not call back. */
	int (*input)(struct walk *w, const uint8_t *buf, size_t len,
		     uint64_t base, unsigned depth, const char *name,
		     size_t name_len);
};

#endif
