/* host: the row of a host format (its probe, walk, prune, how ls names
 * it, what LLVM's readers take it for), which the format's ops file
 * defines as `const struct host host_<name>` (ops/hosts.def); ops/hosts.c
 * makes the table.  A header alone, so that an ops file defining its row
 * does not include hosts.h, whose table names it. */
#ifndef OPS_HOST_H
#define OPS_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct walk;
struct inspect_node;
struct pruner;

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
	/* Whether a file of it whose first bytes are head (len of them, a
	 * stream's peek) can be seen to hold no offload code, so that a
	 * prune of a stream need not hold it whole (NULL: never seen). */
	bool (*barren)(const uint8_t *head, size_t len);
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

#endif
