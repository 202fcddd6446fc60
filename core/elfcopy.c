/* elfcopy: llvm-objcopy's rewrite of an ELF file; see elfcopy.h.
 * Written here because byte-identity with LLVM's bundler depends on
 * llvm-objcopy's own layout rules, which no C library reproduces; libelf
 * reads the input (core/elfscan.c) and converts the headers we write. */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfcopy.h"
#include "bytes.h"
#include "elfscan.h"
#include "elfsegments.h"
#include "strtab.h"

/* Past this an alignment or layout is hostile, not an object. */
#define LAYOUT_LIMIT ((uint64_t)1 << 48)
/* Zeros we write that the input does not hold: a NOBITS section made
 * PROGBITS, and alignment padding.  Real objects need kilobytes; past this
 * it is an attack on the disk, not an object. */
#define ZERO_FILL_LIMIT ((uint64_t)1 << 30)
/* Not in every <elf.h>: x86-64's large-model section flag, and LLVM's
 * compact relocations. */
#define ELFCOPY_SHF_X86_64_LARGE 0x10000000u
#define ELFCOPY_SHT_CREL 0x40000014u
/* A symbol that goes with the section it is defined in. */
#define SYM_REMOVED UINT32_MAX

struct out_section {
	const char *name;
	size_t name_len;
	uint32_t type, link, info;
	uint64_t flags, addr, size, align, entsize;
	uint64_t old_offset;	/* UINT64_MAX for an added section */
	uint64_t offset;
	const uint8_t *data;	/* size bytes; unused for SHT_NOBITS */
	const struct io_in *from;	/* or copied whole from here */
	size_t old_index;	/* 0 for an added section */
};

struct copy {
	const uint8_t *buf;
	struct elfscan s;
	uint32_t *new_index;	/* old index -> new; 0: dropped */
	struct strtab *tabs;	/* per old index, for rebuilt string tables */
	bool *rebuilt;
	uint8_t **owned;	/* per old index, rewritten contents */
	struct out_section *o;	/* in new index order; o[0] is the null one */
	size_t n;
	size_t symtab;		/* old index, or 0 */
	size_t xindex;		/* old index of SHT_SYMTAB_SHNDX, or 0 */
	struct elfsegments g;	/* executables and shared libraries */
	long *holder;		/* per old index: its segment, or -1 */
	/* Per old symbol index: the new one, or SYM_REMOVED for a symbol
	 * defined in a removed section (llvm-objcopy removes those).  When
	 * any goes, the indices change: relocations and group signatures
	 * are renumbered, and other sections linked to the symbol table
	 * (.llvm_addrsig, whose contents name symbols by index) get sh_link
	 * 0, as llvm-objcopy marks them stale. */
	uint32_t *sym_new;
	size_t nsyms;
	bool syms_removed;
};

static const char *sec_name(const struct copy *c, size_t i)
{
	return c->s.sec[i].name;
}

/* A field naming another section must name one that survives. */
static int check_ref(const struct copy *c, size_t i, uint64_t ref,
		     const char *field, struct err *e)
{
	if (ref >= c->s.n)
		return err_set(e, "section '%s': %s %llu is not a section index",
			       sec_name(c, i), field, (unsigned long long)ref);
	if (ref && !c->new_index[ref])
		return err_set(e, "cannot remove section '%s': section '%s' "
			       "refers to it", sec_name(c, ref), sec_name(c, i));
	return 0;
}

static bool is_reloc(const struct elfscan_section *s)
{
	return (s->type == SHT_REL || s->type == SHT_RELA) &&
	       !(s->flags & SHF_ALLOC);
}

static int number_sections(struct copy *c,
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
				return err_set(e, "more than one symbol table");
			c->symtab = i;
		}
		/* The last table is the symbol table's (llvm-objcopy's
		 * SectionIndexTable); others stay, emptied (fill_sections). */
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
			return err_set(e, "symbol %zu has an extended section "
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

		return err_set(e, "symbol '%.*s' is in section %llu, which "
			       "does not exist", name ? (int)name_len : 0,
			       name ? name : "", (unsigned long long)i);
	}
	*shndx = i;
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
static int check_tables(const struct copy *c, struct err *e)
{
	for (size_t i = 1; i < c->s.n; i++) {
		const struct elfscan_section *s = &c->s.sec[i];

		/* A group is read as 4-byte words. */
		if (s->type == SHT_GROUP && s->align % 4)
			return err_set(e, "group section '%s' has alignment "
				       "%llu, not a multiple of 4", s->name,
				       (unsigned long long)s->align);
		if (s->type != SHT_SYMTAB && !is_reloc(s))
			continue;
		if (s->entsize != table_entsize(c, s))
			return err_set(e, "section '%s' has sh_entsize %llu, "
				       "not the %llu of its type", s->name,
				       (unsigned long long)s->entsize,
				       (unsigned long long)table_entsize(c, s));
		/* (The symbol table's: plan_strings.) */
		if (is_reloc(s) && s->size % s->entsize)
			return err_set(e, "section '%s' has a size %llu that "
				       "is not a multiple of %llu", s->name,
				       (unsigned long long)s->size,
				       (unsigned long long)s->entsize);
	}
	return 0;
}

/* Which symbols stay, and their new indices: llvm-objcopy removes the
 * symbols defined in a removed section (its section symbol, mapping
 * symbols such as AArch64's $d, labels) and keeps the others in order. */
static int plan_symbols(struct copy *c, struct err *e)
{
	const struct elfscan_section *sym;
	size_t entsize = c->s.is64 ? 24 : 16;
	uint32_t next = 0;

	if (!c->symtab)
		return 0;
	sym = &c->s.sec[c->symtab];
	if (!sym->link || sym->link >= c->s.n)
		return err_set(e, "the symbol table's string table is not a "
			       "string table");
	if (sym->size % entsize)
		return err_set(e, "the symbol table's size %llu is not a "
			       "multiple of %zu", (unsigned long long)sym->size,
			       entsize);
	c->nsyms = sym->size / entsize;
	c->sym_new = malloc((c->nsyms ? c->nsyms : 1) * sizeof(*c->sym_new));
	if (!c->sym_new)
		return err_set(e, "out of memory");
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

/* Every non-allocated string table is rebuilt from the names that point
 * into it: section names for the section name table, symbol names for the
 * symbol table's; one no name points into holds just its NUL. */
static int plan_strings(struct copy *c, const struct elfcopy_add *add,
			size_t nadd, struct err *e)
{
	size_t shstr = c->s.shstrndx;

	for (size_t i = 1; i < c->s.n; i++)
		c->rebuilt[i] = c->new_index[i] &&
				c->s.sec[i].type == SHT_STRTAB &&
				!(c->s.sec[i].flags & SHF_ALLOC);
	if (!c->rebuilt[shstr])
		return err_set(e, "the section name table '%s' is not a string "
			       "table", sec_name(c, shstr));
	for (size_t i = 1; i < c->s.n; i++)
		if (c->new_index[i] &&
		    strtab_add(&c->tabs[shstr], c->s.sec[i].name,
			       c->s.sec[i].name_len) < 0)
			return err_set(e, "out of memory");
	for (size_t k = 0; k < nadd; k++)
		if (strtab_add(&c->tabs[shstr], add[k].name,
			       strlen(add[k].name)) < 0)
			return err_set(e, "out of memory");
	if (c->symtab) {
		const struct elfscan_section *sym = &c->s.sec[c->symtab];
		size_t entsize = c->s.is64 ? 24 : 16, count;

		if (!sym->link || !c->rebuilt[sym->link])
			return err_set(e, "the symbol table's string table is "
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
				return err_set(e, "symbol %zu has a bad name "
					       "offset %llu", k,
					       (unsigned long long)off);
			if (strtab_add(&c->tabs[sym->link], name, name_len) < 0)
				return err_set(e, "out of memory");
		}
	}
	for (size_t i = 1; i < c->s.n; i++)
		if (c->rebuilt[i] && strtab_finalize(&c->tabs[i]) < 0)
			return err_set(e, "out of memory");
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
static int rewrite_symbols(struct copy *c, uint32_t *info, uint64_t *size,
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
		return err_set(e, "out of memory");
	/* Each kept symbol goes to its new index (plan_symbols), in a table
	 * of its own: symbols may move either way. */
	uint8_t *out = malloc(c->nsyms * entsize + 1);
	uint64_t kept = 0;

	if (!out)
		return err_set(e, "out of memory");
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
		/* The table of extended indices goes (number_sections): the
		 * index it held moves into the symbol. */
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
		return err_set(e, "%s names symbol %llu, which does not exist",
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
static int rewrite_relocations(struct copy *c, size_t i, struct err *e)
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
		return err_set(e, "relocation section '%s' has a size %llu that "
			       "is not a multiple of %zu", r->name,
			       (unsigned long long)r->size, entsize);
	if (!(p = owned_copy(c, i)))
		return err_set(e, "out of memory");
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

/* llvm-objcopy resolves every relocation's symbol even when it renumbers
 * none, and refuses an index past the symbol table ("invalid symbol
 * index"); so do we, rather than copy a relocation that names nothing. */
static int check_relocation_symbols(const struct copy *c, size_t i,
				    struct err *e)
{
	const struct elfscan_section *r = &c->s.sec[i];
	bool be = c->s.big_endian, rela = r->type == SHT_RELA;
	size_t entsize = c->s.is64 ? (rela ? 24 : 16) : (rela ? 12 : 8);
	const uint8_t *p = c->buf + r->offset;

	for (uint64_t k = 0; k + entsize <= r->size; k += entsize) {
		/* r_sym: the high half of r_info, or on MIPS64 its first
		 * four bytes in either byte order. */
		uint64_t sym = !c->s.is64 ? get_endian(p + k + 4, 4, be) >> 8
			       : c->s.machine == EM_MIPS || be
			       ? get_endian(p + k + 8, 4, be)
			       : get_endian(p + k + 12, 4, be);

		if (sym && sym >= c->nsyms)
			return err_set(e, "a relocation in '%s' names symbol "
				       "%llu, which does not exist", r->name,
				       (unsigned long long)sym);
	}
	return 0;
}

static int rewrite_group(struct copy *c, size_t i, struct err *e)
{
	const struct elfscan_section *g = &c->s.sec[i];
	uint8_t *p;

	if (g->size % 4)
		return err_set(e, "group section '%s' has a size %llu that is "
			       "not a multiple of 4", g->name,
			       (unsigned long long)g->size);
	if (!(p = owned_copy(c, i)))
		return err_set(e, "out of memory");
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

static int fill_sections(struct copy *c, const struct elfcopy_add *add,
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
				return err_set(e, "out of memory");
			strtab_write(t, c->owned[i]);
			o->size = t->size;
			o->data = c->owned[i];
		} else if (i == c->symtab) {
			if (rewrite_symbols(c, &o->info, &o->size, e) < 0)
				return -1;
			o->data = c->owned[i];
			o->entsize = c->s.is64 ? 24 : 16;
		} else if (s->type == SHT_GROUP) {
			if (rewrite_group(c, i, e) < 0)
				return -1;
			o->data = c->owned[i];
		} else if (c->symtab && s->link == c->symtab &&
			   is_reloc(s) && !c->syms_removed) {
			if (check_relocation_symbols(c, i, e) < 0)
				return -1;
		} else if (c->syms_removed && s->link == c->symtab) {
			if (is_reloc(s)) {
				if (rewrite_relocations(c, i, e) < 0)
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

static int by_old_offset(const void *a, const void *b)
{
	const struct out_section *x = *(struct out_section *const *)a;
	const struct out_section *y = *(struct out_section *const *)b;

	if (x->old_offset != y->old_offset)
		return x->old_offset < y->old_offset ? -1 : 1;
	/* Stable: llvm-objcopy keeps section order among equal offsets. */
	return x < y ? -1 : x > y;
}

/* llvm-objcopy's layout (for a file with segments, after them, the
 * sections in segments keeping their offsets): after the ELF
 * header, sections in the order of their old offsets (added ones last),
 * each at the next multiple of its alignment; the header table after them
 * at the next multiple of the address size. */
static int lay_out(struct copy *c, struct out_section **order,
		   uint64_t *shoff, struct err *e)
{
	uint64_t at = c->s.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	uint64_t word = c->s.is64 ? 8 : 4, padding = 0;

	/* With segments (which stay put, elfsegments_read made sure), the
	 * sections in them keep their offsets and the others follow. */
	if (c->g.v)
		at = c->g.end;
	for (size_t i = 1; i < c->n; i++)
		order[i - 1] = &c->o[i];
	qsort(order, c->n - 1, sizeof(*order), by_old_offset);
	for (size_t i = 0; i + 1 < c->n; i++) {
		struct out_section *o = order[i];
		uint64_t align = o->align ? o->align : 1;

		if (o->old_index && c->holder[o->old_index] >= 0) {
			o->offset = elfsegments_place(&c->g,
						      c->holder[o->old_index],
						      &c->s.sec[o->old_index]);
			continue;
		}

		if (align > LAYOUT_LIMIT || o->size > LAYOUT_LIMIT)
			return err_set(e, "section '%s' has an alignment or size "
				       "too large to lay out", o->name);
		padding += (at + align - 1) / align * align - at;
		if (padding > ZERO_FILL_LIMIT)
			return err_set(e, "section '%s': alignment %llu would pad "
				       "the object with more than %llu bytes",
				       o->name, (unsigned long long)o->align,
				       (unsigned long long)ZERO_FILL_LIMIT);
		at = (at + align - 1) / align * align;
		o->offset = at;
		if (o->type != SHT_NOBITS)
			at += o->size;
		if (at > LAYOUT_LIMIT)
			return err_set(e, "the sections do not fit in a file");
	}
	*shoff = (at + word - 1) / word * word;
	return 0;
}

static int write_headers_ehdr(const struct copy *c, uint64_t shoff,
			      struct io_out *out, struct err *e)
{
	unsigned char ident[EI_NIDENT] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3 };
	uint8_t raw[sizeof(Elf64_Ehdr)];
	Elf_Data src = { .d_type = ELF_T_EHDR, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_buf = raw, .d_size = sizeof(raw),
			 .d_version = EV_CURRENT };
	size_t shnum = c->n, shstrndx = c->new_index[c->s.shstrndx];
	unsigned enc = c->s.big_endian ? ELFDATA2MSB : ELFDATA2LSB;
	Elf64_Ehdr h64;
	Elf32_Ehdr h32;
	void *h;

	ident[EI_CLASS] = c->s.is64 ? ELFCLASS64 : ELFCLASS32;
	ident[EI_DATA] = (unsigned char)enc;
	ident[EI_VERSION] = EV_CURRENT;
	ident[EI_OSABI] = c->s.osabi;
	ident[EI_ABIVERSION] = c->s.abiversion;
	if (shnum >= SHN_LORESERVE)
		shnum = 0;
	if (shstrndx >= SHN_LORESERVE)
		shstrndx = SHN_XINDEX;
	if (c->s.is64) {
		h64 = (Elf64_Ehdr){
			.e_type = c->s.e_type, .e_machine = c->s.machine,
			.e_version = c->s.version, .e_entry = c->s.entry,
			.e_shoff = shoff, .e_flags = c->s.flags,
			.e_phoff = c->g.v ? c->g.v[c->g.n + 1].placed : 0,
			.e_phentsize = (Elf64_Half)c->g.phentsize,
			.e_phnum = (Elf64_Half)c->g.n,
			.e_ehsize = sizeof(Elf64_Ehdr),
			.e_shentsize = sizeof(Elf64_Shdr),
			.e_shnum = (Elf64_Half)shnum,
			.e_shstrndx = (Elf64_Half)shstrndx,
		};
		memcpy(h64.e_ident, ident, EI_NIDENT);
		h = &h64;
		src.d_size = sizeof(h64);
	} else {
		h32 = (Elf32_Ehdr){
			.e_type = c->s.e_type, .e_machine = c->s.machine,
			.e_version = c->s.version,
			.e_entry = (Elf32_Addr)c->s.entry,
			.e_shoff = (Elf32_Off)shoff, .e_flags = c->s.flags,
			.e_phoff = (Elf32_Off)(c->g.v ? c->g.v[c->g.n + 1].placed
						      : 0),
			.e_phentsize = (Elf32_Half)c->g.phentsize,
			.e_phnum = (Elf32_Half)c->g.n,
			.e_ehsize = sizeof(Elf32_Ehdr),
			.e_shentsize = sizeof(Elf32_Shdr),
			.e_shnum = (Elf32_Half)shnum,
			.e_shstrndx = (Elf32_Half)shstrndx,
		};
		memcpy(h32.e_ident, ident, EI_NIDENT);
		h = &h32;
		src.d_size = sizeof(h32);
	}
	src.d_buf = h;
	if (!(c->s.is64 ? elf64_xlatetof(&dst, &src, enc) :
			  elf32_xlatetof(&dst, &src, enc)))
		return err_set(e, "libelf: %s", elf_errmsg(-1));
	return io_out_write(out, raw, src.d_size, e);
}

static int write_section_table(const struct copy *c, struct io_out *out,
			       struct err *e)
{
	size_t one = c->s.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	size_t shstr = c->s.shstrndx;
	unsigned enc = c->s.big_endian ? ELFDATA2MSB : ELFDATA2LSB;
	uint8_t *mem = calloc(c->n, one), *raw = malloc(c->n * one);
	Elf_Data src = { .d_buf = mem, .d_size = c->n * one,
			 .d_type = ELF_T_SHDR, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_buf = raw, .d_size = c->n * one,
			 .d_version = EV_CURRENT };
	int rc = -1;

	if (!mem || !raw) {
		err_set(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct out_section *o = &c->o[i];
		uint64_t name = i ? strtab_offset(&c->tabs[shstr], o->name,
						  o->name_len) : 0;
		uint64_t size = o->size, link = o->link;

		if (i == 0) {
			size = c->n >= SHN_LORESERVE ? c->n : 0;
			link = c->new_index[shstr] >= SHN_LORESERVE ?
			       c->new_index[shstr] : 0;
		}
		if (c->s.is64)
			((Elf64_Shdr *)mem)[i] = (Elf64_Shdr){
				(Elf64_Word)name, o->type, o->flags, o->addr,
				i ? o->offset : 0, size, (Elf64_Word)link,
				o->info, o->align, o->entsize,
			};
		else
			((Elf32_Shdr *)mem)[i] = (Elf32_Shdr){
				(Elf32_Word)name, o->type, (Elf32_Word)o->flags,
				(Elf32_Addr)o->addr,
				(Elf32_Off)(i ? o->offset : 0),
				(Elf32_Word)size, (Elf32_Word)link, o->info,
				(Elf32_Word)o->align, (Elf32_Word)o->entsize,
			};
	}
	if (!(c->s.is64 ? elf64_xlatetof(&dst, &src, enc) :
			  elf32_xlatetof(&dst, &src, enc))) {
		err_set(e, "libelf: %s", elf_errmsg(-1));
		goto out;
	}
	rc = io_out_write(out, raw, c->n * one, e);
out:
	free(mem);
	free(raw);
	return rc;
}

static int write_all(struct copy *c, struct io_out *out, struct err *e)
{
	struct out_section **order = malloc(c->n * sizeof(*order));
	uint64_t shoff = 0, at;
	int rc = -1;

	if (!order)
		return err_set(e, "out of memory");
	if (lay_out(c, order, &shoff, e) < 0 ||
	    write_headers_ehdr(c, shoff, out, e) < 0)
		goto out;
	at = c->s.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (c->g.v && elfsegments_write(&c->g, c->buf, c->s.is64,
					c->s.big_endian, out, &at, e) < 0)
		goto out;
	for (size_t i = 0; i + 1 < c->n; i++) {
		const struct out_section *o = order[i];

		if (o->type == SHT_NOBITS || !o->size ||
		    (o->old_index && c->holder[o->old_index] >= 0))
			continue;
		/* llvm-objcopy would lay it over what is already written
		 * (segments ending before the ELF header does, say). */
		if (o->offset < at) {
			err_set(e, "section '%s' would overlap the headers or "
				"segments before it", o->name);
			goto out;
		}
		if (io_out_zeros(out, o->offset - at, e) < 0 ||
		    (o->from ? io_out_copy(out, o->from, 0, o->size, e) :
		     o->data ? io_out_write(out, o->data, o->size, e) :
			       io_out_zeros(out, o->size, e)) < 0)
			goto out;
		at = o->offset + o->size;
	}
	if (io_out_zeros(out, shoff - at, e) < 0 ||
	    write_section_table(c, out, e) < 0)
		goto out;
	rc = 0;
out:
	free(order);
	return rc;
}

/* llvm-objcopy zeroes a removed section's bytes in its segment and
 * writes a rewritten one over the segment's: neither is done here. */
static int check_segments(const struct copy *c, struct err *e)
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

int elfcopy_write(const uint8_t *buf, size_t len,
		  bool (*drop)(void *ctx, const char *name, size_t name_len),
		  void *drop_ctx, const struct elfcopy_add *add, size_t nadd,
		  struct io_out *out, struct err *e)
{
	struct copy c = { .buf = buf };
	int rc = -1;

	if (elfscan_open(&c.s, buf, len, e) < 0)
		return -1;
	if (c.s.e_type != ET_REL && c.s.e_type != ET_EXEC &&
	    c.s.e_type != ET_DYN) {
		err_set(e, "not an object, executable or shared library (ELF "
			"type %u)", (unsigned)c.s.e_type);
		goto out;
	}
	/* e_phnum as written (libelf counts only what fits in the file). */
	if (get_endian(buf + (c.s.is64 ? 56 : 44), 2, c.s.big_endian) &&
	    elfsegments_read(&c.s, buf, len, &c.g, e) < 0)
		goto out;
	c.new_index = calloc(c.s.n, sizeof(*c.new_index));
	c.tabs = calloc(c.s.n, sizeof(*c.tabs));
	c.rebuilt = calloc(c.s.n, sizeof(*c.rebuilt));
	c.owned = calloc(c.s.n, sizeof(*c.owned));
	c.o = calloc(c.s.n + nadd, sizeof(*c.o));
	c.holder = malloc(c.s.n * sizeof(*c.holder));
	if (!c.new_index || !c.tabs || !c.rebuilt || !c.owned || !c.o ||
	    !c.holder) {
		err_set(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c.s.n; i++)
		c.holder[i] = c.g.v && i ? elfsegments_holder(&c.g, &c.s.sec[i])
					 : -1;
	if (check_tables(&c, e) < 0 ||
	    number_sections(&c, drop, drop_ctx, nadd, e) < 0 ||
	    plan_symbols(&c, e) < 0 ||
	    plan_strings(&c, add, nadd, e) < 0 ||
	    fill_sections(&c, add, nadd, e) < 0 ||
	    check_segments(&c, e) < 0 ||
	    write_all(&c, out, e) < 0)
		goto out;
	rc = 0;
out:
	for (size_t i = 0; c.tabs && i < c.s.n; i++)
		strtab_free(&c.tabs[i]);
	for (size_t i = 0; c.owned && i < c.s.n; i++)
		free(c.owned[i]);
	free(c.new_index);
	free(c.tabs);
	free(c.rebuilt);
	free(c.owned);
	free(c.o);
	free(c.holder);
	free(c.sym_new);
	elfsegments_free(&c.g);
	elfscan_free(&c.s);
	return rc;
}
