/* prune_pointers: the pointers of a linked 64-bit little-endian file that
 * prune_omp.c and prune_pack.c rewrite when they move offload code. */
#ifndef OPS_PRUNE_POINTERS_H
#define OPS_PRUNE_POINTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prune_impl.h"

struct elfscan;

struct prune_reloc {
	uint64_t at;		/* r_offset: the slot's address */
	uint64_t addend;
	uint64_t addend_off;	/* file offset of r_addend */
	uint32_t type;
	bool relative;
};

struct prune_table {
	const struct elfscan *s;
	const uint8_t *buf;
	struct prune_reloc *rel;	/* the allocated RELA ones, by address */
	size_t nrel;
	bool rel_only;		/* it has relocations without addends */
	uint64_t twice;		/* an address relocated twice, or 0 */
};

/* The file's dynamic relocations with addends, in t (t->s, t->buf set). */
int prune_read_relocs(struct pruner *p, struct prune_table *t);
const struct prune_reloc *prune_reloc_at(const struct prune_table *t,
					 uint64_t at);
/* The file offset of address at (8 bytes of it), in an allocated section
 * that has bytes in the file; UINT64_MAX when none holds it. */
uint64_t prune_file_offset(const struct prune_table *t, uint64_t at);
/* The value the pointer at address at has once relocated: a RELATIVE
 * relocation's addend, else what the slot holds; false when unknown (a
 * symbolic relocation, or no bytes there). */
bool prune_value_at(const struct prune_table *t, uint64_t at, uint64_t *v);
/* R_*_RELATIVE of an ELF machine, 0 for one not known. */
uint32_t prune_relative_type(uint16_t machine);
/* n bytes (at most 8) of v written at file offset off (a patch). */
int prune_add_word(struct pruner *p, uint64_t off, uint64_t v, size_t n);
/* Point the slot at address at to v: its RELATIVE relocation's addend,
 * and the slot's bytes where they hold the old value (or there is no
 * relocation). */
int prune_set_pointer(struct pruner *p, const struct prune_table *t,
		      uint64_t at, uint64_t v);

#endif
