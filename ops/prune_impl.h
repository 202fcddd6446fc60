/* prune_impl: the types the parts of prune share, and prune.c's plans of
 * its host formats: prune_plan.c plans a file through the rows of hosts.c,
 * which call prune.c (ELF, archives, files that are containers or text
 * bundles), prune_coff.c and prune_bitcode.c; prune.c calls
 * prune_region.c (a region's containers), prune_bundle.c (binary bundles,
 * CCOBs), prune_containers.c (NVIDIA fatbins, packages, text bundles, the
 * entries decided), prune_omp.c (linked OpenMP files) and prune_shrink.c
 * (linked files made smaller), and writes the plan; each declares its
 * functions in its own header.  Not for other modules. */
#ifndef OPS_PRUNE_IMPL_H
#define OPS_PRUNE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "prune_types.h"

struct pruner {
	const struct prune_opts *o;
	struct prune_plan *plan;
	const char *section;	/* where the walk is, for keep() */
	uint64_t container;
	uint64_t base;		/* the archive member's offset in the file */
	unsigned ccob_version;	/* bundles become CCOBs of it (0: stay) */
	struct err *e;
	bool member;		/* an archive's member is being planned */
	/* Plan a member as a file is planned (prune_plan.c's, through the
	 * table of host formats, which prune_archive does not call back). */
	int (*plan_member)(struct pruner *p, const uint8_t *buf, size_t len);
	/* --compress: where the compressed containers go (made by the first
	 * region that compresses, as long as the file: each container's
	 * bytes at its own offset), moved to the top plan at the end. */
	struct prune_spool_file *spool;
	uint64_t file_len;
};

struct membuf {
	uint8_t *p;
	size_t len, cap;
};

/* The plans of the host formats prune.c reads (hosts.h's prune column):
 * an ELF file, an archive (each member through plan_member), a file that
 * is containers, a text bundle.  -1 with ERR_NOTHING when it holds no
 * offload code. */
int prune_elf(struct pruner *p, const uint8_t *buf, size_t len);
int prune_archive(struct pruner *p, const uint8_t *buf, size_t len);
int prune_bare(struct pruner *p, const uint8_t *buf, size_t len);
int prune_text_bundle(struct pruner *p, const uint8_t *buf, size_t len);

#endif
