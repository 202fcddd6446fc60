/* kpack_join: a kpack-split host binary made a fat binary again from the
 * archives its search paths find (offload kpack join). */
#ifndef OPS_KPACK_JOIN_H
#define OPS_KPACK_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_types.h"
#include "../core/select.h"
#include "kpack_find.h"

struct kpack_join_stats {
	size_t bundles;		/* one per wrapper */
	size_t codes;		/* code objects put in them */
	uint64_t fatbin;	/* bytes of the .hip_fatbin made */
};

/* The split binary path (len bytes at buf), its code objects read from
 * the archives (the resolution of ops/kpack_find.h, search paths in
 * order, archives by name; a target's code comes from the first archive
 * that holds it), written to out as a fat binary: .hip_fatbin holds one
 * clang offload bundle per wrapper again, each wrapper is HIPF again and
 * points at its bundle, .rocm_kpack_ref is gone.  sel (-t; NULL or no
 * rules for all) picks the targets; select_match sees every code object
 * of the binary, so the caller can name a rule that took nothing.  -1
 * with e filled (naming the archive when the problem is in one). */
int kpack_join(const char *path, const uint8_t *buf, size_t len,
	       struct select *sel, struct io_out *out,
	       struct kpack_join_stats *st, struct err *e);
/* The same, its archives also looked for in the trees of other
 * artifacts (ops/kpack_find.h kpack_find_alt: nalt of them at alt). */
int kpack_join_in(const char *path, const uint8_t *buf, size_t len,
		  struct select *sel, const struct kpack_find_alt *alt,
		  size_t nalt, struct io_out *out,
		  struct kpack_join_stats *st, struct err *e);

#endif
