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

struct walk;
struct inspect_node;
struct pruner;

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

/* What LLVM's object readers take a file of a format for, of the file
 * types of LLVM's identify_magic that the LLVM-named tools follow: a
 * closed set, LLVM's, which their readers switch on. */
enum host_llvm {
	HOST_LLVM_NONE,		/* LLVM reads no offload code from it */
	HOST_LLVM_ELF,
	HOST_LLVM_COFF,
	HOST_LLVM_BITCODE,
	HOST_LLVM_ARCHIVE,
	HOST_LLVM_CONTAINER,	/* an offload binary, when it is a package */
};

struct host {
	/* Its name in messages: "ELF file"; NULL for HOST_CONTAINER, named
	 * by its container kinds (formats/fatbin.h). */
	const char *what;
	bool (*probe)(const uint8_t *buf, size_t len);
	/* Visit input node in (kind, depth, name, offset and size filled),
	 * len bytes at buf at file offset base, and what it holds
	 * (inspect_walk.h), setting its format. */
	int (*walk)(struct walk *w, struct inspect_node *in,
		    const uint8_t *buf, size_t len, uint64_t base);
	/* Plan its prune (prune_impl.h): -1 with ERR_NOTHING when it holds
	 * no offload code. */
	int (*prune)(struct pruner *p, const uint8_t *buf, size_t len);
	/* The file is offload code and nothing else: pruned of every GPU's
	 * code (and no host entry), it goes whole (prune removes it, du
	 * counts it among the files prune would remove). */
	bool offload_only;
	/* How ls names a file of it whose walk leaves that to its row (input
	 * format INSPECT_HOST, ops/inspect_node.h): after "FILE: " in its
	 * text, and its "format" in its JSON; the containers the walk finds
	 * in it are listed under it. */
	const char *ls_word, *json_format;
	/* As LLVM's readers take it (the packager's, the device archives'
	 * of ops/devarchive.c); none for a format of ours alone. */
	enum host_llvm llvm;
};

const struct host *hosts_get(enum host_format f);
/* The format buf is, probed in the table's order; false when none. */
bool hosts_probe(const uint8_t *buf, size_t len, enum host_format *f);
/* Whether buf is of format f, as hosts_probe finds it (the probes in
 * the table's order): for the commands that take one format alone. */
bool hosts_is(const uint8_t *buf, size_t len, enum host_format f);
/* Whether buf is a file of offload code alone (offload_only). */
bool hosts_offload_only(const uint8_t *buf, size_t len);
/* A file of none of the formats: -1, e filled (ERR_NOTHING) with the
 * reason, the same for every command. */
int hosts_none(struct err *e);

#endif
