/* elfcopy: llvm-objcopy's rewrite of an ELF file; see elfcopy.h.
 * Written here because byte-identity with LLVM's bundler depends on
 * llvm-objcopy's own layout rules, which no C library reproduces; libelf
 * reads the input (core/elfscan.c) and converts the headers we write.
 * Here the copy is laid out and written; elfcopy_plan.c and
 * elfcopy_symbols.c make its plan (elfcopy_impl.h). */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elfcopy.h"
#include "elfcopy_impl.h"
#include "elfcopy_plan.h"
#include "elfcopy_symbols.h"
#include "bytes.h"
#include "io_write.h"

/* Past this an alignment or layout is hostile, not an object. */
#define LAYOUT_LIMIT ((uint64_t)1 << 48)

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
		err_nomem(e);
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
				/* llvm-objcopy keeps 32 bits of it */
				o->info, o->align, (uint32_t)o->entsize,
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
		return err_nomem(e);
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
		err_nomem(e);
		goto out;
	}
	for (size_t i = 0; i < c.s.n; i++)
		c.holder[i] = c.g.v && i ? elfsegments_holder(&c.g, &c.s.sec[i])
					 : -1;
	if (elfcopy_check_tables(&c, e) < 0 ||
	    elfcopy_number_sections(&c, drop, drop_ctx, nadd, e) < 0 ||
	    elfcopy_plan_symbols(&c, e) < 0 ||
	    elfcopy_check_relocation_symbols(&c, e) < 0 ||
	    elfcopy_plan_strings(&c, add, nadd, e) < 0 ||
	    elfcopy_fill_sections(&c, add, nadd, e) < 0 ||
	    elfcopy_check_segments(&c, e) < 0 ||
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
