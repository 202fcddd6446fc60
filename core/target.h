/* target: offload bundle entry IDs, <kind>-<arch>-<vendor>-<os>-<env>[-<id>],
 * parsed, standardised and matched as LLVM 22's bundler does. */
#ifndef CORE_TARGET_H
#define CORE_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "triple.h"

struct target {
	char *buf;		/* owned copy of the whole ID */
	const char *kind;	/* NUL-terminated pieces of buf... */
	const char *triple;	/* "<arch>-<vendor>-<os>-<env>" as spelled */
	const char *tid;	/* "" unless a known processor leads it */
	struct triple t;
	enum llvm_release release;	/* whose triple rules read it */
	bool any_env;		/* an old host ID: no environment, any fits */
};

/* Split an ID into 5 or 6 '-' parts (the sixth keeps later dashes), its
 * triple read by release r's rules (kept for target_standard).  Returns -1 when the count is wrong (LLVM's checkOffloadBundleID), or when
 * out of memory (errno ENOMEM). */
int target_parse(struct target *tg, const char *s, size_t len,
		 enum llvm_release r);
void target_free(struct target *tg);
/* An ID read from a bundle: as target_parse, and also the host's ID as
 * older LLVM and ROCm 5.x wrote it, host-<arch>-<vendor>-<os> (four parts,
 * such as host-x86_64-unknown-linux), which LLVM 22 refuses ("invalid
 * bundle id read from the bundle"): the host of that triple, with any
 * environment (any_env). */
int target_parse_entry(struct target *tg, const char *s, size_t len,
		       enum llvm_release r);

/* The standardised ID LLVM writes: "<kind>-" + normalised triple (AMDHSA:
 * three parts and an empty environment) + "-" + target ID.  malloc'd;
 * NULL with e filled as triple_normalize fills it. */
char *target_standard(const struct target *tg, struct err *e);

bool target_kind_valid(const struct target *tg);
bool target_triple_valid(const struct target *tg);
bool target_is_host(const struct target *tg);
bool target_is_hip(const struct target *tg);	/* hip or hipv4 */

/* LLVM's isCodeObjectCompatible: may the file's entry serve the request? */
bool target_compatible(const struct target *entry, const struct target *request,
		       bool hip_openmp_compatible);

/* An ID whose triple's architecture is amdgpu with a sub-architecture
 * ("hip-amdgpu9.0a-amd-amdhsa--gfx90a", LLVM 24), spelled with amdgcn,
 * the architecture LLVM 23's and 24's Triple read it as (their bundlers
 * match an amdgcn ID to it and back, whatever the sub-architecture):
 * malloc'd and NUL-terminated, its length in *out_len; NULL for any
 * other ID (or out of memory). */
char *target_amdgcn_spelling(const char *id, size_t len, size_t *out_len);

/* Whether a loader asked for the whole ID request would take the entry:
 * kinds the same (hip and hipv4 alike), triples compatible, target IDs
 * loadable (targetid_loadable; an empty request ID takes only an empty
 * one).  Both must split as IDs (target_parse).  A triple of LLVM 23's
 * amdgpu architecture with a sub-architecture ("amdgpu9.0a-amd-amdhsa")
 * is the amdgcn one, as LLVM 23 and 24 read it.  Loaders are not LLVM
 * releases: this reads triples as the newest release does. */
bool target_loadable(const char *entry, size_t entry_len, const char *request,
		     size_t request_len);

#endif
