/* elfcopy_plan: which sections an elfcopy (see elfcopy.h) keeps, their
 * new indices, rebuilt string tables and new headers. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elfcopy_impl.h"
#include "elfcopy_plan.h"
#include "elfcopy_symbols.h"
#include "bytes.h"

/* Not in every <elf.h>: x86-64's large-model section flag, and LLVM's
 * compact relocations. */
#define ELFCOPY_SHF_X86_64_LARGE 0x10000000u
#define ELFCOPY_SHT_CREL 0x40000014u

int elfcopy_number_sections(struct copy *c,
			    bool (*drop)(void *, const char *, size_t),
			    void *drop_ctx, size_t nadd, struct err *e)
{
	size_t next = 1;

	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *s = &c->s.sec[i];

		bool dropped = drop && drop(drop_ctx, s->name, s->name_len);

		c->new_index[i] = dropped ? 0 : (uint32_t)next++;
		if (s->type == SHT_SYMTAB && c->new_index[i]) {
			if (c->symtab)
				return err_bad(e, "more than one symbol table");
			c->symtab = i;
		}
		/* The last table is the symbol table's (llvm-objcopy's
		 * SectionIndexTable); others stay, emptied
		 * (elfcopy_fill_sections). */
		if (s->type == SHT_SYMTAB_SHNDX && c->new_index[i])
			c->xindex = i;
	}
	/* llvm-objcopy drops the table of extended section indices unless a
	 * symbol lives in a section numbered SHN_LORESERVE or more, and then
	 * builds a new one; we drop it as it does, and leave objects that
	 * large (65,280 sections) alone. */
	if (c->xindex) {
		if (next - 1 + nadd >= SHN_LORESERVE)
			return err_set(e, "an object of %u sections or more with "
				       "extended section indices is not "
				       "rewritten", SHN_LORESERVE);
		for (size_t i = c->xindex + 1; i < c->s.n; i++)
			if (c->new_index[i])
				c->new_index[i]--;
		c->new_index[c->xindex] = 0;
		next--;
	}
	if (!c->new_index[c->s.shstrndx])
		return err_set(e, "the section name table would be removed");
	c->n = next + nadd;
	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *s = &c->s.sec[i];

		if (!c->new_index[i])
			continue;
		if (check_ref(c, i, s->link, "link", e) < 0)
			return -1;
		if (is_reloc(s) && check_ref(c, i, s->info, "info", e) < 0)
			return -1;
	}
	return 0;
}

static uint64_t table_entsize(const struct copy *c,
			      const struct elfscan_section *s)
{
	if (s->type == SHT_SYMTAB)
		return c->s.is64 ? 24 : 16;
	if (s->type == SHT_REL)
		return c->s.is64 ? 16 : 8;
	return c->s.is64 ? 24 : 12;
}

/* The tables llvm-objcopy reads entry by entry (the symbol table,
 * relocations) must say the size of their entries, or it refuses the
 * file; it writes them at the address size's alignment, whatever they
 * had. */
int elfcopy_check_tables(const struct copy *c, struct err *e)
{
	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *s = &c->s.sec[i];

		/* A group is read as 4-byte words. */
		if (s->type == SHT_GROUP && s->align % 4)
			return err_bad(e, "group section '%s' has alignment "
				       "%llu, not a multiple of 4", s->name,
				       (unsigned long long)s->align);
		if (s->type != SHT_SYMTAB && !is_reloc(s))
			continue;
		if (s->entsize != table_entsize(c, s))
			return err_bad(e, "section '%s' has sh_entsize %llu, "
				       "not the %llu of its type", s->name,
				       (unsigned long long)s->entsize,
				       (unsigned long long)table_entsize(c, s));
		/* (The symbol table's: elfcopy_plan_strings.) */
		if (is_reloc(s) && s->size % s->entsize)
			return err_bad(e, "section '%s' has a size %llu that "
				       "is not a multiple of %llu", s->name,
				       (unsigned long long)s->size,
				       (unsigned long long)s->entsize);
	}
	return 0;
}

/* Every non-allocated string table is rebuilt from the names that point
 * into it: section names for the section name table, symbol names for the
 * symbol table's; one no name points into holds just its NUL. */
int elfcopy_plan_strings(struct copy *c, const struct elfcopy_add *add,
			 size_t nadd, struct err *e)
{
	size_t shstr = c->s.shstrndx;

	for (size_t i = 1; i < c->s.n; i++)
		c->rebuilt[i] = c->new_index[i] &&
				c->s.sec[i].type == SHT_STRTAB &&
				!(c->s.sec[i].flags & SHF_ALLOC);
	if (!c->rebuilt[shstr])
		return err_bad(e, "the section name table '%s' is not a string "
			       "table", sec_name(c, shstr));
	for (size_t i = 1; i < c->s.n; i++)
		if (c->new_index[i] &&
		    strtab_add(&c->tabs[shstr], c->s.sec[i].name,
			       c->s.sec[i].name_len) < 0)
			return err_nomem(e);
	for (size_t k = 0; k < nadd; k++)
		if (strtab_add(&c->tabs[shstr], add[k].name,
			       strlen(add[k].name)) < 0)
			return err_nomem(e);
	if (c->symtab) {
		const struct elfscan_section *sym = &c->s.sec[c->symtab];
		size_t entsize = c->s.is64 ? 24 : 16, count;

		if (!sym->link || !c->rebuilt[sym->link])
			return err_bad(e, "the symbol table's string table is "
				       "not a string table");
		count = c->nsyms;
		for (size_t k = 0; k < count; k++) {
			const uint8_t *p = c->buf + sym->offset + k * entsize;
			uint64_t off = get_endian(p, 4, c->s.big_endian);
			const char *name;
			size_t name_len;

			if (c->sym_new[k] == SYM_REMOVED)
				continue;
			name = elfscan_string(c->buf, &c->s.sec[sym->link],
					      off, &name_len);
			if (!name)
				return err_bad(e, "symbol %zu has a bad name "
					       "offset %llu", k,
					       (unsigned long long)off);
			if (strtab_add(&c->tabs[sym->link], name, name_len) < 0)
				return err_nomem(e);
		}
	}
	for (size_t i = 1; i < c->s.n; i++)
		if (c->rebuilt[i] && strtab_finalize(&c->tabs[i]) < 0)
			return err_nomem(e);
	return 0;
}

/* llvm-objcopy --set-section-flags=NAME=readonly,exclude on an existing
 * section: flags become SHF_EXCLUDE plus those it preserves (group, TLS,
 * OS and processor bits, ...), and a non-allocated SHT_NOBITS section turns
 * into PROGBITS full of zeros. */
static int set_exclude(struct copy *c, struct out_section *o, struct err *e)
{
	uint64_t keep = (SHF_COMPRESSED | SHF_GROUP | SHF_LINK_ORDER |
			 SHF_MASKOS | SHF_MASKPROC | SHF_TLS | SHF_INFO_LINK) &
			~(uint64_t)SHF_EXCLUDE;

	if (c->s.machine == EM_X86_64)
		keep &= ~(uint64_t)ELFCOPY_SHF_X86_64_LARGE;
	if (o->type == SHT_NOBITS && !(o->flags & SHF_ALLOC)) {
		if (o->size > ZERO_FILL_LIMIT)
			return err_set(e, "section '%s' would become %llu bytes "
				       "of zeros", o->name,
				       (unsigned long long)o->size);
		o->type = SHT_PROGBITS;
		o->data = NULL;		/* written as zeros */
	}
	o->flags = (o->flags & keep) | SHF_EXCLUDE;
	return 0;
}

int elfcopy_fill_sections(struct copy *c, const struct elfcopy_add *add,
			  size_t nadd, struct err *e)
{
	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *s = &c->s.sec[i];
		struct out_section *o = &c->o[c->new_index[i]];
		uint64_t size;

		if (!c->new_index[i])
			continue;
		*o = (struct out_section){
			.name = s->name, .name_len = s->name_len,
			.type = s->type, .flags = s->flags, .addr = s->addr,
			.size = s->size, .align = s->align,
			.entsize = s->entsize, .old_offset = s->offset,
			.link = s->link ? c->new_index[s->link] : 0,
			.info = s->info, .old_index = i,
		};
		o->data = elfscan_bytes(&c->s, c->buf, i, &size);
		if (is_reloc(s) && s->info)
			o->info = c->new_index[s->info];
		if (i == c->symtab || is_reloc(s))
			o->align = c->s.is64 ? 8 : 4;
		/* A table of extended indices other than the symbol table's
		 * is written empty, as llvm-objcopy 22 writes it. */
		if (s->type == SHT_SYMTAB_SHNDX)
			o->size = 0;
		if (c->rebuilt[i]) {
			struct strtab *t = &c->tabs[i];

			if (!(c->owned[i] = malloc(t->size)))
				return err_nomem(e);
			strtab_write(t, c->owned[i]);
			o->size = t->size;
			o->data = c->owned[i];
		} else if (i == c->symtab) {
			if (elfcopy_rewrite_symbols(c, &o->info, &o->size,
						    e) < 0)
				return -1;
			o->data = c->owned[i];
			o->entsize = c->s.is64 ? 24 : 16;
		} else if (s->type == SHT_GROUP) {
			if (elfcopy_rewrite_group(c, i, e) < 0)
				return -1;
			o->data = c->owned[i];
		} else if (c->syms_removed && s->link == c->symtab) {
			if (is_reloc(s)) {
				if (elfcopy_rewrite_relocations(c, i, e) < 0)
					return -1;
				o->data = c->owned[i];
			} else if (s->type == ELFCOPY_SHT_CREL) {
				return err_set(e, "section '%s': compact "
					       "relocations are not renumbered",
					       s->name);
			} else if (s->type != SHT_REL && s->type != SHT_RELA) {
				/* Its contents name symbols by the old
				 * indices: llvm-objcopy unlinks it. */
				o->link = 0;
			}
		}
		for (size_t k = 0; k < nadd; k++)
			if (add[k].set_existing && !strcmp(add[k].name, s->name) &&
			    !c->owned[i]) {
				if (set_exclude(c, o, e) < 0)
					return -1;
				break;
			}
	}
	for (size_t k = 0; k < nadd; k++) {
		struct out_section *o = &c->o[c->n - nadd + k];

		*o = (struct out_section){
			.name = add[k].name, .name_len = strlen(add[k].name),
			.type = add[k].type, .flags = add[k].flags,
			.size = add[k].size, .align = add[k].align,
			.old_offset = UINT64_MAX, .data = add[k].data,
			.from = add[k].from,
		};
	}
	return 0;
}

/* llvm-objcopy zeroes a removed section's bytes in its segment and
 * writes a rewritten one over the segment's: neither is done here. */
int elfcopy_check_segments(const struct copy *c, struct err *e)
{
	for (size_t i = 1; c->g.v && i < c->s.n; i++) {
		if (c->holder[i] < 0)
			continue;
		if (!c->new_index[i])
			return err_set(e, "cannot remove section '%s': it lies "
				       "in a segment", sec_name(c, i));
		if (c->owned[i] ||
		    c->o[c->new_index[i]].type != c->s.sec[i].type)
			return err_set(e, "section '%s' lies in a segment and "
				       "would be rewritten", sec_name(c, i));
	}
	return 0;
}

