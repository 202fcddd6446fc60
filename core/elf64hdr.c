/* elf64hdr: see elf64hdr.h.  Each header is a table of its fields (where
 * in the file, how wide, where in the struct), so that one loop reads
 * and one writes both kinds and a field cannot be moved in one direction
 * only. */
#include <stddef.h>
#include <string.h>

#include "bytes.h"
#include "elf64hdr.h"

struct field {
	unsigned at;		/* offset in the file's header */
	unsigned width;		/* 4 or 8 bytes: the struct's field is as
				 * wide as the file's, its size gives both */
	size_t member;		/* offsetof the struct's field */
};

#define F(type, name, at) \
	{ at, sizeof(((type *)0)->name), offsetof(type, name) }

static const struct field PHDR_FIELDS[] = {
	F(struct elf64_phdr, type, 0),
	F(struct elf64_phdr, flags, 4),
	F(struct elf64_phdr, offset, 8),
	F(struct elf64_phdr, vaddr, 16),
	F(struct elf64_phdr, paddr, 24),
	F(struct elf64_phdr, filesz, 32),
	F(struct elf64_phdr, memsz, 40),
	F(struct elf64_phdr, align, 48),
};

static const struct field SHDR_FIELDS[] = {
	F(struct elf64_shdr, name, 0),
	F(struct elf64_shdr, type, 4),
	F(struct elf64_shdr, flags, 8),
	F(struct elf64_shdr, addr, 16),
	F(struct elf64_shdr, offset, 24),
	F(struct elf64_shdr, size, 32),
	F(struct elf64_shdr, link, 40),
	F(struct elf64_shdr, info, 44),
	F(struct elf64_shdr, align, 48),
	F(struct elf64_shdr, entsize, 56),
};

#undef F

#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

static void fields_get(void *h, const uint8_t *b, const struct field *f,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = get_le(b + f[i].at, (int)f[i].width);
		uint32_t v32 = (uint32_t)v;

		memcpy((char *)h + f[i].member, f[i].width == 4 ?
		       (const void *)&v32 : (const void *)&v, f[i].width);
	}
}

static void fields_put(uint8_t *b, const void *h, const struct field *f,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;
		uint32_t v32 = 0;

		if (f[i].width == 4) {
			memcpy(&v32, (const char *)h + f[i].member, 4);
			v = v32;
		} else {
			memcpy(&v, (const char *)h + f[i].member, 8);
		}
		put_le(b + f[i].at, v, (int)f[i].width);
	}
}

void elf64_phdr_get(struct elf64_phdr *h, const uint8_t *b)
{
	fields_get(h, b, PHDR_FIELDS, NFIELDS(PHDR_FIELDS));
}

void elf64_phdr_put(uint8_t *b, const struct elf64_phdr *h)
{
	fields_put(b, h, PHDR_FIELDS, NFIELDS(PHDR_FIELDS));
}

void elf64_shdr_get(struct elf64_shdr *h, const uint8_t *b)
{
	fields_get(h, b, SHDR_FIELDS, NFIELDS(SHDR_FIELDS));
}

void elf64_shdr_put(uint8_t *b, const struct elf64_shdr *h)
{
	fields_put(b, h, SHDR_FIELDS, NFIELDS(SHDR_FIELDS));
}
