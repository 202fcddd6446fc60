/* prune: device code taken out of a build artefact, keeping the entries a
 * caller's keep() accepts.  What each container becomes:
 *
 *   binary bundle  the bundle LLVM's bundler writes for the kept entries,
 *                  in their header order, at the alignment the original
 *                  was laid out with;
 *   CCOB           decided by the entry IDs of its bundle header, the
 *                  stream inflated that far alone: left as it is when all
 *                  its entries stay, made of that header when the kept
 *                  ones hold no code; else inflated, its bundle pruned,
 *                  compressed again with the same format version and
 *                  method (and the level asked);
 *   object bundle  (an ELF relocatable object's __CLANG_OFFLOAD_BUNDLE__<id>
 *                  sections) the object without the dropped sections, laid
 *                  out as llvm-objcopy --remove-section lays it out.
 *
 * Where containers sit in an ELF file's .hip_fatbin, something outside
 * points at each of them (the HIP runtime finds each translation unit's
 * bundle through its __hip_fatbin_wrapper, relocated at load time): every
 * container keeps its address, the pruned one is written at its start and
 * the bytes it frees are zero (the floor).  In a linked OpenMP program's
 * .llvm.offloading the kept packages move to the section's start, the
 * runtime's image table lists them alone at their new addresses, and the
 * section ends after them (its freed tail zeros, in no section); where
 * anything else points into the section, packages stay and the dropped
 * ones become zeros (prune_omp.c).  In a linked executable or library the
 * freed pages of .hip_fatbin, .nv_fatbin and a packed .llvm.offloading
 * are then cut out of the file where the ELF rules allow (elf_shrink.h):
 * addresses stay, the file shrinks.  A file that is itself a container
 * shrinks.
 *
 * Nothing here prints: a plan lists what changes, prune_write writes it. */
#ifndef OPS_PRUNE_H
#define OPS_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/io_in.h"
#include "../core/io_types.h"
#include "prune_types.h"

/* The plan is made by prune_plan (prune_plan.h).  Write the pruned file:
 * in's bytes with the plan applied (size_after becomes what was
 * written). */
int prune_write(const struct io_in *in, struct prune_plan *plan,
		struct io_out *out, struct err *e);
void prune_plan_free(struct prune_plan *plan);

#endif
