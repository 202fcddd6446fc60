/* env: numbers from environment variables, checked; and which LLVM
 * release the LLVM-named applets follow. */
#ifndef CORE_ENV_H
#define CORE_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* If `name` is set, it must be a positive decimal number, stored in *out.
 * Returns 0 (set or not), or -1 with e saying what is wrong. */
int env_positive_u64(const char *name, uint64_t *out, struct err *e);

/* The default bound on what a header may make a command allocate: half
 * the machine's physical memory, at most 32 GiB (32 GiB when the machine
 * will not say). */
uint64_t env_memory_cap(void);

/* The LLVM release whose tools the LLVM-named applets (bundler, packager)
 * reproduce: chosen once by the dispatcher (applets/main.c) from the name
 * it was called by (clang-offload-bundler-22) or OFFLOAD_LLVM and handed
 * to the applet, which passes it down, as far as core's triple rules
 * (triple_parse, target_parse).  There is no process-wide copy. */
enum llvm_release {
	LLVM_22 = 22,
	LLVM_23 = 23,
	LLVM_24 = 24,	/* the snapshot in Debian experimental, till released */
	LLVM_NEWEST = LLVM_23,	/* unversioned names, OFFLOAD_LLVM unset */
};
/* The release a version string names ("22", "23", "24"; len bytes), or 0. */
enum llvm_release env_llvm_parse(const char *s, size_t len);
/* OFFLOAD_LLVM, when set, must name a release: then it is stored in *r.
 * Returns 0 (set or not), or -1 with e saying what is wrong. */
int env_llvm_from_environment(enum llvm_release *r, struct err *e);
/* Release r's version as LLVM's --version prints it ("23.1.4"). */
const char *env_release_version(enum llvm_release r);

#endif
