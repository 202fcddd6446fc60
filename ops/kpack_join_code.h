/* kpack_join_code: the code objects of a kpack join (kpack_join_code.c):
 * the wrappers read, the archives opened, the targets -t takes, their
 * code objects gathered, and the .hip_fatbin made of them. */
#ifndef OPS_KPACK_JOIN_CODE_H
#define OPS_KPACK_JOIN_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "kpack_join_impl.h"
#include "../core/select.h"

/* Every archive the search paths find, opened and parsed
 * (ops/kpack_find.c, the resolution ls, du and extract use too). */
int kpack_join_open_archives(struct join *j);
/* The wrappers: each HIPK, its index a bundle of its own. */
int kpack_join_read_wrappers(struct join *j, const struct elfscan_section *seg);
/* The binary's code objects sel takes, in j->cand sorted by (index,
 * target, archive, entry); the targets among them in j->targets (by
 * name), each with the first archive that holds one (j->from). */
int kpack_join_pick_targets(struct join *j, struct select *sel);
/* Each target's code object of each bundle, from the first archive
 * holding it. */
int kpack_join_gather(struct join *j);
/* The .hip_fatbin: the bundles one after another at align.  Where they
 * do not fit room (the bytes the original took) but their CCOBs do, the
 * original's were compressed: CCOBs.  *in_room says whether what is made
 * fits (when neither does: the bundles, to go elsewhere).  *fat
 * (malloc'd), *size bytes; bundle b at j->start[b]. */
int kpack_join_make_fatbin(struct join *j, uint64_t align, uint64_t room,
			   uint8_t **fat, uint64_t *size, bool *in_room);

#endif
