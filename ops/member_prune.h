/* member_prune: a file inside a stream (a package's data.tar or pkg tar, a
 * wheel's zip) pruned as each package format does it: planned, written
 * into a scratch file, that file mapped as the member's replacement. */
#ifndef OPS_MEMBER_PRUNE_H
#define OPS_MEMBER_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prune.h"
#include "prune_plan.h"
#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_out.h"

/* Made with scratch.fd -1 (.mp = { .scratch = { .fd = -1 } }). */
struct member_prune {
	struct prune_plan plan;
	bool planned;
	struct io_out scratch;	/* the member pruned last */
};

/* What the last member held let go of. */
void member_prune_done(struct member_prune *mp);
/* data planned with po (the last member's plan let go of first): 1 with
 * entries to drop, 0 none (no offload code included), -1 failed. */
int member_prune_plan(struct member_prune *mp, const struct io_in *data,
		      const struct prune_opts *po, struct err *e);
/* The plan written into the scratch file, mapped as *repl (a scratch
 * view: io_in_hint lets its pages go as they are read): 0, or -1.  The
 * kept bytes of a data that has a descriptor (a file spilled by the
 * layer walk) are copied by the kernel, never read into our memory. */
int member_prune_write(struct member_prune *mp, const struct io_in *data,
		       struct io_in *repl, struct err *e);

/* The SHA-256 (hex[SHA256_HEX + 1]) of a file's bytes, a run at a time,
 * the pages of a scratch view let go as they are hashed: 0, or -1. */
int member_prune_sha256(const struct io_in *in, char *hex, struct err *e);

#endif
