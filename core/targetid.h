/* targetid: offload processor names and AMDGPU target IDs (gfx90a:xnack+). */
#ifndef CORE_TARGETID_H
#define CORE_TARGETID_H

#include <stdbool.h>
#include <stddef.h>
#include "triple.h"

/* clang's StringToOffloadArch: exact, case-sensitive name of a known
 * offload processor (sm_90, gfx90a, gfx9-generic, amdgcnspirv, ...). */
bool targetid_known_processor(const char *s, size_t len);

/* clang's isCodeObjectCompatible, for the target-ID part only: called after
 * kind and triple were found compatible and the two IDs are not byte-equal.
 * entry is the ID stored in the file, request the one asked for; t is the
 * request's triple. */
bool targetid_compatible(const char *entry, size_t entry_len,
			 const char *request, size_t request_len,
			 const struct triple *t);

/* clang's getConflictTargetIDCombination over ids[0..n), which the caller has
 * sorted bytewise and deduplicated.  Returns true on a conflict and sets *first
 * and *second to the indexes of the pair LLVM reports. */
bool targetid_conflict(const char *const *ids, size_t n, size_t *first,
		       size_t *second);

/* Additions. */

/* The target ID the bundler keeps for a bundle entry (OffloadTargetInfo):
 * the whole ID if the part before its first ':' is a known processor
 * (targetid_known_processor), else the empty ID.  Returns len or 0. */
size_t targetid_effective_len(const char *id, size_t len);

/* targetid_conflict, also reporting LLVM's crash: returns 1 on a conflict
 * (*first, *second as above), 0 if none, and -1 with *first = *second = its
 * index if the scan meets an ID failing the target-ID format check (empty
 * processor before a ':', a feature without a trailing '+'/'-', an empty
 * feature item, a repeated feature name) before any well-formed ID.  LLVM 22
 * dereferences an empty optional for a malformed ID: measured, it then uses
 * the processor of the last well-formed ID and the features recorded before
 * the error (reproduced here), or, with no such ID, crashes with SIGSEGV.
 * targetid_conflict returns false for -1. */
int targetid_conflict_ex(const char *const *ids, size_t n, size_t *first,
			 size_t *second);

/* Whether a loader asked for request (a target ID: "gfx90a",
 * "gfx90a:xnack+", "sm_80") would take a code object built for entry: the
 * same processor, and no feature set one way in one and the other way in
 * the other.  Unlike targetid_compatible (the bundler's rule), a request
 * that leaves a feature out matches entries that set it either way: so
 * "gfx90a" takes "gfx90a:xnack+", as a gfx90a device would with XNACK on.
 * Malformed feature lists match nothing. */
bool targetid_loadable(const char *entry, size_t entry_len,
		       const char *request, size_t request_len);

/* Whether id is a target ID a user may ask for (a known processor, then
 * features the processor accepts, each once, each ending in '+' or '-',
 * as clang's parseTargetID checks them for AMDGPU): 0, or -1 with *why
 * set to a static phrase saying what is wrong. */
int targetid_check_request(const char *id, size_t len, const char **why);

#endif
