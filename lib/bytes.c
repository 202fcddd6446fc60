/* bytes: a file's bytes for a caller's own reader (include/offcode.h,
 * "the walk"): an artefact's, and what a buffer is (a package, told as
 * offcode_open_memory tells it), so that a program that walks files as
 * `offload ls` does may hand a package to offcode_open_memory and any
 * other file to offcode_walk_memory. */
#include <stdint.h>

#include "artifact_impl.h"
#include "../ops/conda.h"
#include "../ops/deb.h"
#include "../ops/wheel.h"

const void *offcode_artifact_bytes(const offcode_artifact *a, uint64_t *len)
{
	/* (the handle's, const to the caller: its last error set) */
	bool gone = a && artifact_file((offcode_artifact *)a);

	if (len)
		*len = a && !gone ? a->len : 0;
	return a && !gone ? a->data : NULL;
}

const char *offcode_memory_kind(const void *buf, size_t len, const char *name)
{
	if (!buf || !len)
		return NULL;
	if (deb_probe(buf, len))
		return "deb";
	if (wheel_probe(name ? name : "", buf, len))
		return "wheel";
	if (conda_probe(name ? name : "", buf, len))
		return "conda";
	return NULL;
}
