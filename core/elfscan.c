/* elfscan: an ELF file's section table through libelf, every offset checked
 * against the file; see elfscan.h. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "elfscan.h"

/* libelf wants a writable image because ELF_C_READ_MMAP_PRIVATE may convert
 * in place; it only does so for data we ask it to translate, and we ask it
 * for headers only, which it copies when the byte order differs. */
static Elf *open_image(const uint8_t *buf, size_t len, struct err *e)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_set(e, "libelf: %s", elf_errmsg(-1)), NULL;
	elf = elf_memory((char *)buf, len);
	if (!elf)
		return err_bad(e, "not a valid ELF file: %s", elf_errmsg(-1)), NULL;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return err_bad(e, "not an ELF file"), NULL;
	}
	return elf;
}

bool elfscan_is_elf(const uint8_t *buf, size_t len)
{
	return len >= 4 && !memcmp(buf, "\x7f" "ELF", 4);
}

const char *elfscan_string(const uint8_t *buf, const struct elfscan_section *s,
			   uint64_t off, size_t *len)
{
	const uint8_t *p, *nul;

	if (s->type == SHT_NOBITS || off >= s->size)
		return NULL;
	p = buf + s->offset + off;
	nul = memchr(p, 0, s->size - off);
	if (!nul)
		return NULL;
	*len = (size_t)(nul - p);
	return (const char *)p;
}

/* What must hold before libelf sees the bytes: magic, class, byte order
 * and a whole ELF header. */
static int check_ident(const uint8_t *buf, size_t len, struct err *e)
{
	if (!elfscan_is_elf(buf, len))
		return err_bad(e, "not an ELF file");
	if (len < EI_NIDENT)
		return err_cut(e, "truncated ELF header (%zu bytes)", len);
	if (buf[EI_CLASS] != ELFCLASS32 && buf[EI_CLASS] != ELFCLASS64)
		return err_bad(e, "unknown ELF class");
	if (buf[EI_DATA] != ELFDATA2LSB && buf[EI_DATA] != ELFDATA2MSB)
		return err_bad(e, "unknown ELF byte order");
	if (len < (buf[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr)
					       : sizeof(Elf32_Ehdr)))
		return err_cut(e, "truncated ELF header (%zu bytes)", len);
	return 0;
}

/* The header's fields, and the program and section header tables inside
 * the file: the section count in *n, the name table's index in s. */
static int read_header(struct elfscan *s, Elf *elf, size_t len, size_t *n,
		       struct err *e)
{
	GElf_Ehdr eh;
	size_t shstrndx;

	if (!gelf_getehdr(elf, &eh))
		return err_cut(e, "truncated ELF header");
	s->is64 = gelf_getclass(elf) == ELFCLASS64;
	s->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	s->e_type = eh.e_type;
	s->machine = eh.e_machine;
	s->osabi = eh.e_ident[EI_OSABI];
	s->abiversion = eh.e_ident[EI_ABIVERSION];
	s->version = eh.e_version;
	s->flags = eh.e_flags;
	s->entry = eh.e_entry;
	if (elf_getphdrnum(elf, &s->phnum) < 0) {
		/* Most often a file cut short after its ELF header. */
		if (eh.e_phoff > len || (uint64_t)eh.e_phnum * eh.e_phentsize >
					len - eh.e_phoff)
			return err_cut(e, "program header table runs past the "
				       "end of the file");
		return err_bad(e, "bad program header count");
	}
	/* libelf reports a table outside the file as "no sections"; say
	 * what is wrong instead. */
	if ((eh.e_shoff && (eh.e_shoff > len ||
			    (uint64_t)(eh.e_shnum ? eh.e_shnum : 1) *
			    eh.e_shentsize > len - eh.e_shoff)) ||
	    elf_getshdrnum(elf, n) < 0)
		return err_cut(e, "section header table runs past the end of "
			       "the file");
	if (*n == 0)
		return err_bad(e, "no section headers");
	if (elf_getshdrstrndx(elf, &shstrndx) < 0 || shstrndx == 0 ||
	    shstrndx >= *n)
		return err_bad(e, "bad section name table index (e_shstrndx)");
	s->shstrndx = shstrndx;
	return 0;
}

/* Every section header, each section's bytes inside the file (only the
 * name table's when names_only: the caller checks the others). */
static int read_sections(struct elfscan *s, Elf *elf, size_t len,
			 bool names_only, struct err *e)
{
	for (size_t i = 0; i < s->n; i++) {
		struct elfscan_section *sec = &s->sec[i];
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(elf, i), &sh))
			return err_bad(e, "unreadable section header %zu: %s",
				       i, elf_errmsg(-1));
		*sec = (struct elfscan_section){
			.index = (uint32_t)i, .type = sh.sh_type,
			.link = sh.sh_link, .info = sh.sh_info,
			.flags = sh.sh_flags, .addr = sh.sh_addr,
			.offset = sh.sh_offset, .size = sh.sh_size,
			.align = sh.sh_addralign, .entsize = sh.sh_entsize,
			.name = "", .name_len = 0,
		};
		if (i && sh.sh_type != SHT_NOBITS &&
		    (!names_only || i == s->shstrndx) &&
		    (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset))
			return err_cut(e, "section %zu runs past the end of the "
				       "file (offset %llu, size %llu, file %zu "
				       "bytes)", i,
				       (unsigned long long)sh.sh_offset,
				       (unsigned long long)sh.sh_size, len);
	}
	return 0;
}

/* Each section's name from the name table, and its kind. */
static int name_sections(struct elfscan *s, Elf *elf, const uint8_t *buf,
			 struct err *e)
{
	const struct elfscan_section *names = &s->sec[s->shstrndx];

	if (names->type == SHT_NOBITS)
		return err_bad(e, "the section name table has no bytes");
	for (size_t i = 1; i < s->n; i++) {
		struct elfscan_section *sec = &s->sec[i];
		GElf_Shdr sh;

		gelf_getshdr(elf_getscn(elf, i), &sh);
		sec->name = elfscan_string(buf, names, sh.sh_name,
					   &sec->name_len);
		if (!sec->name)
			return err_bad(e, "section %zu has a bad name offset "
				       "%llu", i, (unsigned long long)sh.sh_name);
		sec->kind = sections_elf_kind(sec->name, sec->name_len,
					      sec->type);
	}
	return 0;
}

static int scan(struct elfscan *s, const uint8_t *buf, size_t len,
		bool names_only, struct err *e)
{
	size_t n;
	Elf *elf;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	if (check_ident(buf, len, e) < 0)
		return -1;
	if (!(elf = open_image(buf, len, e)))
		return -1;
	if (read_header(s, elf, len, &n, e) < 0)
		goto out;
	s->sec = calloc(n, sizeof(*s->sec));
	if (!s->sec) {
		err_nomem(e);
		goto out;
	}
	s->n = n;
	if (read_sections(s, elf, len, names_only, e) < 0 ||
	    name_sections(s, elf, buf, e) < 0)
		goto out;
	rc = 0;
out:
	elf_end(elf);
	if (rc < 0)
		elfscan_free(s);
	return rc;
}

int elfscan_open(struct elfscan *s, const uint8_t *buf, size_t len,
		 struct err *e)
{
	return scan(s, buf, len, false, e);
}

const struct elfscan_section *elfscan_named(const struct elfscan *s,
					    const char *name)
{
	for (size_t i = 1; i < s->n; i++)
		if (!strcmp(s->sec[i].name, name))
			return &s->sec[i];
	return NULL;
}

const struct elfscan_section *elfscan_find(const struct elfscan *s,
					   enum section_kind k)
{
	for (size_t i = 1; i < s->n; i++)
		if (s->sec[i].kind == k)
			return &s->sec[i];
	return NULL;
}

int elfscan_open_names(struct elfscan *s, const uint8_t *buf, size_t len,
		       struct err *e)
{
	return scan(s, buf, len, true, e);
}

bool elfscan_relr_each(const uint8_t *p, uint64_t n,
		       bool (*each)(void *ctx, uint64_t at), void *ctx)
{
	uint64_t where = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t e = get_le(p + 8 * i, 8);

		if (!(e & 1)) {
			if (each(ctx, e))
				return true;
			where = e + 8;
			continue;
		}
		for (unsigned bit = 1; bit < 64; bit++)
			if (((e >> bit) & 1) && each(ctx, where + 8 * (bit - 1)))
				return true;
		where += 63 * 8;
	}
	return false;
}

void elfscan_free(struct elfscan *s)
{
	free(s->sec);
	memset(s, 0, sizeof(*s));
}

const uint8_t *elfscan_bytes(const struct elfscan *s, const uint8_t *buf,
			     size_t i, uint64_t *size)
{
	const struct elfscan_section *sec = &s->sec[i];

	if (sec->type == SHT_NOBITS || i == 0) {
		*size = 0;
		return buf;
	}
	*size = sec->size;
	return buf + sec->offset;
}

/* Defined, non-local, not a file or section symbol: what LLVM's archive
 * writer calls an archive symbol. */
int elfscan_symbols(const uint8_t *buf, size_t len,
		    int (*each)(void *ctx, const char *name, size_t len),
		    void *ctx, struct err *e)
{
	struct elfscan s;
	Elf *elf = NULL;
	int rc = -1;

	if (elfscan_open(&s, buf, len, e) < 0)
		return -1;
	if (!(elf = open_image(buf, len, e)))
		goto out;
	for (size_t i = 1; i < s.n; i++) {
		const struct elfscan_section *sym = &s.sec[i];
		Elf_Data *d;

		if (sym->type != SHT_SYMTAB)
			continue;
		if (sym->link == 0 || sym->link >= s.n) {
			err_bad(e, "symbol table %zu links to no string table", i);
			goto out;
		}
		d = elf_getdata(elf_getscn(elf, i), NULL);
		if (!d) {
			err_bad(e, "unreadable symbol table: %s", elf_errmsg(-1));
			goto out;
		}
		for (size_t k = 1; ; k++) {
			GElf_Sym st;
			const char *name;
			size_t name_len;
			unsigned bind, type;

			if (!gelf_getsym(d, (int)k, &st))
				break;
			bind = GELF_ST_BIND(st.st_info);
			type = GELF_ST_TYPE(st.st_info);
			if (bind == STB_LOCAL || st.st_shndx == SHN_UNDEF ||
			    type == STT_FILE || type == STT_SECTION)
				continue;
			name = elfscan_string(buf, &s.sec[sym->link], st.st_name,
					 &name_len);
			if (!name) {
				err_bad(e, "symbol %zu has a bad name offset %u",
					k, (unsigned)st.st_name);
				goto out;
			}
			if (each(ctx, name, name_len) < 0) {
				err_nomem(e);
				goto out;
			}
		}
		break;
	}
	rc = 0;
out:
	if (elf)
		elf_end(elf);
	elfscan_free(&s);
	return rc;
}
