/* hosts: the one registry of host formats, the kinds of file an artefact
 * is: an ELF file, a PE image, a COFF object, a bitcode module, an archive,
 * a bare container (a file that is a bundle, CCOB, package, NVIDIA fatbin
 * or kpack archive), a text bundle.  Every command that opens an artefact
 * (the walk of ls, extract and du; prune's plan; the device archives'
 * members) asks hosts_probe what it is, so the probes run in one order, the
 * table's, and a damaged file gets the same diagnosis from each.  A new
 * host format is its row in hosts.def, its probe (formats/) and its ops
 * file, which defines its row, `const struct host host_<name>`. */
#ifndef OPS_HOSTS_H
#define OPS_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "host.h"

/* Made from the rows of hosts.def, in the order they are probed. */
enum host_format {
#define HOST(e, name) HOST_##e,
#include "hosts.def"
#undef HOST
};
enum {
	HOST_FORMATS = 0
#define HOST(e, name) + 1
#include "hosts.def"
#undef HOST
};

const struct host *hosts_get(enum host_format f);
/* The format buf is, probed in the table's order; false when none. */
bool hosts_probe(const uint8_t *buf, size_t len, enum host_format *f);
/* A layer walk's .wants (ops/layer.h): whether a file inside a stream
 * (an image layer, a package) starting with head (len bytes) is one of
 * the host formats, so worth reading whole. */
bool hosts_member_wanted(void *ctx, const uint8_t *head, size_t len);
/* A prune's .wants: hosts_member_wanted, but for the files whose head
 * shows they hold no offload code (the row's barren), which a prune of
 * an image would otherwise hold whole (spilled, a temporary file as large
 * as the file) to find nothing in. */
bool hosts_member_prunable(void *ctx, const uint8_t *head, size_t len);
/* Whether buf is of format f, as hosts_probe finds it (the probes in
 * the table's order): for the commands that take one format alone. */
bool hosts_is(const uint8_t *buf, size_t len, enum host_format f);
/* Whether buf is a file of offload code alone (offload_only). */
bool hosts_offload_only(const uint8_t *buf, size_t len);
/* A file of none of the formats: -1, e filled (ERR_NOTHING) with the
 * reason, the same for every command. */
int hosts_none(struct err *e);

#endif
