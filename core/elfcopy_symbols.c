/* elfcopy_symbols: the symbol table of an elfcopy (see elfcopy.h)
 * without the symbols of removed sections, and the relocations and group
 * signatures that name symbols renumbered to match. */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfcopy_impl.h"
#include "elfcopy_symbols.h"
#include "bytes.h"

/* The section symbol k (its entry at p) is defined in, through the table
 * of extended indices where it says SHN_XINDEX; 0 for an undefined symbol
 * and one with a reserved index (absolute, common). */
static int symbol_section(const struct copy *c, size_t k, const uint8_t *p,
			  uint64_t *shndx, struct err *e)
{
	bool be = c->s.big_endian;
	uint64_t i = get_endian(p + (c->s.is64 ? 6 : 14), 2, be);

	*shndx = 0;
	if (i == SHN_XINDEX) {
		const struct elfscan_section *x = &c->s.sec[c->xindex];

		if (!c->xindex || x->size / 4 <= k)
			return err_bad(e, "symbol %zu has an extended section "
				       "index that no table holds", k);
		i = get_endian(c->buf + x->offset + 4 * k, 4, be);
	} else if (i == SHN_UNDEF || i >= SHN_LORESERVE) {
		return 0;
	}
	if (i >= c->s.n) {
		const struct elfscan_section *sym = &c->s.sec[c->symtab];
		size_t name_len = 0;
		const char *name = elfscan_string(c->buf, &c->s.sec[sym->link],
						  get_endian(p, 4, be),
						  &name_len);

		return err_bad(e, "symbol '%.*s' is in section %llu, which "
			       "does not exist", name ? (int)name_len : 0,
			       name ? name : "", (unsigned long long)i);
	}
	*shndx = i;
	return 0;
}

/* Which symbols stay, and their new indices: llvm-objcopy removes the
 * symbols defined in a removed section (its section symbol, mapping
 * symbols such as AArch64's $d, labels) and keeps the others in order. */
int elfcopy_plan_symbols(struct copy *c, struct err *e)
{
	const struct elfscan_section *sym;
	size_t entsize = c->s.is64 ? 24 : 16;
	uint32_t next = 0;

	if (!c->symtab)
		return 0;
	sym = &c->s.sec[c->symtab];
	if (!sym->link || sym->link >= c->s.n)
		return err_bad(e, "the symbol table's string table is not a "
			       "string table");
	if (sym->size % entsize)
		return err_bad(e, "the symbol table's size %llu is not a "
			       "multiple of %zu", (unsigned long long)sym->size,
			       entsize);
	/* (llvm-objcopy 22 crashes on a table without its null symbol.) */
	if (!sym->size)
		return err_bad(e, "the symbol table is empty (not even its "
			       "null symbol)");
	c->nsyms = sym->size / entsize;
	c->sym_new = malloc((c->nsyms ? c->nsyms : 1) * sizeof(*c->sym_new));
	if (!c->sym_new)
		return err_nomem(e);
	for (size_t k = 0; k < c->nsyms; k++) {
		uint64_t shndx;

		if (symbol_section(c, k, c->buf + sym->offset + k * entsize,
				   &shndx, e) < 0)
			return -1;
		c->sym_new[k] = 0;
		if (k && shndx && !c->new_index[shndx] && shndx != c->xindex) {
			c->sym_new[k] = SYM_REMOVED;
			c->syms_removed = true;
		}
	}
	/* The kept ones: the local symbols first, in their order, then the
	 * others in theirs, whatever order the input had them in (a symbol
	 * that so moves renumbers what refers to it, as a removed one
	 * does). */
	for (int local = 1; local >= 0; local--)
		for (size_t k = 0; k < c->nsyms; k++) {
			const uint8_t *p = c->buf + sym->offset + k * entsize;

			if (c->sym_new[k] == SYM_REMOVED ||
			    (GELF_ST_BIND(p[c->s.is64 ? 4 : 12]) ==
			     STB_LOCAL) != local)
				continue;
			c->sym_new[k] = next++;
			if (c->sym_new[k] != k)
				c->syms_removed = true;
		}
	return 0;
}

static uint8_t *owned_copy(struct copy *c, size_t i)
{
	uint64_t size = c->s.sec[i].size;

	c->owned[i] = malloc(size ? size : 1);
	if (c->owned[i] && size)
		memcpy(c->owned[i], c->buf + c->s.sec[i].offset, size);
	return c->owned[i];
}

/* New name offsets and section indices, without the removed symbols;
 * *info is the symbol table's sh_info (one past the last local symbol, as
 * llvm-objcopy computes it) and *size its new size. */
int elfcopy_rewrite_symbols(struct copy *c, uint32_t *info, uint64_t *size,
			    struct err *e)
{
	const struct elfscan_section *sym = &c->s.sec[c->symtab];
	size_t entsize = c->s.is64 ? 24 : 16;
	int shndx_at = c->s.is64 ? 6 : 14, info_at = c->s.is64 ? 4 : 12;
	bool be = c->s.big_endian;
	uint8_t *p = owned_copy(c, c->symtab), *to;
	const uint8_t *from = c->buf + sym->offset;
	uint32_t last_local = 0;

	if (!p)
		return err_nomem(e);
	/* Each kept symbol goes to its new index (elfcopy_plan_symbols), in
	 * a table of its own: symbols may move either way. */
	uint8_t *out = malloc(c->nsyms * entsize + 1);
	uint64_t kept = 0;

	if (!out)
		return err_nomem(e);
	free(c->owned[c->symtab]);
	c->owned[c->symtab] = out;
	for (size_t k = 0; k < c->nsyms; k++, from += entsize) {
		size_t name_len;
		const char *name = elfscan_string(c->buf,
						  &c->s.sec[sym->link],
						  get_endian(from, 4, be),
						  &name_len);
		uint64_t shndx;

		if (c->sym_new[k] == SYM_REMOVED)
			continue;
		to = out + (size_t)c->sym_new[k] * entsize;
		memcpy(to, from, entsize);
		kept++;
		if (symbol_section(c, k, from, &shndx, e) < 0)
			return -1;
		put_endian(to, 4,
			   strtab_offset(&c->tabs[sym->link], name, name_len),
			   be);
		if (GELF_ST_BIND(to[info_at]) == STB_LOCAL &&
		    c->sym_new[k] > last_local)
			last_local = c->sym_new[k];
		/* The table of extended indices goes
		 * (elfcopy_number_sections): the index it held moves into the
		 * symbol. */
		if (shndx && !c->new_index[shndx])
			return err_set(e, "cannot remove section '%s': symbol "
				       "%zu is defined in it",
				       sec_name(c, shndx), k);
		if (shndx)
			put_endian(to + shndx_at, 2, c->new_index[shndx], be);
	}
	*info = last_local + 1;
	*size = kept * entsize;
	return 0;
}

/* The symbol an index in the old table names, renumbered; removed ones
 * are errors (what refers to them would dangle). */
static int renumber(const struct copy *c, uint64_t old, uint64_t *new,
		    const char *removed_why, struct err *e)
{
	if (old >= c->nsyms)
		return err_bad(e, "%s names symbol %llu, which does not exist",
			       removed_why, (unsigned long long)old);
	if (c->sym_new[old] == SYM_REMOVED) {
		const struct elfscan_section *sym = &c->s.sec[c->symtab];
		size_t entsize = c->s.is64 ? 24 : 16, name_len = 0;
		const uint8_t *p = c->buf + sym->offset + old * entsize;
		const char *name = elfscan_string(c->buf, &c->s.sec[sym->link],
						  get_endian(p, 4,
							     c->s.big_endian),
						  &name_len);
		uint64_t shndx = 0;

		symbol_section(c, (size_t)old, p, &shndx, e);
		if (name && name_len)
			return err_set(e, "cannot remove section '%s': %s "
				       "names symbol '%.*s', defined in it",
				       sec_name(c, shndx), removed_why,
				       (int)name_len, name);
		return err_set(e, "cannot remove section '%s': %s names "
			       "symbol %llu, defined in it", sec_name(c, shndx),
			       removed_why, (unsigned long long)old);
	}
	*new = c->sym_new[old];
	return 0;
}

/* A relocation section's symbol indices renumbered (llvm-objcopy writes
 * each entry again with its symbol's new index). */
int elfcopy_rewrite_relocations(struct copy *c, size_t i, struct err *e)
{
	const struct elfscan_section *r = &c->s.sec[i];
	bool be = c->s.big_endian, rela = r->type == SHT_RELA;
	size_t entsize = c->s.is64 ? (rela ? 24 : 16) : (rela ? 12 : 8);
	size_t word = c->s.is64 ? 8 : 4, shift = c->s.is64 ? 32 : 8;
	char why[128];
	uint8_t *p;

	/* MIPS64 little-endian splits r_info in its own way. */
	if (c->s.machine == EM_MIPS && c->s.is64)
		return err_set(e, "section '%s': MIPS64 relocations are not "
			       "renumbered", r->name);
	if (r->size % entsize)
		return err_bad(e, "relocation section '%s' has a size %llu that "
			       "is not a multiple of %zu", r->name,
			       (unsigned long long)r->size, entsize);
	if (!(p = owned_copy(c, i)))
		return err_nomem(e);
	for (uint64_t k = 0; k < r->size; k += entsize) {
		uint64_t info = get_endian(p + k + word, word, be), sym = 0;

		if (info >> shift < c->nsyms &&
		    c->sym_new[info >> shift] != SYM_REMOVED) {
			sym = c->sym_new[info >> shift];
		} else {
			snprintf(why, sizeof(why), "a relocation in '%s' "
				 "(offset 0x%llx)", r->name, (unsigned long long)
				 get_endian(p + k, word, be));
			if (renumber(c, info >> shift, &sym, why, e) < 0)
				return -1;
		}
		info = sym << shift | (info & (((uint64_t)1 << shift) - 1));
		put_endian(p + k + word, word, info, be);
	}
	return 0;
}

/* Every relocation's symbol exists: llvm-objcopy 22 reads each one of a
 * non-allocated REL or RELA section against the object's symbol table
 * (the section linked to no other kind of table) and refuses the file
 * otherwise, in its words.
 * Copied unread, such relocations named symbols past the table written
 * (the elf fuzzer's finding). */
int elfcopy_check_relocation_symbols(const struct copy *c, struct err *e)
{
	bool be = c->s.big_endian;
	bool mips64el = c->s.machine == EM_MIPS && c->s.is64 && !be;
	size_t word = c->s.is64 ? 8 : 4;
	uint64_t nsyms = 0;
	bool have_symtab = false;

	for (size_t i = 1; i < c->s.n && !have_symtab; i++)
		if (c->s.sec[i].type == SHT_SYMTAB) {
			nsyms = c->s.sec[i].size / (c->s.is64 ? 24 : 16);
			have_symtab = true;
		}
	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *r = &c->s.sec[i];
		const uint8_t *p;

		if (!is_reloc(r))
			continue;
		p = c->buf + r->offset;	/* (not NOBITS: inside the file) */
		if (r->link && r->link < c->s.n &&
		    c->s.sec[r->link].type != SHT_SYMTAB)
			return err_bad(e, "Link field value %u in section %s is "
				       "not a symbol table", r->link, r->name);
		/* (check_tables: entsize is the type's, size its multiple) */
		for (uint64_t k = 0; k < r->size; k += r->entsize) {
			uint64_t info = get_endian(p + k + word, word, be);
			uint64_t sym = mips64el ? info & 0xffffffff
				       : c->s.is64 ? info >> 32 : info >> 8;

			if (!sym)
				continue;
			if (!have_symtab)
				return err_bad(e, "'%s': relocation references "
					       "symbol with index %llu, but "
					       "there is no symbol table",
					       r->name, (unsigned long long)sym);
			if (sym >= nsyms)
				return err_bad(e, "invalid symbol index: %llu",
					       (unsigned long long)sym);
		}
	}
	return 0;
}

int elfcopy_rewrite_group(struct copy *c, size_t i, struct err *e)
{
	const struct elfscan_section *g = &c->s.sec[i];
	uint8_t *p;

	if (g->size % 4)
		return err_bad(e, "group section '%s' has a size %llu that is "
			       "not a multiple of 4", g->name,
			       (unsigned long long)g->size);
	if (!(p = owned_copy(c, i)))
		return err_nomem(e);
	/* Linkers deduplicate COMDAT groups by signature name; llvm-objcopy
	 * drops GRP_COMDAT when the signature is a local symbol, taking the
	 * group to be meant local. */
	if (g->size >= 4 && (get_endian(p, 4, c->s.big_endian) & GRP_COMDAT) &&
	    c->symtab && g->link == c->symtab) {
		const struct elfscan_section *sym = &c->s.sec[c->symtab];
		size_t entsize = c->s.is64 ? 24 : 16;

		if (g->info < sym->size / entsize &&
		    GELF_ST_BIND(c->buf[sym->offset + g->info * entsize +
					(c->s.is64 ? 4 : 12)]) == STB_LOCAL)
			put_endian(p, 4, get_endian(p, 4, c->s.big_endian) & ~(uint64_t)GRP_COMDAT,
			    c->s.big_endian);
	}
	if (c->syms_removed && c->symtab && g->link == c->symtab) {
		uint64_t signature = 0;

		if (renumber(c, g->info, &signature, "group section", e) < 0)
			return -1;
		c->o[c->new_index[i]].info = (uint32_t)signature;
	}
	for (uint64_t k = 4; k < g->size; k += 4) {
		uint64_t member = get_endian(p + k, 4, c->s.big_endian);

		if (check_ref(c, i, member, "member", e) < 0)
			return -1;
		put_endian(p + k, 4, c->new_index[member], c->s.big_endian);
	}
	return 0;
}

